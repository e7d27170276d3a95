package contain_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// nobody is the unprivileged user the tests run again as.
const nobody = 65534

// TestUnprivileged runs the layer tests again as uid 65534, as a harness
// run by a normal user would: user namespaces instead of root's pid
// namespace, Landlock and rlimits as before.
func TestUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching to an unprivileged user needs root (this run is unprivileged already)")
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		require.NoError(t, os.Chmod(d, 0o755)) // t.TempDir's directories are 0700
	}
	bin := filepath.Join(dir, "contain.test")
	copyFile(t, exe, bin)
	tmp := filepath.Join(dir, "tmp")
	require.NoError(t, os.Mkdir(tmp, 0o777))
	require.NoError(t, os.Chmod(tmp, 0o777))

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.count=1", "-test.v",
		"-test.run=^(TestProbe|TestWrapRunsExactly|TestLandlock.*|TestFileSizeCap|TestNetNS.*|TestPdeathsig.*|TestSweepStale|TestShimFailsClosed|TestEgress.*|TestCgroup.*)$")
	cmd.Dir = tmp
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}, Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	t.Logf("as uid %d:\n%s", nobody, out)
	require.NoError(t, err)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
