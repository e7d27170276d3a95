package fs_test

import (
	"context"
	"github.com/sealmark/sealmark/internal/contain"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/fsserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/fs"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	fsserver.Dispatch()
	fixture.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range fs.Pack.Check() {
		t.Error(err)
	}
	for _, p := range fs.Pack.Probes {
		if !strings.Contains(p.Doc, "CVE-2025-53110 class") && !strings.Contains(p.Doc, "CVE-2025-53109 class") {
			t.Errorf("%s: doc %q names no CVE class", p.ID, p.Doc)
		}
		if strings.HasPrefix(p.Name, "read-") == p.Active {
			t.Errorf("%s: Active = %t, want it on every probe but the read side", p.ID, p.Active)
		}
	}
}

// runFS runs the fs pack (passive and active) against a server.
func runFS(t *testing.T, command string, args ...string) *report.Report {
	t.Helper()
	rep, err := run(t.TempDir(), command, args...)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	return rep
}

// run runs the fs pack in a sandbox under dir; it is safe to call from
// any goroutine.
func run(dir, command string, args ...string) (*report.Report, error) {
	return runPack(fs.Pack, dir, command, args...)
}

// runPack is run with a pack of the caller's (fs.Hinted(...)).
func runPack(pack packs.Pack, dir, command string, args ...string) (*report.Report, error) {
	e, err := engine.New(engine.Config{
		Command: command, Args: args,
		Catalog: []packs.Pack{pack}, Packs: []string{"fs"}, Active: true,
		SandboxDir: dir, StartTimeout: 20 * time.Second, CallTimeout: 5 * time.Second,
		StdinGrace: time.Second, TermGrace: time.Second,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return e.Run(ctx, engine.Hooks{}), nil
}

// expect checks a report against the probes that must fail, each with
// findings containing the given texts; every other probe must pass or be
// not applicable. A missing finding fails as loudly as an unexpected one.
func expect(t *testing.T, rep *report.Report, want map[string][]string) {
	t.Helper()
	seen := map[string]bool{}
	for _, p := range rep.Packs[0].Probes {
		seen[p.ID] = true
		texts, expected := want[p.ID]
		if expected && p.Verdict != packs.Failed {
			t.Errorf("%s: verdict %s (%s), want fail with %q", p.ID, p.Verdict, p.Reason, texts)
			continue
		}
		for _, text := range texts {
			if !slices.ContainsFunc(p.Findings, func(f packs.Finding) bool { return strings.Contains(f.Message, text) }) {
				t.Errorf("%s: findings %v, want one containing %q", p.ID, p.Findings, text)
			}
		}
		switch {
		case !expected && p.Verdict == packs.Failed:
			t.Errorf("%s: unexpected fail: %v", p.ID, p.Findings)
		case !expected && p.Verdict != packs.Passed && p.Verdict != packs.NotApplicable:
			t.Errorf("%s: verdict %s (%s), want pass", p.ID, p.Verdict, p.Reason)
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s: probe did not run", id)
		}
	}
}

// TestTwins proves every fs probe both ways against the fixture file
// server: the confined server fails none, and each twin fails exactly the
// probes its one flaw earns.
func TestTwins(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	twins := []struct {
		flaws string
		want  map[string][]string // probe id → for each text, a finding message must contain it
	}{
		{"", nil},
		{"prefix-check", map[string][]string{
			"FS-READ-PREFIX-SIBLING": {
				`read_file(path="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`,
				`read_multiple_files(paths=["{sandbox}-evil/evil.txt"]) returned the content of root-evil/evil.txt`,
				`list_directory(path="{sandbox}-evil") listed root-evil/evil.txt`,
				`search_files(path="{sandbox}-evil", pattern="**") listed root-evil/evil.txt`,
				`get_file_info(path="{sandbox}-evil/evil.txt") returned the metadata of root-evil/evil.txt`,
			},
			"FS-WRITE-PREFIX-SIBLING": {
				`write_file(path="{sandbox}-evil/sealmark-`,
				`edit_file(path="{sandbox}-evil/evil.txt") changed the sandbox outside the root: modified root-evil/evil.txt`,
				`create_directory(path="{sandbox}-evil/sealmark-`,
				`move_file(source="{sandbox}-evil/evil.txt", destination="{sandbox}/sealmark-`,
				`delete_file(path="{sandbox}-evil/evil.txt") changed the sandbox outside the root: deleted root-evil/evil.txt`,
				`create_symlink(path="{sandbox}-evil/sealmark-`,
			},
		}},
		{"follow-links", map[string][]string{
			"FS-READ-LINK-FILE": {
				`read_file(path="{sandbox}/link-file") returned the content of canary/secret.txt`,
				`get_file_info(path="{sandbox}/link-file") returned the metadata of canary/secret.txt`,
			},
			"FS-READ-LINK-DIR": {
				`read_file(path="{sandbox}/link-dir/secret.txt") returned the content of canary/secret.txt`,
				`list_directory(path="{sandbox}/link-dir") listed canary/`,
			},
			"FS-WRITE-LINK-FILE": {`write_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
			"FS-WRITE-LINK-DIR":  {`create_directory(path="{sandbox}/link-dir/sealmark-`},
		}},
		{"decode-after-check", map[string][]string{
			"FS-READ-ENCODED-DOTS":  {`read_file(path="{sandbox}/%2e%2e/canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-ENCODED-DOTS": {`write_file(path="{sandbox}/%2e%2e/canary/sealmark-`},
		}},
		{"cwd-relative", map[string][]string{
			"FS-READ-RELATIVE":  {`read_file(path="../canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-RELATIVE": {`write_file(path="../canary/sealmark-`},
		}},
		{"list-through-links", map[string][]string{
			"FS-READ-LINK-DIR": {`search_files(path="{sandbox}", pattern="**") listed canary/`},
		}},
		{"write-through-links", map[string][]string{
			"FS-WRITE-LINK-FILE": {`edit_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
			"FS-WRITE-LINK-DIR": {
				`write_file(path="{sandbox}/link-dir/sealmark-`,
				`delete_file(path="{sandbox}/link-dir/secret.txt") changed the sandbox outside the root: deleted canary/secret.txt`,
			},
		}},
		{"move-out-of-root", map[string][]string{
			"FS-WRITE-TRAVERSAL":      {`move_file(source="{sandbox}/sealmark-`},
			"FS-WRITE-RELATIVE":       {`move_file(source="{sandbox}/sealmark-`},
			"FS-WRITE-PREFIX-SIBLING": {`move_file(source="{sandbox}/sealmark-`},
			"FS-WRITE-LINK-DIR":       {`move_file(source="{sandbox}/sealmark-`},
		}},
		{"no-clean", map[string][]string{
			"FS-READ-TRAVERSAL":  {`read_file(path="{sandbox}/../canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-TRAVERSAL": {`write_file(path="{sandbox}/../canary/sealmark-`},
		}},
		{"backslash-after-check", map[string][]string{
			"FS-READ-BACKSLASH":  {`read_file(path="..\\canary\\secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-BACKSLASH": {`write_file(path="..\\canary\\sealmark-`},
		}},
		{"nul-truncates", map[string][]string{
			"FS-READ-NUL-BYTE":  {`read_file(path="{sandbox}/../canary/secret.txt\x00/../../root/ok.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-NUL-BYTE": {`write_file(path="{sandbox}/../canary/sealmark-`},
		}},
		{"home-after-check", map[string][]string{
			"FS-READ-HOME":  {`read_file(path="~/../canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-HOME": {`write_file(path="~/sealmark-`},
		}},
		{"uri-after-check", map[string][]string{
			"FS-READ-FILE-URI":  {`read_file(path="file://{sandbox_top}/canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-FILE-URI": {`write_file(path="file://{sandbox_top}/canary/sealmark-`},
		}},
		{"link-out", map[string][]string{
			"FS-LINK-CREATE": {`create_symlink(path="{sandbox}/sealmark-`},
		}},
	}
	// The runs wait on their servers and the file events more than they
	// compute, so four at a time finish sooner than go test's two.
	reports := make([]*report.Report, len(twins))
	errs := make([]error, len(twins))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, tw := range twins {
		dir := t.TempDir()
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i], errs[i] = run(dir, self, fsserver.Verb, "-flaws="+tw.flaws, "{sandbox}")
		})
	}
	wg.Wait()
	for i, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "confined"
		}
		t.Run(name, func(t *testing.T) {
			require.NoError(t, errs[i])
			require.Empty(t, reports[i].HarnessError)
			require.Len(t, reports[i].Packs, 1)
			expect(t, reports[i], tw.want)
		})
	}
}
