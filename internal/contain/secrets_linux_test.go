package contain_test

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
)

// fakeHome makes a home holding a canary in every file of secretFiles:
// .aws is a link to a directory elsewhere in the home (a dotfiles
// checkout), so the store is hidden where its link leads.
func fakeHome(t *testing.T) (home, canary string) {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	canary = "sealmark-canary-" + hex.EncodeToString(b)
	home = filepath.Join(t.TempDir(), "home")
	for _, f := range secretFiles {
		p := filepath.Join(home, f)
		if f == ".aws/credentials" {
			p = filepath.Join(home, "dotfiles", "aws", "credentials")
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte("token = "+canary+"\n"), 0o600))
	}
	require.NoError(t, os.Symlink(filepath.Join(home, "dotfiles", "aws"), filepath.Join(home, ".aws")))
	return home, canary
}

// readSecrets runs the "read" child contained with o (a sandbox and the
// namespaces set here) against home, with keep among its arguments, and
// returns what it got for each file.
func readSecrets(t *testing.T, o contain.Options, home, canary, keep string) (map[string]map[string]any, string) {
	t.Helper()
	top := t.TempDir()
	o.SandboxTop, o.SandboxTmp, o.NetNS = top, filepath.Join(top, "tmp"), true
	require.NoError(t, os.Mkdir(o.SandboxTmp, 0o700))
	spec := childSpec(t, "read", canary, home, keep)
	line := contain.Probe().ForServer(o, spec).Line()
	r, code, stderr := run(t, wrap(t, spec, o))
	require.Equal(t, 0, code, "stderr: %s", stderr)
	got := map[string]map[string]any{}
	for k, v := range r {
		got[k], _ = v.(map[string]any)
	}
	return got, line
}

// TestSecretsHidden: a contained server cannot read the credential stores
// of the harness user's home (here a fake one, Options.Homes): a hidden
// directory has no entries, a hidden file reads empty, a store reached
// through a link is hidden where the link leads, and as root /etc/shadow
// reads empty. A store holding a path the server was given stays readable,
// and the isolation line says so. The host's files are untouched.
func TestSecretsHidden(t *testing.T) {
	needLayer(t, "mountns")
	needLayer(t, "secrets")
	home, canary := fakeHome(t)
	kube := filepath.Join(home, ".kube", "config")
	got, line := readSecrets(t, contain.Options{Homes: []string{home}}, home, canary, kube)
	t.Logf("isolation: %s", line)

	for _, f := range []string{".ssh/id_rsa", ".config/gh/hosts.yml", ".aws/credentials"} {
		r := got[filepath.Join(home, f)]
		require.NotNil(t, r, f)
		assert.Equal(t, "no such file or directory", r["err"], "%s: its directory is an empty tmpfs", f)
		assert.Equal(t, false, r["canary"], f)
	}
	npmrc := got[filepath.Join(home, ".npmrc")]
	assert.Equal(t, "", npmrc["err"], "a hidden file is there")
	assert.Equal(t, float64(0), npmrc["bytes"], "and reads empty")
	assert.Equal(t, false, npmrc["canary"])

	r := got[kube]
	assert.Equal(t, "", r["err"])
	assert.Equal(t, true, r["canary"], "a store holding a path the server was given stays readable")
	assert.Contains(t, line, "credential stores left readable, the server needs a path beneath them: "+filepath.Join(home, ".kube")+" (holds "+kube+")")

	n := 4 // .ssh, .npmrc, .config/gh, .aws's directory
	if os.Geteuid() == 0 {
		shadow := got["/etc/shadow"]
		if fi, err := os.Stat("/etc/shadow"); err == nil && fi.Size() > 0 {
			assert.Equal(t, "", shadow["err"])
			assert.Equal(t, float64(0), shadow["bytes"], "/etc/shadow reads empty")
		}
		assert.Contains(t, line, "root-owned host files readable outside the hidden credential stores")
		// and the host's root-only secrets that exist here
		keys, _ := filepath.Glob("/etc/ssh/ssh_host_*_key")
		for _, p := range append([]string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssl/private"}, keys...) {
			if _, err := os.Stat(p); err == nil {
				n++
			}
		}
	}
	assert.Contains(t, line, fmt.Sprintf(" secrets=hidden(%d) ", n))

	// the host's view is unchanged
	for _, f := range secretFiles {
		b, err := os.ReadFile(filepath.Join(home, f))
		require.NoError(t, err)
		assert.Contains(t, string(b), canary, "the host's %s", f)
	}
}

// TestSecretsShown is the same server with hiding off: every canary is
// read (as root /etc/shadow too), which proves the fixture reads what
// TestSecretsHidden finds hidden, and the line says the stores are
// readable.
func TestSecretsShown(t *testing.T) {
	needLayer(t, "mountns")
	home, canary := fakeHome(t)
	got, line := readSecrets(t, contain.Options{Homes: []string{home}, ShowCredentials: true}, home, canary, "/")
	t.Logf("isolation: %s", line)
	for _, f := range secretFiles {
		r := got[filepath.Join(home, f)]
		require.NotNil(t, r, f)
		assert.Equal(t, "", r["err"], f)
		assert.Equal(t, true, r["canary"], "%s read", f)
	}
	if os.Geteuid() == 0 {
		if fi, err := os.Stat("/etc/shadow"); err == nil && fi.Size() > 0 {
			assert.Greater(t, got["/etc/shadow"]["bytes"], float64(0), "/etc/shadow read")
		}
		assert.Contains(t, line, "; root-owned host files readable (the server runs")
	}
	assert.Contains(t, line, " secrets=none(off by config) ")
	assert.Contains(t, line, "; the harness user's credential stores readable (secrets: off by config)")
}
