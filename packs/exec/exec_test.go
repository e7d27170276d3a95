package exec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/execserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/exec"
	"github.com/sealmark/sealmark/packs/internal/packtest"
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

// config is a run of the exec pack against a server, with a 3 s call
// timeout: the hang probes wait for it.
func config(command string, args ...string) engine.Config {
	return engine.Config{Command: command, Args: args, Catalog: []packs.Pack{exec.Pack}, Active: true, CallTimeout: 3 * time.Second}
}

// TestTwins proves every exec probe both ways against the fixture command
// server: the strict argv runner fails none, and each twin fails exactly
// the probes its one flaw earns. After every run no process of it is
// alive and its sandbox is gone.
func TestTwins(t *testing.T) {
	t.Parallel()
	self := packtest.Self(t)
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
	twins := []packtest.Twin{
		{},
		{Flaws: "shell", Want: shellSyntax, Not: packtest.Want{
			"EXEC-INJECT-SEPARATOR": {"glued to an allowed program's name"},
			"EXEC-INJECT-EXPANSION": {"${IFS}"},
		}},
		{Flaws: "allow-by-prefix", Want: with(shellSyntax, map[string][]string{
			"EXEC-INJECT-SEPARATOR": {`run_command(command="sm-echo;sm-canary", args=["{token}-semicolon-nospace"]) ran sm-canary through ; glued to an allowed program's name`},
			"EXEC-INJECT-EXPANSION": {`through ${IFS} in place of spaces`},
		})},
		{Flaws: "blocklist", Want: packtest.Want{
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
		}},
		{Flaws: "env-passthrough", Want: packtest.Want{
			"EXEC-ENV-INHERITANCE": {`run_command passes the server's environment to the programs it runs: a child printed a canary secret into the result`},
		}},
		{Flaws: "cwd-unchecked", Want: packtest.Want{
			"EXEC-WORKDIR-ESCAPE": {
				`run_command(command="sm-echo", args=["{token}-cwd-dotdot"], cwd="..") ran sm-echo in {sandbox_top}, outside the root`,
				`cwd="{sandbox_top}/root-evil") ran sm-echo in {sandbox_top}/root-evil, outside the root`,
				`cwd="{sandbox}/link-dir") ran sm-echo in {sandbox_top}/canary, outside the root`,
				`cwd="/") ran sm-echo in /, outside the root`,
			},
		}},
		{Flaws: "orphan-on-timeout", Want: packtest.Want{
			"EXEC-OUTLIVES-SERVER": {`a child outlived the server: ["{sandbox_top}/bin/sm-sleep","3600"], started by run_command(command="sm-sleep", args=["3600"]) by timeout`},
		}},
		{Flaws: "unbounded-output", Want: packtest.Want{
			"EXEC-OUTPUT-FLOOD": {`run_command(command="sm-spew", args=["104857600"]) returned more than 1 MiB of its child's output in one message`},
		}},
		{Flaws: "background-hang", Want: with(with(shellSyntax, hang), map[string][]string{
			"EXEC-BACKGROUND-HANG": {`run_command(command="sm-sleep", args=["600.`, `did not return within the call timeout (3s): the server waits on a child it left in the background (a trailing &)`},
		})},
	}
	twins = packtest.Short(t, twins, "every exec probe's twins against the fixture command server", "correct", "shell")
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(self, execserver.Verb, "-flaws="+tw.Flaws, "{sandbox}")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.Absent(tw.Not))
		if tw.Flaws == "env-passthrough" {
			// The form that revealed the key is the evidence's, not the message's.
			p := probeOf(t, r.Report, "EXEC-ENV-INHERITANCE")
			require.NotEmpty(t, p.Findings)
			assert.Contains(t, evidence(p.Findings[0]), `run_command(command="printenv", args=["SEALMARK_FAKE_API_KEY"]) revealed SEALMARK_FAKE_API_KEY from the server's environment through its child printenv`)
		}
		leftovers(t, r.Dir)
	})
}

// probeOf is the probe id of rep's one pack.
func probeOf(t *testing.T, rep *report.Report, id string) report.Probe {
	t.Helper()
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			if p.ID == id {
				return p
			}
		}
	}
	t.Fatalf("probe %s did not run", id)
	return report.Probe{}
}

// evidence is a finding's evidence, one line an item.
func evidence(f packs.Finding) string {
	var b strings.Builder
	for _, e := range f.Evidence {
		b.WriteString(e.Observer + ": " + e.Detail + "\n")
	}
	return b.String()
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
// this test binary (fixture servers, and sm-* programs where they link to
// it) or a sandbox's sm-* helper (smbin.HelperName, its copy in bin).
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
		helper := filepath.Base(strings.TrimSuffix(exe, " (deleted)")) == smbin.HelperName
		if err == nil && (exe == self || helper) {
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
	rep := packtest.MustRun(t, config(self, execserver.Verb, "-flaws="+flaws, "{sandbox}"))
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

// TestOutputFlood proves output-flood both ways on what the tool
// returned, not on the line around it: output capped at exactly 1 MiB
// (Node's default maxBuffer), returned whole as the text content, is no
// flood though its JSON-RPC line is over 1 MiB (measured: reported
// before); 2 MiB returned in a line the harness reads is. (All of 100 MiB,
// in a line past what the harness reads, is TestTwins' unbounded-output;
// TestEstimated measures such a line's head.)
func TestOutputFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the output-flood twins at the 1 MiB and 2 MiB caps")
	}
	t.Parallel()
	self := packtest.Self(t)
	const flood = `run_command(command="sm-spew", args=["104857600"]) returned more than 1 MiB of its child's output in one message`
	twins := []packtest.Twin{
		{},
		{Flaws: "output-cap-1mib"},
		{Flaws: "output-cap-2mib", Want: packtest.Want{"EXEC-OUTPUT-FLOOD": {flood}}},
	}
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		cfg := config(self, execserver.Verb, "-flaws="+tw.Flaws, "{sandbox}")
		cfg.OnlyProbes = []string{"output-flood"}
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.Ran("EXEC-OUTPUT-FLOOD"))
		for _, pk := range r.Report.Packs {
			for _, p := range pk.Probes {
				if p.ID == "EXEC-OUTPUT-FLOOD" {
					require.NotEqual(t, packs.NotApplicable, p.Verdict, p.Reason)
					for _, f := range p.Findings {
						t.Logf("%s", f.String())
					}
					t.Logf("notes %q", p.Notes)
				}
			}
		}
	})
}

// TestLateShell proves the wait after a probe's calls (settle) both
// ways: the late-shell twin answers as the strict server does and runs
// each allowed line once more through bash -c 200 ms after its answer,
// leaving what that starts running. The wait ends once the server's tree
// is idle, its timer included, and so still sees what the last call
// started: outlives-server's last sm-sleep in the background, which
// without the wait never starts (the server's exit comes first: the probe
// then passes), and inject-substitution's last sm-canary (there the
// probe's own looks at the observations, one per form, may also outlast
// the timer). The strict server gives no finding.
func TestLateShell(t *testing.T) {
	t.Parallel()
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{},
		{Flaws: "late-shell", Want: packtest.Want{
			"EXEC-INJECT-SUBSTITUTION": {
				`through $(...),`, `through backticks`, `through $(...) inside double quotes`,
				`run_command(command="sm-echo <(sm-canary {token}-process-subst-line)") ran sm-canary through <(...)`,
			},
			"EXEC-OUTLIVES-SERVER": {
				`a child outlived the server: ["sm-sleep","600"], started by run_command(command="sm-sleep", args=["600 `,
				// the last call's: only the wait after it lets it start
				`by outlives-server (& with its output closed)`,
			},
		}},
	}
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		cfg := config(self, execserver.Verb, "-flaws="+tw.Flaws, "{sandbox}")
		cfg.OnlyProbes = []string{"inject-substitution", "outlives-server"}
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want)
		leftovers(t, r.Dir)
	})
}
