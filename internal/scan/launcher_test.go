package scan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/packs"
)

func TestParseLaunch(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		want    launch
	}{
		{"npx", []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "{sandbox}"}, launch{kind: NPX, pkg: "@modelcontextprotocol/server-filesystem@2026.8.31", args: []string{"{sandbox}"}}},
		{"npx", []string{"mcp-fetch-server"}, launch{kind: NPX, pkg: "mcp-fetch-server"}},
		{"/usr/bin/npx", []string{"--yes", "-p", "pkg@1.2.3", "tool", "--flag"}, launch{kind: NPX, pkg: "pkg@1.2.3", bin: "tool", args: []string{"--flag"}}},
		{"npx.cmd", []string{"-y", "--", "pkg", "-x"}, launch{kind: NPX, pkg: "pkg", args: []string{"-x"}}},
		{"uvx", []string{"mcp-server-git", "--repository", "/r"}, launch{kind: UVX, pkg: "mcp-server-git", bin: "mcp-server-git", args: []string{"--repository", "/r"}}},
		{"uvx", []string{"-q", "mcp-server-time@2025.9.25", "--local-timezone=UTC"}, launch{kind: UVX, pkg: "mcp-server-time==2025.9.25", bin: "mcp-server-time", args: []string{"--local-timezone=UTC"}}},
		{"uvx", []string{"--from", "mcp-server-fetch[extra]==1.0", "mcp-server-fetch"}, launch{kind: UVX, pkg: "mcp-server-fetch[extra]==1.0", bin: "mcp-server-fetch", args: []string{}}},
		{"pipx", []string{"run", "--spec=mcp-time==1.2", "mcp-time", "-v"}, launch{kind: Pipx, pkg: "mcp-time==1.2", bin: "mcp-time", args: []string{"-v"}}},
		{"docker", []string{"run", "-i", "--rm", "mcp/fetch"}, launch{kind: Docker}},
		{"node", []string{"server.js"}, launch{kind: Direct, args: []string{"server.js"}}},
	} {
		got, err := parseLaunch(tc.command, tc.args)
		require.NoError(t, err, "%s %v", tc.command, tc.args)
		assert.Equal(t, tc.want, got, "%s %v", tc.command, tc.args)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-y"}, "npx without a package"},
		{[]string{"--registry", "http://evil", "pkg"}, "npx option --registry is not one scan understands"},
		{[]string{"-y", "./local"}, `npx package "./local": want a registry package NAME or NAME@VERSION`},
		{[]string{"-y", "git+https://x/y.git"}, "want a registry package"},
		{[]string{"-p"}, "npx -p without a package"},
	} {
		_, err := parseLaunch("npx", tc.args)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want)
	}
	for _, tc := range []struct {
		command string
		args    []string
		want    string
	}{
		{"uvx", []string{"--with", "x", "pkg"}, "uvx option --with is not one scan understands"},
		{"uvx", []string{"-q"}, "uvx without a program"},
		{"uvx", []string{"--from", "git+https://x/y", "y"}, `uvx package "git+https://x/y": want a package index NAME`},
		{"pipx", []string{"run", "./local"}, `pipx package "./local"`},
	} {
		_, err := parseLaunch(tc.command, tc.args)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want)
	}
}

func TestNPMBin(t *testing.T) {
	dir := t.TempDir()
	write := func(meta string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(meta), 0o600))
	}
	write(`{"name": "@s/server-x", "bin": "dist/index.js"}`)
	got, err := npmBin(dir, "@s/server-x", "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "dist", "index.js"), got)
	write(`{"bin": {"other": "o.js", "server-x": "x.js"}}`)
	got, err = npmBin(dir, "@s/server-x", "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "x.js"), got, "the program named like the package")
	got, err = npmBin(dir, "@s/server-x", "other")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "o.js"), got, "-p's program")
	_, err = npmBin(dir, "@s/server-x", "nope")
	assert.ErrorContains(t, err, `no program "nope"`)
	write(`{"bin": {"a": "../../../etc/passwd"}}`)
	_, err = npmBin(dir, "p", "")
	assert.ErrorContains(t, err, "leaves the package")
	write(`{"name": "p"}`)
	_, err = npmBin(dir, "p", "")
	assert.ErrorContains(t, err, "no bin in package.json")
}

func TestLaunchersMissingOrUncontainedAreEntryErrors(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no uv, pipx or npm here
	o := &Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: t.TempDir()}}
	for _, tc := range []struct {
		e    Entry
		want string
	}{
		{Entry{Name: "u", Type: "stdio", Command: "uvx", Args: []string{"mcp-server-time"}}, "uvx entry: uv is not installed, so mcp-server-time cannot be fetched"},
		{Entry{Name: "p", Type: "stdio", Command: "pipx", Args: []string{"run", "mcp-server-time"}}, "pipx entry: pipx is not installed, so mcp-server-time cannot be fetched"},
		{Entry{Name: "n", Type: "stdio", Command: "npx", Args: []string{"-y", "pkg"}}, "npx entry: npm is not installed"},
		{Entry{Name: "d", Type: "stdio", Command: "docker", Args: []string{"run", "-i", "mcp/time"}}, "docker entry: Docker runs the server in its own container, outside Sealmark's sandbox"},
	} {
		p, err := makePlan(context.Background(), tc.e, o)
		require.Error(t, err, tc.e.Command)
		assert.Contains(t, err.Error(), tc.want)
		assert.Equal(t, tc.e.Command, p.launcher)
	}
}

// fakeTool puts a program name first on PATH that runs script (sh).
func fakeTool(t *testing.T, name, script string) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestPythonLaunchersFetchIntoTheirOwnDirectory(t *testing.T) {
	// Stand-ins that install the way uv tool install and pipx install do:
	// the program into the bin directory their variables name.
	fakeTool(t, "uv", `[ "$1 $2" = "tool install" ] || exit 9
echo "$UV_TOOL_DIR" > "$UV_TOOL_BIN_DIR.tooldir"; mkdir -p "$UV_TOOL_BIN_DIR"; echo x >> "$UV_TOOL_BIN_DIR/../fetches"; printf '#!/bin/sh\n' > "$UV_TOOL_BIN_DIR/mcp-server-time"
`)
	fakeTool(t, "pipx", `[ "$1" = install ] || exit 9
mkdir -p "$PIPX_BIN_DIR"; printf '#!/bin/sh\n' > "$PIPX_BIN_DIR/mcp-time"
`)
	cache := t.TempDir()
	o := &Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: cache, Env: os.Environ()}}
	for range 2 {
		p, err := makePlan(context.Background(), Entry{Name: "u", Type: "stdio", Command: "uvx", Args: []string{"mcp-server-time@2025.9.25", "--tz=UTC"}}, o)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(cache, "uvx", "mcp-server-time__2025.9.25", "bin", "mcp-server-time"), p.file.Command)
		assert.Equal(t, []string{"--tz=UTC"}, p.file.Args)
	}
	data, err := os.ReadFile(filepath.Join(cache, "uvx", "mcp-server-time__2025.9.25", "fetches"))
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(data), "a pinned version is fetched once")
	p, err := makePlan(context.Background(), Entry{Name: "p", Type: "stdio", Command: "pipx", Args: []string{"run", "mcp-time", "-v"}}, o)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "pipx", "mcp-time", "bin", "mcp-time"), p.file.Command)

	fakeTool(t, "uv", `echo "error: No solution found when resolving dependencies" >&2; exit 1`)
	_, err = makePlan(context.Background(), Entry{Name: "u", Type: "stdio", Command: "uvx", Args: []string{"other"}}, o)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fetching other with uv tool install failed (exit status 1): error: No solution found")
}

func TestSecretValue(t *testing.T) {
	for kv, want := range map[config.KV]bool{
		{Name: "GITHUB_TOKEN", Value: "abcdef"}:                         true,
		{Name: "UPSTREAM_PAT", Value: "ghp_a1b2c3d4e5f6g7h8i9"}:         true,  // token-shaped under a plain name
		{Name: "GITHUB_TOKEN", Value: "abc"}:                            false, // too short to mask anywhere
		{Name: "ROOT", Value: "/home/me/projects/2026"}:                 false,
		{Name: "LOG_LEVEL", Value: "debug"}:                             false,
		{Name: "API_KEY", Value: "${input:key}"}:                        false,
		{Name: "MEMORY_FILE_PATH", Value: "{sandbox}/memory-2026.json"}: false,
	} {
		assert.Equal(t, want, secretValue(kv), "%v", kv)
	}
}

func TestReplacePaths(t *testing.T) {
	cwd := t.TempDir()
	host := filepath.Join(cwd, "notes")
	require.NoError(t, os.Mkdir(host, 0o700))
	e := Entry{Name: "n", Type: "stdio", Command: "node", Args: []string{"--root=" + host, host, "--verbose"}, Env: []config.KV{{Name: "MEMORY_FILE_PATH", Value: "/var/lib/mem.json"}}}
	p, err := makePlan(context.Background(), e, &Options{Cwd: cwd})
	require.NoError(t, err)
	assert.Equal(t, []string{"--root={sandbox}", "{sandbox}", "--verbose"}, p.file.Args, "a directory is the server's root: the sandbox root, where the fs layout lies")
	assert.Equal(t, []config.KV{{Name: "MEMORY_FILE_PATH", Value: "{sandbox}/mem.json"}}, p.file.Env)
	assert.Empty(t, p.file.Files, "the sandbox root exists; nothing to make")
	assert.Contains(t, p.notes, "scan: args[1]: the path "+host+" on this machine was replaced with {sandbox}")
	assert.Contains(t, p.notes, "scan: staged: "+host+" is the server's root, the sandbox root, with the sandbox's own files; the directory's content was not copied")
	assert.Empty(t, p.custom)
	assert.Equal(t, []string{"--root=" + host, host, "--verbose"}, e.Args, "the entry itself is untouched")

	p, err = makePlan(context.Background(), e, &Options{Cwd: cwd, AsConfigured: true})
	require.NoError(t, err)
	assert.Equal(t, e.Args, p.file.Args)
	assert.Empty(t, p.file.Files)
	assert.Equal(t, []string{"scan --as-configured: the server got host paths (args[0], args[1], env MEMORY_FILE_PATH)"}, p.custom)
}

func TestNPXFetchThenRunTheInstalledProgram(t *testing.T) {
	// A stand-in npm that installs a package the way npm install --prefix does.
	fakeTool(t, "npm", `[ "$1" = install ] && [ "$2" = --prefix ] || exit 9
case " $* " in *" --ignore-scripts "*) ;; *) echo "install scripts were not turned off" >&2; exit 9;; esac
mkdir -p "$3/node_modules/@s/server-x/dist" && printf '{"name":"@s/server-x","bin":{"server-x":"dist/index.js"}}' > "$3/node_modules/@s/server-x/package.json"
`)
	cache := t.TempDir()
	e := Entry{Name: "x", Type: "stdio", Command: "npx", Args: []string{"-y", "@s/server-x@1.0.0", "{sandbox}"}}
	p, err := makePlan(context.Background(), e, &Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: cache, Env: os.Environ()}})
	require.NoError(t, err)
	assert.Equal(t, NPX, p.launcher)
	assert.Equal(t, "node", p.file.Command)
	assert.Equal(t, []string{filepath.Join(cache, "npm", "@s__server-x@1.0.0", "node_modules", "@s", "server-x", "dist", "index.js"), "{sandbox}"}, p.file.Args)
}

func TestNPXFetchFailureIsTheEntrysError(t *testing.T) {
	fakeTool(t, "npm", `echo "npm error 404 Not Found - GET https://registry.npmjs.org/nope" >&2; exit 1`)
	e := Entry{Name: "x", Type: "stdio", Command: "npx", Args: []string{"-y", "nope"}}
	results := Run(context.Background(), []Entry{e}, &Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: t.TempDir(), Env: os.Environ()}})
	require.Len(t, results, 1)
	rep := results[0].Report
	assert.Equal(t, NPX, results[0].Launcher)
	assert.Contains(t, rep.HarnessError, "fetching nope with npm install failed (exit status 1): npm error 404 Not Found")
	assert.Equal(t, 3, ExitCode(Names(results), packs.High), "an entry that cannot be fetched is an error")
}

func TestNPXPinnedVersionIsFetchedOnce(t *testing.T) {
	fakeTool(t, "npm", `echo fetch >> "$3/../fetches"
mkdir -p "$3/node_modules/p" && printf '{"name":"p","version":"1.2.3","bin":"i.js"}' > "$3/node_modules/p/package.json"
`)
	cache := t.TempDir()
	o := &Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: cache, Env: os.Environ()}}
	for _, spec := range []string{"p@1.2.3", "p@1.2.3", "p@latest", "p@latest"} {
		_, err := makePlan(context.Background(), Entry{Name: "p", Type: "stdio", Command: "npx", Args: []string{"-y", spec}}, o)
		require.NoError(t, err, spec)
	}
	data, err := os.ReadFile(filepath.Join(cache, "npm", "fetches"))
	require.NoError(t, err)
	assert.Equal(t, "fetch\nfetch\nfetch\n", string(data), "1.2.3 once, latest every time")
}

func TestEditorVariablesBecomeSandboxPaths(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(cwd, "docs"), 0o700))
	e := Entry{Name: "v", Type: "stdio", Command: "node", Args: []string{"${workspaceFolder}/docs", "${userHome}/.notes"},
		Env: []config.KV{{Name: "TOKEN", Value: "${env:GITHUB_TOKEN}"}}, Disabled: true}
	p, err := makePlan(context.Background(), e, &Options{Cwd: cwd, Home: home})
	require.NoError(t, err)
	assert.Equal(t, []string{"{sandbox}", "{sandbox}/.notes"}, p.file.Args, "the directory is the sandbox root; the missing .notes a sandbox path")
	assert.Equal(t, "${env:GITHUB_TOKEN}", p.file.Env[0].Value, "the editor's environment reference stays as written")
	assert.Contains(t, p.notes, "scan: the client has this server disabled; it was scanned all the same")
}
