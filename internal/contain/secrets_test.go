//go:build unix

package contain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanSecrets: only stores that exist are hidden, each once and where
// its link leads; a dangling link is nothing; a store holding a path the
// server needs, or lying in the sandbox, is kept and named; a store beneath
// a host temp directory is hidden only where the server sees it.
func TestPlanSecrets(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	elsewhere := t.TempDir()
	for _, d := range []string{".ssh", ".config/gh/ext", ".kube"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, d), 0o700))
	}
	require.NoError(t, os.WriteFile(filepath.Join(home, ".npmrc"), []byte("x"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(home, "nothing"), filepath.Join(home, ".netrc")))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(home, ".docker")))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(home, ".azure")))
	visible := []string{tmpTree(home), tmpTree(elsewhere)}
	needed := []string{filepath.Join(home, ".config/gh/ext")}

	p := planSecrets([]string{home}, false, needed, visible, "/nonexistent-top")
	assert.ElementsMatch(t, []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".kube"), filepath.Join(home, ".npmrc"), elsewhere}, p.Hide)
	assert.Equal(t, []string{filepath.Join(home, ".config/gh") + " (holds " + needed[0] + ")"}, p.Kept)

	// Nothing a server needs: .config/gh goes too.
	p = planSecrets([]string{home}, false, nil, visible, "")
	assert.Contains(t, p.Hide, filepath.Join(home, ".config/gh"))
	assert.Empty(t, p.Kept)

	// Beneath the host's /tmp and in no visible tree: not in the server's
	// view, nothing to hide (t.TempDir is beneath os.TempDir).
	if underAny(home, hostTmps) {
		p = planSecrets([]string{home}, false, nil, nil, "")
		assert.Empty(t, p.Hide)
		assert.Empty(t, p.Kept)
	}

	// In the sandbox: the sandbox's, kept.
	p = planSecrets([]string{home}, false, nil, visible, filepath.Dir(home))
	assert.Empty(t, p.Hide)
	assert.Contains(t, p.Kept, filepath.Join(home, ".ssh")+" (in the sandbox)")

	// The root list only as root, and only what exists.
	p = planSecrets(nil, false, nil, nil, "")
	assert.Empty(t, p.Hide)
	p = planSecrets(nil, true, nil, nil, "")
	if _, err := os.Stat("/etc/shadow"); err == nil {
		assert.Contains(t, p.Hide, "/etc/shadow")
	}
	for _, h := range p.Hide {
		_, err := os.Stat(h)
		assert.NoError(t, err, h)
	}
}

// TestCredentialHomes: the passwd entry's home, and the harness's $HOME
// when it is another directory, once each.
func TestCredentialHomes(t *testing.T) {
	t.Setenv("HOME", "/sealmark-ci-home")
	homes := credentialHomes()
	require.NotEmpty(t, homes)
	assert.Equal(t, "/sealmark-ci-home", homes[len(homes)-1])
	t.Setenv("HOME", homes[0])
	if homes[0] != "/sealmark-ci-home" {
		assert.Equal(t, homes[:1], credentialHomes())
	}
	t.Setenv("HOME", "relative")
	assert.NotContains(t, credentialHomes(), "relative")
}
