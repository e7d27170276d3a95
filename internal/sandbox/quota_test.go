package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/asnobody"
	"github.com/sealmark/sealmark/internal/quota"
)

// mountedIn reports whether dir is a mount point of this mount namespace.
func mountedIn(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Skipf("no mountinfo: %v", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// quotaSandbox makes a sandbox with a quota of mib MiB, or skips saying why
// this machine gives none.
func quotaSandbox(t *testing.T, opts Options, mib int64) *Sandbox {
	t.Helper()
	opts.MaxBytes = mib << 20
	s := newSandbox(t, opts)
	if s.Quota == 0 {
		if os.Geteuid() == 0 {
			t.Fatalf("a root harness got no quota: %s", s.QuotaWhy)
		}
		t.Skipf("no quota here: %s", s.QuotaWhy)
	}
	return s
}

// TestQuotaRefusesTheWritePastIt: with MaxBytes the sandbox is a
// filesystem of that size, so the write that would pass it fails with
// ENOSPC, wherever under the sandbox it lands; Remove leaves no mount and
// no directory.
func TestQuotaRefusesTheWritePastIt(t *testing.T) {
	s := quotaSandbox(t, Options{}, 4)
	if !mountedIn(t, s.Top) {
		t.Fatal("the sandbox top is not a mount point")
	}
	chunk := make([]byte, 1<<20)
	f, err := os.Create(filepath.Join(s.Tmp, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	var wrote int64
	for range 8 {
		n, err := f.Write(chunk)
		wrote += int64(n)
		if err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("write failed with %v, want ENOSPC", err)
			}
			break
		}
	}
	f.Close()
	if wrote >= 4<<20 {
		t.Fatalf("wrote %d bytes into a 4 MiB sandbox", wrote)
	}
	if err := s.Remove(); err != nil {
		t.Fatal(err)
	}
	if mountedIn(t, s.Top) {
		t.Error("the quota is still mounted after Remove")
	}
	if _, err := os.Lstat(s.Top); !os.IsNotExist(err) {
		t.Errorf("the sandbox is still there: %v", err)
	}
}

// TestWithoutMaxBytesNoQuota: no limit asked for, no filesystem mounted
// and no reason given.
func TestWithoutMaxBytesNoQuota(t *testing.T) {
	s := newSandbox(t, Options{})
	if s.Quota != 0 || s.QuotaWhy != "" || quota.Mounted(s.Top) {
		t.Errorf("Quota %d, QuotaWhy %q, mounted %v", s.Quota, s.QuotaWhy, quota.Mounted(s.Top))
	}
}

// TestQuotaTooSmallForTheLayout: a limit the sandbox's own files do not
// fit in is an error naming the limit, and nothing is left.
func TestQuotaTooSmallForTheLayout(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a quota needs a root harness")
	}
	parent := t.TempDir()
	// One page: ok.txt fits, the canary files do not.
	s, err := New(Options{Parent: parent, MaxBytes: 4 << 10})
	if err == nil {
		_ = s.Remove()
		t.Fatal("a 4 KiB sandbox was made")
	}
	if !strings.Contains(err.Error(), "too small for its own files") {
		t.Errorf("error does not name the limit: %v", err)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("left %d entries in the parent", len(entries))
	}
}

// TestKeptLeavesTheQuota: a kept sandbox's files move onto the parent's
// filesystem at the same path, with their modes, links and times, and no
// mount is left.
func TestKeptLeavesTheQuota(t *testing.T) {
	parent := t.TempDir()
	s := quotaSandbox(t, Options{Parent: parent, Keep: true}, 8)
	deep := filepath.Join(s.Root, "made", "by")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "server.txt"), []byte("written"), 0o640); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(deep, "server.txt"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(s.Root, "made"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := s.Kept(); err != nil {
		t.Fatal(err)
	}
	if mountedIn(t, s.Top) || quota.Mounted(s.Top) {
		t.Fatal("still mounted after Kept")
	}
	fi, err := os.Stat(filepath.Join(deep, "server.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 || !fi.ModTime().Equal(old) {
		t.Errorf("mode %v time %v, want 0640 %v", fi.Mode().Perm(), fi.ModTime(), old)
	}
	if got := readFile(t, filepath.Join(deep, "server.txt")); got != "written" {
		t.Errorf("content %q", got)
	}
	if di, err := os.Stat(filepath.Join(s.Root, "made")); err != nil || di.Mode().Perm() != 0o500 {
		t.Errorf("directory mode: %v %v", di, err)
	}
	if target, err := os.Readlink(filepath.Join(s.Root, "link-file")); err != nil || target != filepath.Join("..", "canary", "secret.txt") {
		t.Errorf("link-file: %q %v", target, err)
	}
	if got := readFile(t, s.Files[0].Path); got != s.Files[0].Secret {
		t.Error("a canary file lost its content")
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("the parent holds %d entries, want the sandbox alone", len(entries))
	}
}

// TestUnprivilegedSandboxSaysWhyNoQuota runs the quota tests again as an
// unprivileged user: no quota, and the reason is the mount's refusal.
func TestUnprivilegedSandboxSaysWhyNoQuota(t *testing.T) {
	asnobody.Rerun(t, "^TestNoQuotaWithoutRoot$", time.Minute)
}

// TestNoQuotaWithoutRoot: an unprivileged harness cannot mount one, and
// QuotaWhy says so.
func TestNoQuotaWithoutRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("runs as an unprivileged user (see TestUnprivilegedSandboxSaysWhyNoQuota)")
	}
	s := newSandbox(t, Options{MaxBytes: 4 << 20})
	if s.Quota != 0 || !strings.Contains(s.QuotaWhy, "operation not permitted") {
		t.Errorf("Quota %d, QuotaWhy %q", s.Quota, s.QuotaWhy)
	}
}
