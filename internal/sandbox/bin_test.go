package sandbox

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
)

// TestBinProgramsRun starts bin/sm-* the way a server would: by name through
// PATH, with the sandbox root as the working directory.
func TestBinProgramsRun(t *testing.T) {
	s := newSandbox(t, Options{})
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
