package smbin_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
)

// TestMain lets this test binary act as the sm-* programs, as the harness does.
func TestMain(m *testing.M) {
	smbin.Dispatch()
	os.Exit(m.Run())
}

// linkBin makes a bin directory whose sm-* entries link to this test binary.
func linkBin(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range smbin.Names {
		if err := os.Symlink(exe, filepath.Join(dir, n)); err != nil {
			t.Skipf("cannot make a symlink here: %v", err)
		}
	}
	return dir
}

// command starts like exec.CommandContext, with a deadline and a bounded wait.
func command(t *testing.T, path string, args ...string) *exec.Cmd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.WaitDelay = 2 * time.Second
	cmd.Env = []string{"PATH=" + filepath.Dir(path)}
	return cmd
}

func TestDispatch(t *testing.T) {
	bin := linkBin(t)
	tests := []struct {
		name       string
		argv0      string // "" = the full path
		prog       string
		args       []string
		wantCode   int
		wantStdout string
	}{
		{"echo by path", "", "sm-echo", []string{"a b", "; sm-canary", "$HOME"}, 0, `["a b","; sm-canary","$HOME"]` + "\n"},
		{"canary by path", "", "sm-canary", []string{"tok-7"}, 0, "SEALMARK-CANARY-EXECUTED tok-7\n"},
		{"canary found in PATH", "sm-canary", "sm-canary", []string{"tok-8"}, 0, "SEALMARK-CANARY-EXECUTED tok-8\n"},
		{"spew", "", "sm-spew", []string{"3"}, 0, "xxx"},
		{"sleep", "", "sm-sleep", []string{"0"}, 0, ""},
		{"sleep usage", "", "sm-sleep", nil, 2, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := command(t, filepath.Join(bin, tt.prog), tt.args...)
			if tt.argv0 != "" {
				cmd.Args[0] = tt.argv0
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := exitCode(t, err); code != tt.wantCode {
				t.Errorf("exit status = %d, want %d (stderr %q)", code, tt.wantCode, stderr.String())
			}
			if got := stdout.String(); got != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", got, tt.wantStdout)
			}

			execs, skipped, err := smbin.ReadExecLog(bin)
			if err != nil || skipped != 0 {
				t.Fatalf("ReadExecLog = %d skipped, %v", skipped, err)
			}
			if len(execs) != i+1 {
				t.Fatalf("exec log holds %d runs after %d runs", len(execs), i+1)
			}
			last := execs[i]
			wantArgv := append([]string{cmd.Args[0]}, tt.args...)
			if last.Prog != tt.prog || !reflect.DeepEqual(last.Argv, wantArgv) {
				t.Errorf("logged %s %q, want %s %q", last.Prog, last.Argv, tt.prog, wantArgv)
			}
			if last.PID != cmd.Process.Pid || last.PPID != os.Getpid() {
				t.Errorf("logged pid %d ppid %d, want %d and %d", last.PID, last.PPID, cmd.Process.Pid, os.Getpid())
			}
		})
	}
}

func TestDispatchDoesItsJobWhenTheLogCannotBeWritten(t *testing.T) {
	bin := linkBin(t)
	if err := os.Mkdir(filepath.Join(bin, smbin.ExecLog), 0o700); err != nil {
		t.Fatal(err)
	}
	out, err := command(t, filepath.Join(bin, "sm-echo"), "still").Output()
	if err != nil || string(out) != `["still"]`+"\n" {
		t.Errorf("sm-echo with an unwritable log = %q, %v; want [\"still\"], nil", out, err)
	}
}

func TestDispatchSpewStopsQuietlyWhenTheReaderLeaves(t *testing.T) {
	smbin.SpewStopsQuietly(t, linkBin(t))
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode()
	}
	t.Fatalf("run: %v", err)
	return -1
}
