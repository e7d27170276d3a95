package launch_test

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

// start runs the test binary as the fake server mode, with spec's other
// fields as given, and stops it when the test ends.
func start(t *testing.T, mode string, spec launch.Spec) *launch.Process {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec.Path = exe
	spec.Args = []string{childArg, mode}
	p, err := launch.Start(spec)
	if err != nil {
		t.Fatalf("Start(%s): %v", mode, err)
	}
	t.Cleanup(func() {
		p.Stop(0, 0)
		select {
		case <-p.Done():
		default:
			t.Errorf("%s: the server was not reaped by Stop", mode)
		}
	})
	return p
}

// messages reads p.Messages() to the end in the background.
type messages struct {
	mu    sync.Mutex
	lines []string
	err   error
	done  chan struct{}
}

func readMessages(p *launch.Process) *messages {
	m := &messages{done: make(chan struct{})}
	go func() {
		defer close(m.done)
		r := bufio.NewReader(p.Messages())
		for {
			line, err := r.ReadString('\n')
			m.mu.Lock()
			if line != "" {
				m.lines = append(m.lines, line)
			}
			if err != nil {
				if err != io.EOF {
					m.err = err
				}
				m.mu.Unlock()
				return
			}
			m.mu.Unlock()
		}
	}()
	return m
}

// all waits for the end of Messages and returns every line read.
func (m *messages) all(t *testing.T) []string {
	t.Helper()
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
		t.Fatal("Messages did not reach EOF")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		t.Errorf("reading Messages: %v", m.err)
	}
	return m.lines
}

// waitFrame waits for a frame whose data contains substr.
func waitFrame(t *testing.T, p *launch.Process, substr string) launch.Frame {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, f := range p.Frames(0) {
			if strings.Contains(string(f.Data), substr) {
				return f
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no frame containing %q within 10s", substr)
	return launch.Frame{}
}

// within runs f and fails the test if it does not return in 10 seconds.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return within 10s", what)
	}
}

// running reports whether pid is a live process (a zombie is dead).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	state := s[i+2]
	return state != 'Z' && state != 'X'
}
