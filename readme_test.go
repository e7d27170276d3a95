package sealmark_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// goBlock is one ```go block of the README or a docs page.
var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// snippetPages are the pages whose Go snippets are compiled: the README
// and the docs pages, except the adding-a-pack and adding-an-observer
// guides, whose own tests follow them step by step.
func snippetPages(t *testing.T) []string {
	pages := []string{"README.md"}
	for _, glob := range []string{"docs/*.md", "docs/packs/*.md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			if !strings.HasPrefix(filepath.Base(p), "adding-") {
				pages = append(pages, p)
			}
		}
	}
	return pages
}

// TestREADMEGoSnippetsCompile compiles every Go snippet of the README and
// the docs as printed: each is a whole file (package clause and imports
// included) that go test builds in a package of its own, laid over the
// module with -overlay, so nothing is written into the repository.
func TestREADMEGoSnippetsCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: compiles every Go snippet of the README and the docs with go test")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	var blocks [][][]byte
	for _, page := range snippetPages(t) {
		raw, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		found := goBlock.FindAllSubmatch(raw, -1)
		if page == "README.md" && len(found) < 2 {
			t.Fatalf("the README has %d Go snippets, want the go test door's and the table's", len(found))
		}
		blocks = append(blocks, found...)
	}
	if len(blocks) < 4 {
		t.Fatalf("%d Go snippets in the README and the docs, want the README's two and docs/go-test.md's two", len(blocks))
	}
	root, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	for i, b := range blocks {
		src := string(b[1])
		name := strings.Fields(strings.TrimPrefix(strings.SplitN(src, "\n", 2)[0], "//"))
		if len(name) == 0 || !strings.HasSuffix(strings.TrimSuffix(name[0], ","), ".go") {
			t.Errorf("snippet %d does not open with the name of its file (// server_test.go):\n%s", i+1, src)
			continue
		}
		file := filepath.Join(tmp, fmt.Sprintf("snippet%d.go", i+1))
		if err := os.WriteFile(file, b[1], 0o600); err != nil {
			t.Fatal(err)
		}
		pkg := fmt.Sprintf("internal/readmesnippet%d", i+1) // no such directory: the overlay makes it
		overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{
			filepath.Join(root, pkg, strings.TrimSuffix(name[0], ",")): file,
		}})
		ofile := filepath.Join(tmp, fmt.Sprintf("overlay%d.json", i+1))
		if err := os.WriteFile(ofile, overlay, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, goCmd, "test", "-vet=off", "-c", "-o", filepath.Join(tmp, fmt.Sprintf("snippet%d.test", i+1)),
			"-overlay="+ofile, "./"+pkg)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("README snippet %d does not compile as printed: %v\n%s\n--- snippet ---\n%s", i+1, err, out, src)
		}
	}
}
