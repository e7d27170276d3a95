package contain_test

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
)

func init() {
	// stat prints, for each path in args, the error of a stat of it; a
	// relative one is taken beneath /tmp (so the harness does not keep it
	// visible as a path argument).
	children["stat"] = func(args []string) int {
		r := result{}
		for _, p := range args {
			_, err := os.Stat(filepath.Join("/tmp", p))
			r[p] = errText(err)
		}
		return emit(r)
	}
}

// TestProgramDirectlyInTmp: a server program that lies directly in the
// host's /tmp (a binary built with go build -o /tmp/x) runs in a mount
// namespace whose /tmp is the sandbox's: the program alone shows through,
// read-only, and the rest of the host's /tmp stays hidden.
func TestProgramDirectlyInTmp(t *testing.T) {
	needLayer(t, "mountns")
	assert.Equal(t, "/tmp/x", contain.ProgramTree("/tmp/x"))
	assert.Equal(t, "/tmp/ci-1", contain.ProgramTree("/tmp/ci-1/x"))
	assert.Equal(t, "/usr/bin", contain.ProgramTree("/usr/bin/x"))

	var b [6]byte
	_, _ = rand.Read(b[:])
	prog := "/tmp/smtest-prog-" + hex.EncodeToString(b[:])
	sibling := "/tmp/smtest-sibling-" + hex.EncodeToString(b[:])
	self, err := os.Executable()
	require.NoError(t, err)
	copyFile(t, self, prog, 0o755)
	t.Cleanup(func() { _ = os.Remove(prog) })
	require.NoError(t, os.WriteFile(sibling, []byte("x"), 0o600))
	t.Cleanup(func() { _ = os.Remove(sibling) })

	top := t.TempDir()
	o := contain.Options{SandboxTop: top, SandboxTmp: filepath.Join(top, "tmp"), NetNS: true, Landlock: true}
	require.NoError(t, os.Mkdir(o.SandboxTmp, 0o700))
	spec := childSpec(t, "stat", filepath.Base(prog), filepath.Base(sibling))
	spec.Path = prog
	spec.Dir = top
	r, code, stderr := run(t, wrap(t, spec, o))
	require.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Equal(t, "", r.str(filepath.Base(prog)), "the program itself is visible")
	assert.Equal(t, "no such file or directory", r.str(filepath.Base(sibling)), "the rest of the host's /tmp is not")
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	require.NoError(t, err)
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
}
