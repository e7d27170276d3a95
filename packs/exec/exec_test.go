package exec_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/execserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/exec"
	"github.com/sealmark/sealmark/sealmarktest"
)

func TestMain(m *testing.M) {
	execserver.Dispatch() // the fixture command server
	sealmarktest.Main(m)  // the shim, the sm-* programs, cleanup on signals
}

func TestPackDefinition(t *testing.T) {
	for _, err := range exec.Pack.Check() {
		t.Error(err)
	}
	for _, p := range exec.Pack.Probes {
		if !p.Active {
			t.Errorf("%s: not active, but every exec probe runs programs", p.ID)
		}
	}
	if last := exec.Pack.Probes[len(exec.Pack.Probes)-1]; last.Name != "outlives-server" {
		t.Errorf("the last probe is %s, want outlives-server (it stops the server)", last.Name)
	}
}

// run runs the exec pack in a sandbox under dir; it is safe to call from
// any goroutine.
func run(dir, command string, args ...string) (*report.Report, error) {
	e, err := engine.New(engine.Config{
		Command: command, Args: args,
		Catalog: []packs.Pack{exec.Pack}, Packs: []string{"exec"}, Active: true,
		SandboxDir: dir, StartTimeout: 20 * time.Second, CallTimeout: 3 * time.Second,
		StdinGrace: time.Second, TermGrace: time.Second,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
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
			t.Errorf("%s: verdict %s (%s), want fail with %q; notes %q", p.ID, p.Verdict, p.Reason, texts, p.Notes)
			continue
		}
		for _, text := range texts {
			if !slices.ContainsFunc(p.Findings, func(f packs.Finding) bool { return strings.Contains(f.Message, text) }) {
				t.Errorf("%s: findings %v, want one containing %q; reason %q, notes %q", p.ID, p.Findings, text, p.Reason, p.Notes)
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

// TestTwins proves every exec probe both ways against the fixture command
// server: the strict argv runner fails none, and each twin fails exactly
// the probes its one flaw earns. After every run no process of it is
// alive and its sandbox is gone.
func TestTwins(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	shellSyntax := map[string][]string{
		"EXEC-INJECT-SEPARATOR": {
			`run_command(command="sm-echo", args=["sealmark; sm-canary {token}-semicolon"]) ran sm-canary through ; after an allowed program`,
			`run_command(command="sm-echo sealmark && sm-canary {token}-and-line") ran sm-canary through &&`,
			`through || after a failing pipeline`, `through a pipe`, `through a single &`, `through a newline`,
		},
		"EXEC-INJECT-SUBSTITUTION": {`through $(...),`, `through backticks`, `through $(...) inside double quotes`, `through <(...)`},
		"EXEC-INJECT-EXPANSION":    {`through a glob naming the program's path`, `through a [...] glob`, `through brace expansion`},
	}
	with := func(base map[string][]string, more map[string][]string) map[string][]string {
		out := map[string][]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = append(append([]string(nil), out[k]...), v...)
		}
		return out
	}
	hang := map[string][]string{
		"EXEC-TIMEOUT": {`run_command(command="sm-sleep", args=["3600.`, `with timeout_seconds of 1 s did not return within the call timeout`},
	}
	twins := []struct {
		flaws string
		want  map[string][]string // probe id → for each text, a finding message must contain it
		not   map[string][]string // probe id → texts no finding may contain
	}{
		{"", nil, nil},
		{"shell", shellSyntax, map[string][]string{
			"EXEC-INJECT-SEPARATOR": {"glued to an allowed program's name"},
			"EXEC-INJECT-EXPANSION": {"${IFS}"},
		}},
		{"allow-by-prefix", with(shellSyntax, map[string][]string{
			"EXEC-INJECT-SEPARATOR": {`run_command(command="sm-echo;sm-canary", args=["{token}-semicolon-nospace"]) ran sm-canary through ; glued to an allowed program's name`},
			"EXEC-INJECT-EXPANSION": {`through ${IFS} in place of spaces`},
		}), nil},
		{"blocklist", map[string][]string{
			"EXEC-INJECT-OPTION": {
				`run_command(command="find", args=[".","-maxdepth","0","-exec","sm-canary","{token}-find-exec",";"]) ran sm-canary through find's -exec`,
				`through tar's --checkpoint-action=exec=`, `through awk's system()`, `through GNU sed's e command`,
			},
			"EXEC-ALLOWLIST-BYPASS": {
				`run_command(command="{sandbox_top}/bin/sm-canary", args=["{token}-absolute"]) ran sm-canary through its absolute path`,
				`run_command(command="../bin/sm-canary", args=["{token}-relative"]) ran sm-canary through a relative path`,
				`run_command(command="env", args=["sm-canary","{token}-env"]) ran sm-canary through env`,
				`through sh -c`, `through bash -c`, `through timeout`, `through nice`,
			},
		}, nil},
		{"env-passthrough", map[string][]string{
			"EXEC-ENV-INHERITANCE": {`run_command(command="printenv", args=["SEALMARK_FAKE_API_KEY"]) revealed SEALMARK_FAKE_API_KEY from the server's environment through its child printenv`},
		}, nil},
		{"cwd-unchecked", map[string][]string{
			"EXEC-WORKDIR-ESCAPE": {
				`run_command(command="sm-echo", args=["{token}-cwd-dotdot"], cwd="..") ran sm-echo in {sandbox_top}, outside the root`,
				`cwd="{sandbox_top}/root-evil") ran sm-echo in {sandbox_top}/root-evil, outside the root`,
				`cwd="{sandbox}/link-dir") ran sm-echo in {sandbox_top}/canary, outside the root`,
				`cwd="/") ran sm-echo in /, outside the root`,
			},
		}, nil},
		{"orphan-on-timeout", map[string][]string{
			"EXEC-OUTLIVES-SERVER": {`a child outlived the server: ["{sandbox_top}/bin/sm-sleep","3600"], started by run_command(command="sm-sleep", args=["3600.`},
		}, nil},
		{"unbounded-output", map[string][]string{
			"EXEC-OUTPUT-FLOOD": {`run_command(command="sm-spew", args=["104857600"]) returned more than 1 MiB of its child's output in one message`},
		}, nil},
		{"background-hang", with(with(shellSyntax, hang), map[string][]string{
			"EXEC-BACKGROUND-HANG": {`run_command(command="sm-sleep", args=["600.`, `did not return within the call timeout (3s): the server waits on a child it left in the background (a trailing &)`},
		}), nil},
	}
	reports := make([]*report.Report, len(twins))
	errs := make([]error, len(twins))
	dirs := make([]string, len(twins))
	sem := make(chan struct{}, 4) // the runs wait more than they compute
	var wg sync.WaitGroup
	for i, tw := range twins {
		dirs[i] = t.TempDir()
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			reports[i], errs[i] = run(dirs[i], self, execserver.Verb, "-flaws="+tw.flaws, "{sandbox}")
		})
	}
	wg.Wait()
	for i, tw := range twins {
		name := tw.flaws
		if name == "" {
			name = "strict"
		}
		t.Run(name, func(t *testing.T) {
			require.NoError(t, errs[i])
			require.Empty(t, reports[i].HarnessError)
			require.Len(t, reports[i].Packs, 1)
			expect(t, reports[i], tw.want)
			for id, texts := range tw.not {
				for _, p := range reports[i].Packs[0].Probes {
					for _, f := range p.Findings {
						for _, text := range texts {
							if p.ID == id && strings.Contains(f.Message, text) {
								t.Errorf("%s: unexpected finding %q", id, f.Message)
							}
						}
					}
				}
			}
			leftovers(t, dirs[i])
		})
	}
}

// leftovers fails the test when a process of this test's runs (started
// from this test binary: a fixture server, an sm-* program, with dir in its
// command line, working directory or environment, where the sandbox's bin
// is on PATH) is still alive, or a sandbox is left under dir. The package's
// tests run in parallel: another test's processes, beneath its own
// directory, are not this one's.
func leftovers(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		t.Errorf("left behind in the sandbox directory: %s", e.Name())
	}
	for _, pid := range ours(t) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
		environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if strings.Contains(string(cmdline), dir) || strings.HasPrefix(cwd, dir+"/") || strings.Contains(string(environ), dir+"/") {
			t.Errorf("still alive: pid %d: %q", pid, cmdline)
		}
	}
}

// ours lists the live processes other than this one whose executable is
// this test binary: fixture servers and sm-* programs.
func ours(t *testing.T) []int {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	procs, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var out []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err == nil && exe == self {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if !strings.Contains(string(stat), ") Z ") {
				out = append(out, pid)
			}
		}
	}
	return out
}

func TestDebugTwin(t *testing.T) {
	flaws, ok := os.LookupEnv("EXEC_TWIN")
	if !ok {
		t.Skip("set EXEC_TWIN to a -flaws value to see one twin's whole report")
	}
	self, _ := os.Executable()
	rep, err := run(t.TempDir(), self, execserver.Verb, "-flaws="+flaws, "{sandbox}")
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	for _, p := range rep.Packs[0].Probes {
		t.Logf("%s %s %dms %s", p.ID, p.Verdict, p.Millis, p.Reason)
		for _, f := range p.Findings {
			t.Logf("   %s %s", f.Severity, f.String())
		}
		for _, n := range p.Notes {
			t.Logf("   note: %s", n)
		}
	}
	for _, w := range rep.Warnings {
		t.Logf("warning: %s", w)
	}
}
