package launch_test

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

// TestOursUntilReaped: a started process is known as the harness's own
// until it is reaped, so observers never take it for an adopted orphan.
func TestOursUntilReaped(t *testing.T) {
	p := start(t, "echo", launch.Spec{})
	if !launch.Ours(p.Pid()) {
		t.Fatalf("pid %d: Ours = false while it runs", p.Pid())
	}
	p.Stop(time.Second, time.Second)
	if launch.Ours(p.Pid()) {
		t.Errorf("pid %d: Ours = true after it was reaped", p.Pid())
	}
}

// TestNoUnknownChildWhileStarting: a child of the harness in its own
// process group that /proc shows is always known to Ours, or a Start is in
// flight (Starting) when it is looked up. Observers read /proc first and
// ask afterwards; between the fork and Start's bookkeeping a concurrent
// observer once took another run's server for an adopted orphan and swept
// it.
func TestNoUnknownChildWhileStarting(t *testing.T) {
	self := os.Getpid()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; i < 40; i++ {
			start(t, "echo", launch.Spec{}).Stop(0, 0)
		}
		close(stop)
	})
	unknown := 0
	for {
		select {
		case <-stop:
			wg.Wait()
			if unknown > 0 {
				t.Errorf("%d times a child started by Start was in /proc while neither Ours nor Starting said so", unknown)
			}
			return
		default:
		}
		for _, pid := range ownGroupChildren(t, self) {
			if !launch.Ours(pid) && !launch.Starting() && alive(pid) {
				unknown++
			}
		}
	}
}

// ownGroupChildren returns the children of pid that lead their own process
// group, as /proc shows them now.
func ownGroupChildren(t *testing.T, pid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		if f[1] == strconv.Itoa(pid) && f[2] == e.Name() {
			out = append(out, n)
		}
	}
	return out
}

// alive reports whether pid is still a running (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
