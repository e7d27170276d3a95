package git_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/gitserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/git"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	gitserver.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range git.Pack.Check() {
		t.Error(err)
	}
	for _, p := range git.Pack.Probes {
		if !strings.Contains(p.Doc, " class)") {
			t.Errorf("%s: doc %q names no class", p.ID, p.Doc)
		}
	}
}

// runGit runs the git pack (passive and active) against a server and
// checks that the run itself went well and left nothing behind: the
// sandbox directory is empty (nothing written next to the sandbox, the
// sandbox removed) and no process started for the run (the server, git,
// sm-canary) is alive.
func runGit(t *testing.T, command string, args ...string) *report.Report {
	t.Helper()
	dir := t.TempDir()
	e, err := engine.New(engine.Config{
		Command: command, Args: args,
		Catalog: []packs.Pack{git.Pack}, Packs: []string{"git"}, Active: true,
		SandboxDir: dir, StartTimeout: 20 * time.Second, CallTimeout: 10 * time.Second,
		StdinGrace: time.Second, TermGrace: time.Second,
	})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, l := range left {
		t.Errorf("the run left %s in the sandbox directory", l.Name())
	}
	for _, pid := range survivors(dir) {
		t.Errorf("process %s (started in or from the sandbox) outlived the run", pid)
	}
	return rep
}

// survivors lists the live processes whose working directory or command
// line lies in dir: the server, git, sm-canary or anything they started.
func survivors(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cwd, _ := os.Readlink("/proc/" + e.Name() + "/cwd")
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(stat), ") Z ") {
			continue // a zombie holds nothing
		}
		if strings.HasPrefix(cwd, dir) || strings.Contains(string(cmdline), dir) {
			out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
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
		if testing.Verbose() {
			t.Logf("%s: %s %s notes %q", p.ID, p.Verdict, p.Reason, p.Notes)
			for _, f := range p.Findings {
				t.Logf("    FINDING %s %s", f.Severity, f.Message)
			}
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("%s: probe did not run", id)
		}
	}
}
