package launch_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

func TestChildSeesExactlySpecEnv(t *testing.T) {
	t.Setenv("SEALMARK_HARNESS_ONLY", "must not leak")
	for _, env := range [][]string{
		{"SEALMARK_A=1", "B=two words", "EMPTY="},
		nil,
	} {
		t.Run(fmt.Sprintf("%d vars", len(env)), func(t *testing.T) {
			dir := t.TempDir()
			p := start(t, "env", launch.Spec{Env: env, Dir: dir})
			readMessages(p).all(t)
			p.Stop(5*time.Second, 5*time.Second)
			var got struct {
				Env []string
				Dir string
			}
			if err := json.Unmarshal(waitFrame(t, p, `"env"`).Data, &got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Env, env) && !(len(env) == 0 && len(got.Env) == 0) {
				t.Errorf("child environment = %q, want exactly %q", got.Env, env)
			}
			wantDir, _ := filepath.EvalSymlinks(dir)
			if gotDir, _ := filepath.EvalSymlinks(got.Dir); gotDir != wantDir {
				t.Errorf("child working directory = %q, want %q", got.Dir, dir)
			}
		})
	}
}

// TestConcurrentWritesNeverInterleave has SDK-style frames and raw probes
// written at once, each larger than a pipe holds, and checks that every line
// the echoing server returns is exactly one of them.
func TestConcurrentWritesNeverInterleave(t *testing.T) {
	p := start(t, "echo", launch.Spec{})
	msgs := readMessages(p)

	pad := func(c byte) string { return strings.Repeat(string(c), 100<<10) }
	want := map[string]launch.FrameKind{}
	var frames, raws []string
	for w := range 4 {
		for i := range 8 {
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d-%d","method":"m","params":{"pad":"%s"}}`, w, i, pad(byte('a'+w)))
			frames = append(frames, line)
			want[line] = launch.JSON
		}
	}
	for w := range 2 {
		for i := range 8 {
			line := fmt.Sprintf("\x00\xff raw %d-%d \"{[ %s", w, i, pad(byte('q'+w)))
			raws = append(raws, line)
			want[line] = launch.Garbage
		}
	}

	var wg sync.WaitGroup
	errs := make(chan error, len(frames)+len(raws))
	for w := range 4 {
		wg.Go(func() {
			for _, line := range frames[w*8 : w*8+8] {
				_, err := p.Input().Write([]byte(line + "\n"))
				errs <- err
			}
		})
	}
	for w := range 2 {
		wg.Go(func() {
			for _, line := range raws[w*8 : w*8+8] {
				errs <- p.WriteRaw([]byte(line + "\n"))
			}
		})
	}
	within(t, "the writers", wg.Wait)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	if err := p.CloseStdin(); err != nil {
		t.Fatal(err)
	}
	lines := msgs.all(t)
	if !p.WaitExit(10 * time.Second) {
		t.Fatal("the echo server did not exit on stdin close")
	}

	got := p.Frames(0)
	if len(got) != len(want) {
		t.Fatalf("got %d frames, want %d", len(got), len(want))
	}
	for _, f := range got {
		kind, ok := want[string(f.Data)]
		if !ok {
			t.Errorf("frame %d (%d bytes) is not one of the lines written: writes interleaved", f.Seq, f.Size)
			continue
		}
		if f.Kind != kind {
			t.Errorf("frame %d is %s, want %s", f.Seq, f.Kind, kind)
		}
		delete(want, string(f.Data))
	}
	if len(lines) != len(frames) {
		t.Errorf("Messages got %d lines, want the %d JSON frames", len(lines), len(frames))
	}
	for _, l := range lines {
		if want := strings.TrimSuffix(l, "\n"); !slices.Contains(frames, want) {
			t.Errorf("Messages line of %d bytes is not one of the JSON frames", len(l))
		}
	}
}
