package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
)

// TestBinProgramsRun starts bin/sm-* the way a server would: by name through
// PATH, with the sandbox root as the working directory; through the helper
// and through links to the harness (smbin.HelperEnv=off).
func TestBinProgramsRun(t *testing.T) {
	for _, mode := range []string{"on", "off"} {
		t.Run("helper "+mode, func(t *testing.T) {
			t.Setenv(smbin.HelperEnv, mode)
			binProgramsRun(t, newSandbox(t, Options{}))
		})
	}
}

func binProgramsRun(t *testing.T, s *Sandbox) {
	tests := []struct {
		prog string
		args []string
		want string
	}{
		{"sm-canary", []string{"tok-1"}, smbin.CanaryMarker + " tok-1\n"},
		{"sm-echo", []string{"a b", "c"}, `["a b","c"]` + "\n"},
		{"sm-spew", []string{"4"}, "xxxx"},
		{"sm-sleep", []string{"0"}, ""},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, filepath.Join(s.Bin, tt.prog), tt.args...)
		cmd.Args[0] = tt.prog // as a shell would pass it after a PATH search
		cmd.Dir = s.Root
		cmd.Env = []string{"PATH=" + s.Bin}
		cmd.WaitDelay = time.Second
		out, err := cmd.Output()
		cancel()
		if err != nil || string(out) != tt.want {
			t.Errorf("%s %q = %q, %v; want %q", tt.prog, tt.args, out, err, tt.want)
		}
	}
	execs, skipped, err := smbin.ReadExecLog(s.Bin)
	if err != nil || skipped != 0 || len(execs) != len(tests) {
		t.Fatalf("exec log: %d runs, %d skipped, %v; want %d runs", len(execs), skipped, err, len(tests))
	}
	for i, e := range execs {
		if e.Prog != tests[i].prog || e.Cwd != s.Root || !slices.Equal(e.Argv[1:], tests[i].args) {
			t.Errorf("exec log line %d = %s %q in %s, want %s %q in %s", i, e.Prog, e.Argv, e.Cwd, tests[i].prog, tests[i].args, s.Root)
		}
	}
}

// binNames lists bin's entries but the exec log.
func binNames(t *testing.T, s *Sandbox) []string {
	t.Helper()
	entries, err := os.ReadDir(s.Bin)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != smbin.ExecLog {
			names = append(names, e.Name())
		}
	}
	return names
}

// TestNewBinLinksToTheHelper: bin holds a copy of the sm-* helper, owner
// only, and relative links to it, and nothing is noted.
func TestNewBinLinksToTheHelper(t *testing.T) {
	t.Setenv(smbin.HelperEnv, "on")
	s := newSandbox(t, Options{})
	want := append([]string{smbin.HelperName}, smbin.Names...)
	if got := binNames(t, s); !slices.Equal(got, want) {
		t.Fatalf("bin holds %q, want %q (notes %q)", got, want, s.Notes)
	}
	fi, err := os.Lstat(filepath.Join(s.Bin, smbin.HelperName))
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o700 {
		t.Errorf("bin/%s: %v %v, want a regular file of mode 0700", smbin.HelperName, fi, err)
	}
	for _, n := range smbin.Names {
		if got, err := os.Readlink(filepath.Join(s.Bin, n)); err != nil || got != smbin.HelperName {
			t.Errorf("bin/%s -> %q (%v), want a link to %s", n, got, err, smbin.HelperName)
		}
	}
	if len(s.Notes) != 0 {
		t.Errorf("notes %q, want none", s.Notes)
	}
	if !strings.Contains(s.guide("fs", "/h"), "bin/"+smbin.HelperName) {
		t.Error("the fixture guide does not name the helper")
	}
}

// TestNewBinFallsBackToTheHarness: with the helper off, bin/sm-* link to
// the harness (Options.Harness, else this executable) and a note says why.
func TestNewBinFallsBackToTheHarness(t *testing.T) {
	t.Setenv(smbin.HelperEnv, "off")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Options{})
	if got := binNames(t, s); !slices.Equal(got, smbin.Names) {
		t.Errorf("bin holds %q, want %q", got, smbin.Names)
	}
	for _, n := range smbin.Names {
		if got, err := os.Readlink(filepath.Join(s.Bin, n)); err != nil || got != exe {
			t.Errorf("bin/%s -> %q (%v), want a link to %s", n, got, err, exe)
		}
	}
	wantNote(t, s, smbin.HelperEnv+"=off")

	other := filepath.Join(t.TempDir(), "harness")
	if err := os.WriteFile(other, []byte("x"), 0o700); err != nil {
		t.Fatal(err)
	}
	s = newSandbox(t, Options{Harness: other})
	if got, _ := os.Readlink(filepath.Join(s.Bin, "sm-echo")); got != other {
		t.Errorf("with Options.Harness, bin/sm-echo -> %q, want %s", got, other)
	}
}

// wantNote wants one note on bin/sm-* that says why, with want in it.
func wantNote(t *testing.T, s *Sandbox, want string) {
	t.Helper()
	for _, n := range s.Notes {
		if strings.HasPrefix(n, "bin/sm-*: links to the harness binary") && strings.Contains(n, want) {
			return
		}
	}
	t.Errorf("notes %q, want one on bin/sm-* saying %q", s.Notes, want)
}

// noGoEnv, set, makes TestNewBinWithoutGo's child run.
const noGoEnv = "SANDBOX_TEST_NO_GO"

// TestNewBinWithoutGo: a harness with no go command on PATH and nothing
// in its cache links bin/sm-* to itself, notes why, and the programs run.
// It runs in a child of this test binary, whose helper cache is fresh.
func TestNewBinWithoutGo(t *testing.T) {
	if os.Getenv(noGoEnv) != "" {
		if _, err := exec.LookPath("go"); err == nil {
			t.Fatal("go is on the child's PATH")
		}
		s := newSandbox(t, Options{})
		wantNote(t, s, "no go command on PATH")
		if slices.Contains(binNames(t, s), smbin.HelperName) {
			t.Errorf("bin holds %s without a go command", smbin.HelperName)
		}
		binProgramsRun(t, s)
		return
	}
	if testing.Short() {
		t.Skip("starts a child test binary")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^TestNewBinWithoutGo$", "-test.count=1", "-test.v")
	cmd.Env = []string{noGoEnv + "=1", "PATH=" + t.TempDir(), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "TMPDIR=" + os.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestNewBinWithoutGo") {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, "cache", "sealmark")); err == nil {
		t.Error("the child made a cache directory without a go command")
	}
}
