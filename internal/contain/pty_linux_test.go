package contain_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/contain"
)

func init() {
	// pty opens a pseudo-terminal pair as forkpty does (open /dev/ptmx,
	// unlockpt, ptsname, open the slave), writes a line through the slave
	// and reads it from the master, lists /dev/pts, and, when script(1) is
	// there, runs a command on a terminal of its own through it.
	children["pty"] = func([]string) int {
		r := result{}
		master, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			r["err"] = "open /dev/ptmx: " + errText(err)
			return emit(r)
		}
		defer unix.Close(master)
		if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
			r["err"] = "unlockpt: " + errText(err)
			return emit(r)
		}
		n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
		if err != nil {
			r["err"] = "ptsname: " + errText(err)
			return emit(r)
		}
		slave, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
		if err != nil {
			r["err"] = "open the slave: " + errText(err)
			return emit(r)
		}
		defer slave.Close()
		if _, err := slave.WriteString("through the pty\n"); err != nil {
			r["err"] = "write: " + errText(err)
			return emit(r)
		}
		buf := make([]byte, 64)
		k, err := unix.Read(master, buf)
		if err != nil {
			r["err"] = "read: " + errText(err)
			return emit(r)
		}
		r["read"] = string(buf[:max(k, 0)])
		entries, _ := os.ReadDir("/dev/pts")
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		r["pts"], r["n"] = names, n
		if script, err := exec.LookPath("script"); err == nil {
			out, err := exec.Command(script, "-qec", "tty", "/dev/null").CombinedOutput()
			r["script"], r["script_err"] = string(out), errText(err)
		}
		return emit(r)
	}
}

// TestPTYContained: a server in the mount namespace opens a
// pseudo-terminal through the namespace's own devpts (Landlock lets it
// write there and nowhere else but the sandbox), sees no terminal of the
// host's in /dev/pts, and script(1), which runs a command on a pty of its
// own as forkpty does, works; the isolation line says "+own-pts".
func TestPTYContained(t *testing.T) {
	needLayer(t, "mountns")
	top := t.TempDir()
	o := contain.Options{SandboxTop: top, SandboxTmp: filepath.Join(top, "tmp"), NetNS: true, Landlock: true}
	require.NoError(t, os.Mkdir(o.SandboxTmp, 0o700))
	spec := childSpec(t, "pty")
	spec.Dir = top // the server runs in the sandbox
	line := contain.Probe().ForServer(o, spec).Line()
	t.Logf("isolation: %s", line)
	assert.Contains(t, line, "mounts=ro-host+private-tmp+own-proc+own-pts")

	r, code, stderr := run(t, wrap(t, spec, o))
	require.Equal(t, 0, code, "stderr: %s", stderr)
	require.Empty(t, r.str("err"))
	assert.Contains(t, r.str("read"), "through the pty")
	assert.ElementsMatch(t, []any{"ptmx", strconv.Itoa(int(r["n"].(float64)))}, r["pts"], "only the server's own pty is in its /dev/pts")
	if _, ok := r["script"]; ok {
		assert.Empty(t, r.str("script_err"), "script -qec tty: %s", r.str("script"))
		assert.Regexp(t, `^/dev/pts/[0-9]+\s*$`, r.str("script"), "the command ran on a pty of its own")
	}
}
