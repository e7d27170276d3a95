package fs

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/packs"
)

// newSandbox makes a real sandbox and returns it as probes see it.
func newSandbox(t *testing.T) *packs.Sandbox {
	t.Helper()
	sb, err := sandbox.New(sandbox.Options{Parent: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Remove() })
	require.NotEmpty(t, sb.LinkDir, "this platform made no directory link")
	require.NotEmpty(t, sb.LinkFile, "this platform made no file link")
	v := &packs.Sandbox{Top: sb.Top, Root: sb.Root, RootEvil: sb.RootEvil, Canary: sb.Canary, Home: sb.Home, Tmp: sb.Tmp, Bin: sb.Bin, OKToken: sb.OKToken}
	for _, f := range sb.Files {
		v.Files = append(v.Files, packs.Secret{Name: f.Name, Value: f.Secret})
	}
	return v
}

func TestRestorePutsTheSandboxBack(t *testing.T) {
	sb := newSandbox(t)
	const token = "smtok-0123456789abcdef"
	in := func(p string) string { return filepath.Join(sb.Top, filepath.FromSlash(p)) }

	outside, err := restore(sb, layout{linkDir: true, linkFile: true}, token, nil)
	require.NoError(t, err)
	assert.False(t, outside, "an intact sandbox needs nothing")
	assert.Empty(t, inspect(sb, token, true))

	// What escaping writes leave behind.
	require.NoError(t, os.WriteFile(in("canary/secret.txt"), []byte("overwritten"), 0o644))
	require.NoError(t, os.Remove(in("canary/id_rsa")))
	require.NoError(t, os.Remove(in("root/link-dir")))
	require.NoError(t, os.Remove(in("root/link-file")))
	require.NoError(t, os.WriteFile(in("root/link-file"), []byte("a file now"), 0o644))
	require.NoError(t, os.WriteFile(in("root/ok.txt"), []byte("changed"), 0o600))
	require.NoError(t, os.Mkdir(in("root-evil/sealmark-"+token+"-w1"), 0o755))
	require.NoError(t, os.WriteFile(in("root-evil/sealmark-"+token+"-w1/x"), nil, 0o644))
	require.NoError(t, os.WriteFile(in("home/sealmark-"+token+"-w2"), nil, 0o644))
	require.NoError(t, os.WriteFile(in("sealmark-"+token+"-w3"), nil, 0o644))
	require.NoError(t, os.WriteFile(in("root/sealmark-"+token+"-src4"), nil, 0o644))
	require.NoError(t, os.MkdirAll(in("root/%2e%2e/canary"), 0o755))
	require.NoError(t, os.WriteFile(in("root/server-state"), nil, 0o644))

	var seen []string
	for _, c := range inspect(sb, token, true) {
		seen = append(seen, c.path)
	}
	assert.ElementsMatch(t, []string{"canary/secret.txt", "canary/id_rsa", "sealmark-" + token + "-w3",
		"root-evil/sealmark-" + token + "-w1", "home/sealmark-" + token + "-w2"}, seen)

	outside, err = restore(sb, layout{linkDir: true, linkFile: true}, token, []string{"root/%2e%2e", "root/%2e%2e/canary", "root/link-file", "canary/secret.txt"})
	require.NoError(t, err)
	assert.True(t, outside)
	assert.Empty(t, inspect(sb, token, true))
	for _, f := range sb.Files {
		b, err := os.ReadFile(in(f.Name))
		require.NoError(t, err)
		assert.Equal(t, f.Value, string(b), f.Name)
		fi, err := os.Lstat(in(f.Name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), f.Name)
	}
	b, err := os.ReadFile(in("root/ok.txt"))
	require.NoError(t, err)
	assert.Equal(t, sb.OKToken, string(b))
	for name, want := range map[string]string{"root/link-dir": linkDirTarget, "root/link-file": linkFileTarget} {
		got, err := os.Readlink(in(name))
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
	}
	for _, gone := range []string{"root/sealmark-" + token + "-src4", "root/%2e%2e", "root-evil/sealmark-" + token + "-w1", "home/sealmark-" + token + "-w2", "sealmark-" + token + "-w3"} {
		_, err := os.Lstat(in(gone))
		assert.True(t, os.IsNotExist(err), "%s still there", gone)
	}
	_, err = os.Lstat(in("root/server-state"))
	assert.NoError(t, err, "what the probe did not make and the observer did not see created stays")

	outside, err = restore(sb, layout{linkDir: true, linkFile: true}, token, nil)
	require.NoError(t, err)
	assert.False(t, outside, "restoring twice changes nothing")
}

func TestRestoreReplacesALinkedCanaryDirectory(t *testing.T) {
	sb := newSandbox(t)
	canary := filepath.Join(sb.Top, "canary")
	require.NoError(t, os.RemoveAll(canary))
	require.NoError(t, os.Symlink("root", canary)) // a server swapped the directory for a link into the root
	_, err := restore(sb, layout{}, "", nil)
	require.NoError(t, err)
	fi, err := os.Lstat(canary)
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "canary is a real directory again")
	_, err = os.Lstat(filepath.Join(sb.Root, "secret.txt"))
	assert.True(t, os.IsNotExist(err), "restore wrote through the link into the root")
}

func TestOracles(t *testing.T) {
	sb := &packs.Sandbox{OKToken: "sm-ok-1", Files: []packs.Secret{{Name: "canary/secret.txt", Value: "sm-secret-abc"}, {Name: "root-evil/evil.txt", Value: "sm-secret-def"}}}
	result := func(v any) *packs.Response {
		b, _ := json.Marshal(v)
		return &packs.Response{Result: b}
	}
	text := func(s string, isErr bool) *packs.Response {
		return result(map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}, "isError": isErr})
	}

	assert.Equal(t, []string{"canary/secret.txt"}, secretsIn(sb, text("x sm-secret-abc y", false), nil))
	blob := base64.StdEncoding.EncodeToString([]byte("sm-secret-def"))
	assert.Equal(t, []string{"root-evil/evil.txt"}, secretsIn(sb, result(map[string]any{"blob": blob}), nil), "base64 counts")
	assert.Empty(t, secretsIn(sb, text("no match for sm-secret-abc", true), map[string]any{"old": "sm-secret-abc"}), "an echo of what was sent is no leak")
	assert.Equal(t, []string{"canary/secret.txt"}, secretsIn(sb, &packs.Response{Error: &packs.RPCError{Message: "sm-secret-abc"}}, nil), "an error message counts")

	assert.Equal(t, []string{"canary/secret.txt", "root-evil/evil.txt"}, namesIn(sb, text("[FILE] secret.txt\n[FILE] evil.txt", false), map[string]any{"path": "/x"}))
	assert.Empty(t, namesIn(sb, text("[FILE] secret.txt", true), nil), "a refusal lists nothing")
	assert.Empty(t, namesIn(sb, text("denied: /x/secret.txt", false), map[string]any{"path": "/x/secret.txt"}), "names the request sent do not count")

	assert.True(t, sizeIn(text("size: 13\nmodified: 12:13:14", false), 13))
	assert.True(t, sizeIn(result(map[string]any{"size": 13}), 13))
	assert.False(t, sizeIn(text("size: 130", false), 13))
	assert.False(t, sizeIn(text("modified: 12:13:14", false), 13), "a number that is not the size")
	assert.False(t, sizeIn(text("size: 13", true), 13), "a refusal")
}

func TestReaches(t *testing.T) {
	sb := &packs.Sandbox{Files: []packs.Secret{{Name: "canary/secret.txt"}, {Name: "canary/id_rsa"}, {Name: "root-evil/evil.txt"}}}
	for _, f := range forms {
		for _, tmpl := range f.files {
			assert.NotEmpty(t, reaches(sb, tmpl).Name, "%s: %q reaches no canary file", f.key, tmpl)
		}
	}
	assert.Equal(t, "canary/secret.txt", reaches(sb, "{sandbox}/link-file").Name)
	assert.Equal(t, "canary/id_rsa", reaches(sb, `{sandbox}/..\canary\id_rsa`).Name)
	assert.Equal(t, "canary/secret.txt", reaches(sb, "{sandbox}/../canary/secret.txt\x00/../../root/ok.txt").Name)
}
