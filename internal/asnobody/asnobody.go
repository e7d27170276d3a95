//go:build unix

// Package asnobody runs a test binary's own tests again as an unprivileged
// user, uid and gid 65534, as a harness started by a normal user runs them:
// what a layer does without root (user namespaces, no cgroup) is then
// tested on every root CI run too.
//
//	func TestUnprivileged(t *testing.T) {
//		asnobody.Rerun(t, "^(TestLandlock.*|TestNetNS.*)$", time.Minute)
//	}
package asnobody

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Nobody is the uid and gid the tests run again as.
const Nobody = 65534

// Rerun copies the running test binary where uid Nobody can run it, runs
// the tests matching pattern in it as that user (with a temp directory,
// HOME and working directory of their own, PATH=/usr/bin:/bin), logs their
// output and fails t if they fail or outlast timeout. It skips when the
// caller is not root, who alone can switch users.
func Rerun(t *testing.T, pattern string, timeout time.Duration) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("switching to an unprivileged user needs root (this run is unprivileged already)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // t.TempDir's directories are 0700
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, filepath.Base(exe))
	if err := copyExecutable(exe, bin); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.v", "-test.run="+pattern)
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}, Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", Nobody, out)
	if err != nil {
		t.Fatalf("the tests failed as uid %d: %v", Nobody, err)
	}
}

func copyExecutable(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
