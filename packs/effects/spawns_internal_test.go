package effects

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// execRec is an egress exec record: pid, parent, path, found, argv.
func execRec(pid, ppid, path, found string, argv ...string) observers.Record {
	a, _ := json.Marshal(argv)
	d := map[string]string{observers.KeyOp: "exec", observers.KeyPid: pid, keyPpid: ppid, observers.KeyPath: path, observers.KeyArgv: string(a), observers.KeyVerdict: "allow"}
	if found != "" {
		d[keyFound] = found
	}
	return observers.Record{Kind: observers.KindProcess, Observer: "egress", Data: d}
}

// judged runs what the spawns probe does with one call's exec records
// and returns the findings, each as "severity: message | evidence...".
func judged(p *packs.Pass, recs []observers.Record) []string {
	for _, a := range attempted(p, ownPrograms(p), programs(recs, true)) {
		a.report(p, "t()")
	}
	_, _, fs, _ := p.Outcome()
	var out []string
	for _, f := range fs {
		s := f.Severity.String() + ": " + f.Message
		for _, e := range f.Evidence {
			s += " | " + e.Detail
		}
		out = append(out, s)
	}
	return out
}

// TestSpawnsPathSearch: a PATH search that finds nothing, one execve per
// directory as libuv and execvp make it (measured: xcrun, 14 ENOENT), is
// one low finding that names no directory; one that ends in a program
// that runs is one "ran" finding, high, showing a system path as it is.
func TestSpawnsPathSearch(t *testing.T) {
	host := []string{"/home/alice/.nvm/versions/node/v22/bin", "/home/alice/.local/bin", "/opt/homebrew/bin", "/usr/local/bin", "/usr/bin", "/bin"}
	var recs []observers.Record
	for _, d := range host {
		recs = append(recs, execRec("40", "1", d+"/xcrun", "false", "xcrun", "--find", "cc"))
	}
	got := judged(&packs.Pass{Probe: &spawns}, recs)
	require.Len(t, got, 1, "%q", got)
	assert.True(t, strings.HasPrefix(got[0], "low: t() tried to run xcrun (not found) | pid 40 tried xcrun in 6 places on PATH"), got[0])
	for _, d := range host {
		assert.NotContains(t, got[0], d+"/")
	}

	recs = nil
	for _, d := range host[:4] {
		recs = append(recs, execRec("41", "1", d+"/curl", "false", "curl", "-s", "x"))
	}
	recs = append(recs, execRec("41", "1", "/usr/bin/curl", "true", "curl", "-s", "x"))
	got = judged(&packs.Pass{Probe: &spawns}, recs)
	require.Len(t, got, 1, "%q", got)
	assert.Equal(t, `high: t() ran curl -s x | pid 41 ran /usr/bin/curl with argv ["curl","-s","x"]`, got[0])

	got = judged(&packs.Pass{Probe: &spawns}, []observers.Record{execRec("42", "1", "/home/alice/.local/bin/tool", "", "/home/alice/.local/bin/tool")})
	require.Len(t, got, 1, "%q", got)
	assert.Equal(t, `high: t() ran tool | pid 42 ran tool with argv ["tool"]`, got[0], "untold is taken to have run; a user's directory is not shown")

	got = judged(&packs.Pass{Probe: &spawns}, []observers.Record{execRec("43", "1", "/usr/bin/notes.txt", "not-executable", "notes.txt")})
	require.Len(t, got, 1, "%q", got)
	assert.True(t, strings.HasPrefix(got[0], "low: t() tried to run notes.txt (not executable) | pid 43 tried /usr/bin/notes.txt"), got[0])
}

// TestSpawnsRuntime: below a git the tool ran, git's remote helper, its
// exec-path programs and the shell of its own transport command are
// git's; what such a shell runs otherwise is the tool's. A remote helper
// the server starts itself, not below git, is the tool's. The package's
// own binaries (its install directory when a package marker makes it a
// package's, the node_modules tree that holds it) are not the tool's.
func TestSpawnsRuntime(t *testing.T) {
	app := t.TempDir()
	install := filepath.Join(app, "node_modules", "@acme", "mcp")
	require.NoError(t, os.MkdirAll(filepath.Join(install, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(install, "package.json"), []byte("{}"), 0o644))
	p := &packs.Pass{Probe: &spawns, Install: install}
	recs := []observers.Record{
		execRec("2", "1", "/usr/bin/git", "true", "git", "clone", "http://127.0.0.1:9/r.git"),
		execRec("3", "2", "/usr/lib/git-core/git", "true", "/usr/lib/git-core/git", "remote-http", "origin", "http://127.0.0.1:9/r.git"),
		execRec("4", "3", "/usr/lib/git-core/git-remote-http", "true", "/usr/lib/git-core/git-remote-http", "origin", "http://127.0.0.1:9/r.git"),
		execRec("5", "2", "/bin/sh", "true", "/bin/sh", "-c", "git-upload-pack '/r'", "git-upload-pack '/r'"),
		execRec("6", "5", "/usr/lib/git-core/git-upload-pack", "true", "git-upload-pack", "/r"),
		execRec("7", "6", "/usr/lib/git-core/git", "true", "/usr/lib/git-core/git", "pack-objects"),
		execRec("8", "2", "/bin/sh", "true", "/bin/sh", "-c", "curl evil '/r'", "curl evil '/r'"),
		execRec("9", "8", "/usr/bin/curl", "true", "curl", "evil", "/r"),
		execRec("10", "1", "/usr/lib/git-core/git-remote-https", "true", "git-remote-https", "origin"),
		execRec("11", "1", filepath.Join(install, "bin", "helper"), "true", "helper"),
		execRec("12", "1", filepath.Join(app, "node_modules", ".bin", "esbuild"), "true", "esbuild"),
		execRec("13", "1", filepath.Join(app, "other", "helper2"), "true", "helper2"),
	}
	got := judged(p, recs)
	var msgs []string
	for _, g := range got {
		msgs = append(msgs, strings.SplitN(g, " | ", 2)[0])
	}
	assert.Equal(t, []string{
		"high: t() ran git clone http://127.0.0.1:9/r.git",
		"high: t() ran /bin/sh -c curl evil '/r' curl evil '/r'",
		"high: t() ran curl evil /r",
		"high: t() ran git-remote-https origin",
		"high: t() ran helper2",
	}, msgs)
}

// TestSpawnsNoPackage: a server started from a directory that is no
// package's (a program in /usr/local/bin, say) has no binaries of its
// own there but itself: the other programs beside it are the tool's.
func TestSpawnsNoPackage(t *testing.T) {
	bin := t.TempDir()
	p := &packs.Pass{Probe: &spawns, Install: bin}
	got := judged(p, []observers.Record{execRec("2", "1", filepath.Join(bin, "curl"), "true", "curl", "x")})
	require.Len(t, got, 1, "%q", got)
	assert.True(t, strings.HasPrefix(got[0], "high: t() ran curl x"), got[0])
}

func TestNodeModules(t *testing.T) {
	assert.Equal(t, "/srv/app/node_modules", nodeModules("/srv/app/node_modules/@acme/mcp"))
	assert.Equal(t, "/srv/app/node_modules", nodeModules("/srv/app/node_modules/a/node_modules/b"))
	assert.Equal(t, "/srv/app/node_modules", nodeModules("/srv/app/node_modules"))
	assert.Equal(t, "", nodeModules("/srv/app"))
	assert.Equal(t, "", nodeModules("/srv/node_modules_x/app"))
}

// TestArgvText keeps whole arguments within the bound.
func TestArgvText(t *testing.T) {
	p := &packs.Pass{}
	long := strings.Repeat("a", 150)
	got := argvText(p, execRec("1", "", "/usr/bin/x", "true", "x", long, long, long))
	assert.Equal(t, `["x","`+long+`","`+long+`","…"]`, got)
}

// TestSpawnsWithoutEgress: where only the process observer watched, each
// process seen is a program that ran, as before, its evidence naming it.
func TestSpawnsWithoutEgress(t *testing.T) {
	p := &packs.Pass{Probe: &spawns}
	rec := observers.Record{Kind: observers.KindProcess, Observer: "process", Data: map[string]string{
		observers.KeyOp: "exec", observers.KeyPid: "7", observers.KeyProg: "sm-echo", observers.KeyArgv: `["sm-echo","x"]`}}
	for _, a := range attempted(p, ownPrograms(p), programs([]observers.Record{rec}, false)) {
		a.report(p, "t()")
	}
	_, _, fs, _ := p.Outcome()
	require.Len(t, fs, 1)
	assert.Equal(t, "t() ran sm-echo x", fs[0].Message)
	assert.Equal(t, `pid 7 ran sm-echo with argv ["sm-echo","x"]`, fs[0].Evidence[0].Detail)
}
