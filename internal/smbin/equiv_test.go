package smbin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// harnessBin makes a bin directory whose sm-* entries link to this test
// binary, which dispatches in TestMain as the harness binary does.
func harnessBin(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range Names {
		if err := os.Symlink(exe, filepath.Join(dir, n+exeSuffix)); err != nil {
			t.Skipf("cannot make a symlink here: %v", err)
		}
	}
	return dir
}

// outcome is what one run of a program shows: its output, status and the
// exec log's line for it, without what differs from run to run (pid, ppid,
// time) and with argv[0] as given relative to the bin directory.
type outcome struct {
	Stdout, Stderr string
	Code           int
	Log            []Exec
}

// runIn runs prog with args from bin, argv[0] as given (a bare name is
// found through PATH), in cwd, and returns what it showed.
func runIn(t *testing.T, bin, cwd, argv0, prog string, args []string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, prog), args...)
	cmd.Args[0] = strings.ReplaceAll(argv0, "{bin}", bin)
	cmd.Dir = cwd
	cmd.Env = []string{"PATH=" + bin}
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	o := outcome{Stdout: stdout.String(), Stderr: stderr.String()}
	switch {
	case errors.As(err, &ee) && ee.Exited():
		o.Code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %q: %v", prog, args, err)
	}
	o.Log = takeLog(t, bin)
	return o
}

// takeLog reads bin's exec log, removes it, and blanks what differs from
// run to run; argv[0] is shown with bin as {bin}.
func takeLog(t *testing.T, bin string) []Exec {
	t.Helper()
	execs, skipped, err := ReadExecLog(bin)
	if err != nil || skipped != 0 {
		t.Fatalf("exec log: %d skipped, %v", skipped, err)
	}
	_ = os.Remove(filepath.Join(bin, ExecLog))
	for i := range execs {
		execs[i].PID, execs[i].PPID, execs[i].Time = 0, 0, time.Time{}
		if len(execs[i].Argv) > 0 {
			execs[i].Argv[0] = strings.ReplaceAll(execs[i].Argv[0], bin, "{bin}")
		}
	}
	return execs
}

// equivCases are the runs TestRun and TestDispatch make, and the edges of
// each program's arguments.
var equivCases = []struct {
	argv0 string // "{bin}/prog" by path, "prog" through PATH
	prog  string
	args  []string
}{
	{"", "sm-canary", nil},
	{"", "sm-canary", []string{"tok-1", "a b"}},
	{"sm-canary", "sm-canary", []string{"tok-8"}},
	{"", "sm-echo", nil},
	{"", "sm-echo", []string{"a b", "$(id)", "--x=1"}},
	{"", "sm-echo", []string{"a b", "; sm-canary", "$HOME"}},
	{"", "sm-echo", []string{"<a>&", "q\"\n", "\xff", "é"}},
	{"sm-echo", "sm-echo", []string{"found", "in PATH"}},
	{"", "sm-sleep", []string{"0"}},
	{"", "sm-sleep", []string{"0.001"}},
	{"", "sm-sleep", nil},
	{"", "sm-sleep", []string{"1", "2"}},
	{"", "sm-sleep", []string{"soon"}},
	{"", "sm-sleep", []string{"-1"}},
	{"", "sm-sleep", []string{"NaN"}},
	{"", "sm-sleep", []string{"+Inf"}},
	{"", "sm-sleep", []string{"1e12"}},
	{"", "sm-spew", []string{"0"}},
	{"", "sm-spew", []string{"5"}},
	{"", "sm-spew", []string{"200000"}},
	{"", "sm-spew", nil},
	{"", "sm-spew", []string{"-1"}},
	{"", "sm-spew", []string{"1.5"}},
	{"", "sm-spew", []string{"17179869185"}},
}

// TestHelperBehavesAsTheHarness runs every program with the same
// arguments through the helper and through the harness's re-exec, and
// wants the same output, status and exec log line from both, and the
// output and status of the in-process Run.
func TestHelperBehavesAsTheHarness(t *testing.T) {
	helper, harness := installed(t), harnessBin(t)
	cwd := t.TempDir()
	for _, c := range equivCases {
		argv0 := c.argv0
		if argv0 == "" {
			argv0 = "{bin}/" + c.prog
		}
		h := runIn(t, helper, cwd, argv0, c.prog, c.args)
		r := runIn(t, harness, cwd, argv0, c.prog, c.args)
		if !reflect.DeepEqual(h, r) {
			t.Errorf("%s %q:\nhelper  %+v\nharness %+v", c.prog, c.args, h, r)
		}
		var stdout, stderr bytes.Buffer
		code := Run(c.prog, c.args, &stdout, &stderr)
		if code != h.Code || stdout.String() != h.Stdout || stderr.String() != h.Stderr {
			t.Errorf("%s %q: in process %d %q %q, helper %d %q %q", c.prog, c.args, code, stdout.String(), stderr.String(), h.Code, h.Stdout, h.Stderr)
		}
		argv := []string{argv0}
		for _, a := range c.args {
			argv = append(argv, strings.ToValidUTF8(a, "\uFFFD")) // as JSON writes it
		}
		want := []Exec{{Prog: c.prog, Argv: argv, Cwd: cwd}}
		if !reflect.DeepEqual(h.Log, want) {
			t.Errorf("%s %q: helper logged %+v, want %+v", c.prog, c.args, h.Log, want)
		}
	}
}

// TestHelperSleepsAndStopsAsTheHarness: sm-sleep sleeps as long in both;
// sm-spew whose reader leaves stops quietly with status 0 in both; both
// do their job when the log cannot be written.
func TestHelperSleepsAndStopsAsTheHarness(t *testing.T) {
	for name, bin := range map[string]string{"helper": installed(t), "harness": harnessBin(t)} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			if o := runIn(t, bin, bin, "sm-sleep", "sm-sleep", []string{"0.3"}); o.Code != 0 || time.Since(start) < 300*time.Millisecond {
				t.Errorf("sm-sleep 0.3: status %d after %v", o.Code, time.Since(start))
			}

			SpewStopsQuietly(t, bin)

			_ = os.Remove(filepath.Join(bin, ExecLog))
			if err := os.Mkdir(filepath.Join(bin, ExecLog), 0o700); err != nil {
				t.Fatal(err)
			}
			defer os.Remove(filepath.Join(bin, ExecLog))
			echo := exec.Command(filepath.Join(bin, "sm-echo"), "still")
			if got, err := echo.Output(); err != nil || string(got) != `["still"]`+"\n" {
				t.Errorf("sm-echo with an unwritable log = %q, %v", got, err)
			}
		})
	}
}

// SpewStopsQuietly starts bin's sm-spew with more output than it could
// ever write, reads a little, leaves, and wants status 0 and nothing on
// stderr: the broken pipe ends it quietly. (Exported for the package's
// external tests, which run the same check on the harness's links.)
func SpewStopsQuietly(t *testing.T, bin string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "sm-spew"), "17179869184")
	cmd.Env = []string{"PATH=" + bin}
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(out, make([]byte, 1000)); err != nil {
		t.Fatalf("read the first bytes: %v", err)
	}
	out.Close()
	if err := cmd.Wait(); err != nil || stderr.Len() != 0 {
		t.Errorf("sm-spew after its reader left: %v, stderr %q; want status 0 and nothing", err, stderr.String())
	}
}
