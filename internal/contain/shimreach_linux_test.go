package contain_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/contain"
)

func init() {
	// reach tries what a hostile server would against its namespace's
	// pid 1, the resident shim that holds the seccomp report, the
	// lifeline and the status pipe: trace it, read its memory through
	// process_vm_readv and through /proc/1/mem. It prints each error, its
	// own pid and whether it is dumpable itself, then stays until killed.
	children["reach"] = func([]string) int {
		r := result{"pid": os.Getpid()}
		r["ptrace"] = errText(unix.PtraceSeize(1))
		addr := uintptr(0x10000) // any address: permission is checked first
		if f, err := os.Open("/proc/1/maps"); err == nil {
			line, _ := bufio.NewReader(f).ReadString('-')
			f.Close()
			if a, err := strconv.ParseUint(strings.TrimSuffix(line, "-"), 16, 64); err == nil {
				addr = uintptr(a)
			}
		}
		buf := make([]byte, 16)
		_, err := unix.ProcessVMReadv(1, []unix.Iovec{{Base: &buf[0], Len: 16}}, []unix.RemoteIovec{{Base: addr, Len: 16}}, 0)
		r["vmread"] = errText(err)
		f, err := os.Open("/proc/1/mem")
		if err == nil {
			f.Close()
		}
		r["mem"] = errText(err)
		d, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
		r["dumpable"], r["dumpableErr"] = d, errText(err)
		emit(r)
		time.Sleep(time.Minute)
		return 0
	}
}

// TestServerCannotReachTheShim: a contained server may neither trace the
// resident shim (its namespace's pid 1) nor read its memory, on whichever
// thread the shim runs; the server itself stays dumpable, and the harness
// still reads its /proc (the process observer's environ, cmdline).
func TestServerCannotReachTheShim(t *testing.T) {
	needLayer(t, "netns")
	for _, env := range [][]string{nil, {contain.OffMainEnv + "=1"}} {
		spec := childSpec(t, "reach")
		marker := spec.Env[len(spec.Env)-1]
		spec.Env = append(env, spec.Env...)
		_, r := start(t, wrap(t, spec, contain.Options{NetNS: true}))
		assert.NotEqual(t, 1.0, r["pid"], "the server is not its namespace's pid 1 (%v)", env)
		assert.Equal(t, "operation not permitted", r.str("ptrace"), "PTRACE_SEIZE of the shim (%v)", env)
		assert.Equal(t, "operation not permitted", r.str("vmread"), "process_vm_readv of the shim (%v)", env)
		assert.Equal(t, "permission denied", r.str("mem"), "open /proc/1/mem (%v)", env)
		assert.Equal(t, 1.0, r["dumpable"], "the server itself is dumpable (%v): %s", env, r.str("dumpableErr"))

		// The harness reads every process of the tree, the server's
		// environ included.
		var server int
		require.Eventually(t, func() bool {
			for _, pid := range marked(marker) {
				b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				argv := strings.Split(string(b), "\x00")
				if !contain.IsShim(argv) && strings.Contains(string(b), "reach") {
					server = pid
					return true
				}
			}
			return false
		}, 5*time.Second, 10*time.Millisecond, "the server's environ is readable by the harness (%v)", env)
		_, err := os.ReadFile("/proc/" + strconv.Itoa(server) + "/environ")
		assert.NoError(t, err)
		_ = syscall.Kill(server, syscall.SIGKILL)
	}
}
