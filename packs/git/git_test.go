package git_test

import (
	"os"
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
	"github.com/sealmark/sealmark/packs/internal/packtest"
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

// config is a run of the git pack (passive and active) against a server,
// with a 10 s call timeout (a clone of the sandbox's repositories).
func config(command string, args ...string) engine.Config {
	return engine.Config{Command: command, Args: args, Catalog: []packs.Pack{git.Pack}, Active: true, CallTimeout: 10 * time.Second}
}

// runGit runs the git pack against a server and checks the run left
// nothing behind (see clean).
func runGit(t *testing.T, command string, args ...string) *report.Report {
	t.Helper()
	dir := t.TempDir()
	rep, err := packtest.Run(dir, config(command, args...))
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	clean(t, dir)
	return rep
}

// clean checks that a run under dir went well and left nothing behind:
// the sandbox directory is empty (nothing written next to the sandbox,
// the sandbox removed) and no process started for the run (the server,
// git, sm-canary) is alive.
func clean(t *testing.T, dir string) {
	t.Helper()
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, l := range left {
		t.Errorf("the run left %s in the sandbox directory", l.Name())
	}
	for _, pid := range survivors(dir) {
		t.Errorf("process %s (started in or from the sandbox) outlived the run", pid)
	}
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
