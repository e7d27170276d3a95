package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	recipeFile = "../../docs/ci-recipe.sh"
	readmeFile = "../../README.md"
	// ciPage is the CI page, which shows the recipe for CI other than
	// GitHub Actions.
	ciPage = "../../docs/ci.md"
	// recipeMarker precedes, in the CI page, the fenced block that must
	// equal docs/ci-recipe.sh.
	recipeMarker = "<!-- docs/ci-recipe.sh, verbatim; a test keeps the two equal -->"
)

// pageRecipe returns the fenced block of the CI page that follows
// recipeMarker.
func pageRecipe(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(ciPage)
	require.NoError(t, err)
	_, after, ok := strings.Cut(string(raw), recipeMarker+"\n")
	require.True(t, ok, "docs/ci.md lacks the marker %q", recipeMarker)
	after, ok = strings.CutPrefix(after, "```sh\n")
	require.True(t, ok, "the marker is not followed by a ```sh block")
	block, _, ok := strings.Cut(after, "\n```\n")
	require.True(t, ok, "the recipe block is not closed")
	return block + "\n"
}

func TestCIPageShowsTheCIRecipeVerbatim(t *testing.T) {
	script, err := os.ReadFile(recipeFile)
	require.NoError(t, err)
	assert.Equal(t, string(script), pageRecipe(t), "docs/ci.md's CI recipe differs from docs/ci-recipe.sh")
}

// upload is one request the recipe's upload step made.
type upload struct {
	auth string
	body []byte
}

// runRecipe runs docs/ci-recipe.sh in a fresh directory with this test
// binary as sealmark, and returns its exit code, output and directory.
func runRecipe(t *testing.T, env []string, args ...string) (code int, output, dir string) {
	t.Helper()
	for _, tool := range []string{"sh", "gzip", "base64", "tr", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the CI recipe needs %s: %v", tool, err)
		}
	}
	self, err := os.Executable()
	require.NoError(t, err)
	script, err := filepath.Abs(recipeFile)
	require.NoError(t, err)
	dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), cliEnv+"=1", "SEALMARK="+self, "TMPDIR="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("running the recipe: %v\n%s", err, out.String())
	}
	return code, out.String(), dir
}

// TestCIRecipe runs the README's recipe as written against the bundled
// example server (a critical flaw): exit 1, the three reports, and the SARIF
// log uploaded to a loopback stand-in for the code scanning endpoint. A
// configuration error uploads nothing.
func TestCIRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's CI recipe against the example server")
	}
	var mu sync.Mutex
	var got []upload
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		mu.Lock()
		got = append(got, upload{auth: r.Header.Get("Authorization"), body: body})
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	env := []string{"SARIF_UPLOAD_URL=" + srv.URL + "/repos/o/r/code-scanning/sarifs", "SARIF_UPLOAD_TOKEN=tok-123",
		"COMMIT_SHA=0123456789abcdef0123456789abcdef01234567", "GIT_REF=refs/heads/main"}

	code, out, dir := runRecipe(t, env, "--example")
	require.Equal(t, 1, code, "the example server's critical finding fails the step:\n%s", out)
	sarif, err := os.ReadFile(filepath.Join(dir, "sealmark.sarif"))
	require.NoError(t, err)
	assert.True(t, json.Valid(sarif))
	for _, f := range []string{"sealmark.json", "sealmark.xml"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
	mu.Lock()
	require.Len(t, got, 1, "one upload")
	up := got[0]
	mu.Unlock()
	assert.Equal(t, "Bearer tok-123", up.auth)
	var body struct {
		CommitSHA string `json:"commit_sha"`
		Ref       string `json:"ref"`
		ToolName  string `json:"tool_name"`
		SARIF     string `json:"sarif"`
	}
	require.NoError(t, json.Unmarshal(up.body, &body), "%s", up.body)
	assert.Equal(t, "0123456789abcdef0123456789abcdef01234567", body.CommitSHA)
	assert.Equal(t, "refs/heads/main", body.Ref)
	gz, err := base64.StdEncoding.DecodeString(body.SARIF)
	require.NoError(t, err)
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	require.NoError(t, err)
	sent, err := io.ReadAll(io.LimitReader(zr, 16<<20))
	require.NoError(t, err)
	assert.Equal(t, sarif, sent, "the upload carries the SARIF log, gzipped and base64-encoded")

	code, out, _ = runRecipe(t, env, "--fail-on", "severe", "--example")
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "sealmark exited 2: nothing tested, nothing uploaded")
	mu.Lock()
	assert.Len(t, got, 1, "a run that tested nothing uploads nothing")
	mu.Unlock()
}
