package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
)

// waysOut are the escape fixture's ways out beyond the network's (its
// -ways), each with the outcome line's name.
var waysOut = []string{
	"harness environ", "harness cmdline", "harness parent environ", "ptrace harness",
	"unix socket", "abstract socket", "chmod", "chown", "utimes", "setxattr", "delete", "rename", "sysv shm", "sethostname",
	"raw socket", "packet socket", "io_uring", "home ssh key", "home npmrc",
}

// waysSetup is what the ways-out runs aim at: a host unix socket, a host
// file whose metadata the server tries to change, a host SysV segment
// holding a secret, and the teller that hears every outcome.
type waysSetup struct {
	sock    *hostSocket
	abs     *hostSocket // an abstract one: private to a network namespace
	tl      *teller
	meta    string
	metaSt  unix.Stat_t
	shmID   int
	secret  string
	harness string // this process's environ, as /proc shows it
	home    string // a fake home standing for the harness user's: its
	canary  string // credential stores hold this
}

func newWaysSetup(t *testing.T) *waysSetup {
	w := &waysSetup{sock: newHostSocket(t, t.TempDir()), abs: newAbstractSocket(t), tl: newTeller(t)}
	w.meta = filepath.Join(t.TempDir(), "meta.txt")
	require.NoError(t, os.WriteFile(w.meta, []byte("host file\n"), 0o600))
	require.NoError(t, unix.Stat(w.meta, &w.metaSt))
	for _, sib := range []string{".delete", ".rename"} {
		require.NoError(t, os.WriteFile(w.meta+sib, []byte("host file\n"), 0o600))
	}
	w.secret = "shm-secret-" + filepath.Base(t.TempDir())
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil) })
	b, err := unix.SysvShmAttach(id, 0, 0)
	require.NoError(t, err)
	copy(b, w.secret+"\x00")
	require.NoError(t, unix.SysvShmDetach(b))
	w.shmID = id
	env, err := os.ReadFile("/proc/self/environ")
	require.NoError(t, err)
	w.harness = string(env)
	// The home is a path argument of its own, so the server sees it
	// (beneath the host's /tmp), and the stores in it are hidden there.
	w.home = filepath.Join(t.TempDir(), "home")
	w.canary = "home-secret-" + filepath.Base(t.TempDir())
	require.NoError(t, os.MkdirAll(filepath.Join(w.home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(w.home, ".ssh", "id_rsa"), []byte(w.canary+"-key\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(w.home, ".npmrc"), []byte("//registry.npmjs.org/:_authToken="+w.canary+"-npm\n"), 0o600))
	return w
}

func (w *waysSetup) run(t *testing.T, off ...string) *report.Report {
	before := escapedTemps()
	t.Cleanup(func() {
		for f := range escapedTemps() {
			if !before[f] {
				os.Remove(f)
			}
		}
	})
	return waysRun(t, func(c *engine.Config) {
		c.Services, c.LayersOff = []string{"tcp:" + w.tl.addr}, off
		engine.SetCredentialHomes(c, []string{w.home})
	},
		// The paths as arguments of their own: a server's path arguments
		// stay visible (read-only) although they are under the host's /tmp.
		"-ways", "-tell="+w.tl.addr, "-unix-socket", w.sock.path, "-abstract", w.abs.path[1:], "-outside-meta", w.meta,
		fmt.Sprintf("-shm-id=%d", w.shmID), fmt.Sprintf("-signal-pid=%d", os.Getpid()), "-home", w.home)
}

// shm returns the segment's text now.
func (w *waysSetup) shm(t *testing.T) string {
	b, err := unix.SysvShmAttach(w.shmID, 0, unix.SHM_RDONLY)
	require.NoError(t, err)
	defer unix.SysvShmDetach(b)
	n := bytes.IndexByte(b, 0)
	return string(b[:max(n, 0)])
}

// escapedTemps are the files the escape fixture's temp writes leave in
// the host's shared temp directories.
func escapedTemps() map[string]bool {
	out := map[string]bool{}
	for _, d := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		m, _ := filepath.Glob(filepath.Join(d, "sealmark-escape-*"))
		for _, f := range m {
			out[f] = true
		}
	}
	return out
}

// outcome is the one outcome line of a way out; the test fails without it.
func (w *waysSetup) outcome(t *testing.T, what string) string {
	t.Helper()
	got := w.tl.lines(what)
	require.Len(t, got, 1, "outcome of %q: %q", what, w.tl.all())
	return got[0]
}

// TestWaysOutContained: a contained server tries every way out the
// hostile-server review found quiet, and more: each is refused. It cannot
// read the harness's (or its parent's) environment or command line, ptrace
// it, reach a host unix socket, change a host file's mode, owner, times or
// extended attributes, delete or rename a host file (each attempt on
// record), read or overwrite a host SysV segment, set the
// hostname, open raw or packet sockets, set up io_uring or read the
// credential stores of the harness user's home (a fake one here); its
// writes to /tmp, /var/tmp and /dev/shm land in private places, never in
// the host's. Nothing it read carries a harness secret.
func TestWaysOutContained(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every way out the hostile-server review found quiet")
	}
	w := newWaysSetup(t)
	rep := w.run(t)
	iso := rep.Sandbox.Isolation
	t.Logf("isolation: %s", iso)
	for _, layer := range []string{"mounts=ro-host+private-tmp+own-proc", "secrets=hidden(", "no-caps", "ipc,uts=own-namespaces", "unix=sandbox-only", "pidns"} {
		require.Contains(t, iso, layer, "this test needs every layer")
	}
	assert.NotContains(t, iso, "credential stores left readable")
	assert.Equal(t, report.Standard, rep.Class, "%v", rep.ClassReasons)
	for _, what := range waysOut {
		line := w.outcome(t, what)
		assert.NotContains(t, line, "succeeded", "a way out held open")
	}
	heard := w.tl.all()
	t.Logf("the server's outcomes:\n%s", heard)
	assert.NotContains(t, heard, w.sock.secret, "the host socket's secret reached the server")
	assert.NotContains(t, heard, w.abs.secret, "the host abstract socket's secret reached the server")
	assert.False(t, w.abs.reached(), "the host abstract socket was reached")
	assert.NotContains(t, heard, w.secret, "the host SysV segment's secret reached the server")
	assert.NotContains(t, heard, w.canary, "a credential of the harness user's home reached the server")
	assert.Contains(t, w.outcome(t, "home ssh key"), "no such file or directory", "the .ssh directory is empty")
	assert.Contains(t, w.outcome(t, "home npmrc"), "read nothing", ".npmrc reads empty")
	b, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.NotContains(t, string(b), w.canary, "a credential reached the report")
	for _, kv := range strings.Split(w.harness, "\x00") {
		if len(kv) > 12 && strings.Contains(kv, "=") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "HOME=") &&
			!strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "USER=") && !strings.HasPrefix(kv, "LOGNAME=") {
			assert.NotContains(t, heard, kv, "the harness's environment reached the server")
		}
	}
	var st unix.Stat_t
	require.NoError(t, unix.Stat(w.meta, &st))
	assert.Equal(t, w.metaSt.Mode, st.Mode, "the host file's mode changed")
	assert.Equal(t, w.metaSt.Uid, st.Uid, "the host file's owner changed")
	assert.Equal(t, w.metaSt.Mtim, st.Mtim, "the host file's times changed")
	_, err = unix.Getxattr(w.meta, "user.sealmark", nil)
	assert.Error(t, err, "the host file got an extended attribute")
	assert.Equal(t, w.secret, w.shm(t), "the host SysV segment was overwritten")
	assert.FileExists(t, w.meta+".delete", "the host file was deleted")
	assert.FileExists(t, w.meta+".rename", "the host file was renamed")
	assert.NoFileExists(t, w.meta+".renamed", "the host file was renamed")
	// (the report names the host file's directory {install}: a path argument's)
	for _, c := range []struct{ op, path, to string }{{"remove", "/meta.txt.delete", ""}, {"rename", "/meta.txt.rename", "/meta.txt.renamed"}} {
		rec := find(probeRecords(rep, "WAYS-OUT"), observers.KindProcess, func(r observers.Record) bool {
			return r.Data["op"] == c.op && strings.HasSuffix(r.Data["path"], c.path) && strings.HasSuffix(r.Data["to"], c.to)
		})
		if assert.NotNil(t, rec, "the %s outside is not on record", c.op) {
			assert.Equal(t, "continue", rec.Data["verdict"], "recorded, and refused by the layers, not by the observer")
		}
	}
	for f := range escapedTemps() {
		assert.Fail(t, "a write landed in the host's temp directory", f)
	}
	for _, dir := range []string{"/tmp", "/var/tmp"} {
		assert.Contains(t, w.outcome(t, "write "+dir), "succeeded", "a hard-coded %s path works, privately", dir)
	}
	r := find(probeRecords(rep, "WAYS-OUT"), observers.KindSocket, func(r observers.Record) bool {
		return r.Data["family"] == "unix" && strings.HasSuffix(r.Data["addr"], "/host.sock")
	})
	require.NotNil(t, r, "the host socket's connect is not on record")
	assert.Equal(t, "deny", r.Data["verdict"])
}

// TestWaysOutUncontained is the same server with the layers off: the ways
// out the contained run refused open, which proves the fixture tries each
// one. Those that need root (sethostname, a raw socket, another owner)
// are checked as root only.
func TestWaysOutUncontained(t *testing.T) {
	w := newWaysSetup(t)
	rep := w.run(t, "landlock", "seccomp", "namespaces")
	assert.Equal(t, report.Custom, rep.Class)
	root := os.Geteuid() == 0
	for _, what := range []string{"harness environ", "harness cmdline", "unix socket", "abstract socket", "chmod", "chown", "utimes", "delete", "rename", "sysv shm", "home ssh key", "home npmrc"} {
		assert.Contains(t, w.outcome(t, what), "succeeded", "the uncontained server's %s", what)
	}
	if root {
		// (as nobody, the harness's parent is root's: not readable anyway)
		for _, what := range []string{"harness parent environ", "sethostname", "raw socket", "packet socket", "ptrace harness"} {
			assert.Contains(t, w.outcome(t, what), "succeeded", "the uncontained server's %s", what)
		}
	}
	heard := w.tl.all()
	assert.Contains(t, heard, w.sock.secret)
	assert.Contains(t, heard, w.abs.secret)
	assert.Contains(t, heard, w.secret)
	assert.Contains(t, heard, w.canary+"-key")
	assert.Contains(t, heard, w.canary+"-npm")
	assert.Contains(t, rep.Sandbox.Isolation, "secrets=none(off by config)")
	assert.Contains(t, rep.Sandbox.Isolation, "the harness user's credential stores readable (secrets: off by config)")
	assert.NotEqual(t, w.secret, w.shm(t), "the uncontained server did not overwrite the segment")
	var st unix.Stat_t
	require.NoError(t, unix.Stat(w.meta, &st))
	assert.NotEqual(t, w.metaSt.Mode, st.Mode, "the uncontained server did not chmod the host file")
	assert.NoFileExists(t, w.meta+".delete", "the uncontained server did not delete the host file")
	assert.FileExists(t, w.meta+".renamed", "the uncontained server did not rename the host file")
	assert.NotEmpty(t, escapedTemps(), "the uncontained server's /tmp write did not land in the host's /tmp")
}

// newAbstractSocket listens on an abstract unix socket ("@sealmark-...")
// in the harness's network namespace.
func newAbstractSocket(t *testing.T) *hostSocket {
	name := "@sealmark-abstract-" + filepath.Base(t.TempDir())
	h := &hostSocket{path: name, secret: "abstract-secret-" + filepath.Base(t.TempDir()), arrived: make(chan struct{}, 1)}
	h.serve(t, "unix", name)
	return h
}
