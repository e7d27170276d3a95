package seccomp

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContainedUnix judges pathname unix sockets by the socket a connect
// would reach: one inside the sandbox passes, one outside does not, a link
// inside the sandbox to a socket outside does not, a declared socket
// passes by any name, and one that does not exist is "no such socket".
func TestContainedUnix(t *testing.T) {
	top := t.TempDir()
	outside := t.TempDir()
	inner := listenUnix(t, filepath.Join(top, "root", "in.sock"))
	host := listenUnix(t, filepath.Join(outside, "host.sock"))
	declared := listenUnix(t, filepath.Join(outside, "db.sock"))
	require.NoError(t, os.Symlink(host, filepath.Join(top, "root", "link.sock")))
	require.NoError(t, os.Symlink(filepath.Join(outside), filepath.Join(top, "root", "dirlink")))
	require.NoError(t, os.Symlink(declared, filepath.Join(top, "root", "db-link.sock")))

	policy := Contained([]int{5432}, []string{top}, []string{declared}, false)
	pid := os.Getpid()
	for path, want := range map[string]bool{
		inner:                                   true,
		host:                                    false,
		filepath.Join(top, "root", "link.sock"): false,
		filepath.Join(top, "root", "dirlink", "host.sock"):                          false,
		filepath.Join(top, "root", "..", "..", filepath.Base(outside), "host.sock"): false,
		declared: true,
		filepath.Join(top, "root", "db-link.sock"): true,
	} {
		u := resolveUnix(pid, path)
		assert.Empty(t, u.Err, path)
		assert.Equal(t, want, policy(u), "%s: allowed", path)
	}
	u := resolveUnix(pid, filepath.Join(top, "none.sock"))
	assert.Equal(t, "no such socket", u.Err)
	assert.False(t, policy(u), "a socket that does not exist is not allowed")

	assert.False(t, policy(&net.UnixAddr{Name: "@abstract", Net: "unix"}), "abstract sockets, outside a network namespace")
	assert.True(t, Contained(nil, nil, nil, true)(&net.UnixAddr{Name: "@abstract", Net: "unix"}), "abstract sockets, inside one")
	assert.True(t, policy(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5432}))
	assert.False(t, policy(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5433}))
}

func listenUnix(t *testing.T, path string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	return path
}
