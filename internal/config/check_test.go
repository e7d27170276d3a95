package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name  string
		yaml  string
		flags map[string]string
		want  string // "" for no error
	}{
		{name: "stdio server", yaml: "server:\n  command: npx\n"},
		{name: "HTTP server already running", yaml: "server:\n  url: http://127.0.0.1:9/mcp\n  headers:\n    X-A: 1\n"},
		{name: "HTTP server started by start", yaml: "server:\n  start: node http.js\n  url: http://127.0.0.1:{port}/mcp\n"},
		{name: "command, url and start", yaml: "server:\n  command: x\n  start: node http.js\n  url: http://127.0.0.1:{port}/mcp\n"},
		{name: "command from the command line", flags: map[string]string{"command": `["npx"]`}},
		{name: "no server", yaml: "packs: [core]\n",
			want: "no server: set server.command (or give the command after --) or server.url"},
		{name: "command and url", yaml: "server:\n  command: npx\n", flags: map[string]string{"url": "http://127.0.0.1:9/mcp"},
			want: "server.command (sealmark.yaml:2) and server.url (flag --url) are both set without server.start: keep one, or set server.start to start the HTTP server at server.url"},
		{name: "url on localhost and ::1", yaml: "server:\n  url: http://localhost:{port}/mcp\n", flags: map[string]string{"url": "https://[::1]:8443/mcp"}},
		{name: "url not http", yaml: "server:\n  url: ftp://127.0.0.1/x\n",
			want: "sealmark.yaml:2: server.url: want an http or https URL such as http://127.0.0.1:{port}/mcp"},
		{name: "url not loopback, password never quoted", flags: map[string]string{"url": "http://me:hunter2@example.org/mcp"},
			want: `flag --url: server.url: the harness only contacts loopback addresses (127.0.0.0/8, ::1, localhost), not "example.org"`},
		{name: "url not a URL", flags: map[string]string{"url": "http://127.0.0.1:%zz/"},
			want: "flag --url: server.url: not a URL"},
		{name: "start without url", yaml: "server:\n  command: npx\n", flags: map[string]string{"start": "node http.js"},
			want: "server.start (flag --start) needs server.url, the URL the started server answers on"},
		{name: "headers without url", yaml: "server:\n  command: npx\n  headers:\n    X-A: 1\n",
			want: "server.headers (sealmark.yaml:3) apply only to an HTTP server: set server.url"},
		{name: "max_mib zero in the file", yaml: "server:\n  command: npx\nsandbox:\n  max_mib: 0\n",
			want: "sealmark.yaml:4: sandbox.max_mib: want a positive number of MiB, got 0"},
		{name: "max_mib negative from a flag", yaml: "server:\n  command: npx\n", flags: map[string]string{"max-mib": "-5"},
			want: "flag --max-mib: sandbox.max_mib: want a positive number of MiB, got -5"},
		{name: "max_mib absurd from a flag", yaml: "server:\n  command: npx\n", flags: map[string]string{"max-mib": "99999999"},
			want: "flag --max-mib: sandbox.max_mib: 99999999 MiB is more than any sandbox needs; at most 65536 (64 GiB)"},
		{name: "jobs negative", yaml: "server:\n  command: npx\n", flags: map[string]string{"jobs": "-1"},
			want: "flag --jobs: --jobs: want 0 (one per CPU) or more packs at once, got -1"},
		{name: "jobs absurd", yaml: "server:\n  command: npx\n", flags: map[string]string{"jobs": "65"},
			want: "flag --jobs: --jobs: 65 packs at once is more than the catalogue has; at most 64"},
		{name: "max_mib at the bound", yaml: "server:\n  command: npx\nsandbox:\n  max_mib: 65536\n"},
		{name: "max_mib above the bound in the file", yaml: "server:\n  command: npx\nsandbox:\n  max_mib: 65537\n",
			want: "sealmark.yaml:4: sandbox.max_mib: 65537 MiB is more than any sandbox needs; at most 65536 (64 GiB)"},
		{name: "timeouts at the bound", yaml: "server:\n  command: npx\ntimeouts:\n  run: 24h\n"},
		{name: "absurd timeouts", yaml: "server:\n  command: npx\ntimeouts:\n  run: 25h\n", flags: map[string]string{"call-timeout": "1000000h"},
			want: "flag --call-timeout: timeouts.call: 1000000h0m0s is longer than any run should wait; at most 24h\nsealmark.yaml:4: timeouts.run: 25h0m0s is longer than any run should wait; at most 24h"},
		{name: "zero timeouts", yaml: "server:\n  command: npx\ntimeouts:\n  start: 0s\n", flags: map[string]string{"call-timeout": "-1s"},
			want: "sealmark.yaml:4: timeouts.start: want a positive duration, got 0s\nflag --call-timeout: timeouts.call: want a positive duration, got -1s"},
		{name: "files inside the sandbox", yaml: "server:\n  command: npx\n  files:\n    a.json: x\n    \"{sandbox}/etc/b.ini\": y\n    c/../d.txt: z\n"},
		{name: "directory with content", yaml: "server:\n  command: npx\n  files:\n    notes/: x\n",
			want: `sealmark.yaml:4: server.files.notes/: a path ending in / makes an empty directory; give it no content ("")`},
		{name: "file path with ..", yaml: "server:\n  command: npx\n  files:\n    ../x: x\n",
			want: "sealmark.yaml:4: server.files.../x: the path escapes the sandbox; write a path relative to the sandbox root, or starting with {sandbox}/"},
		{name: "file path with .. inside", yaml: "server:\n  command: npx\n  files:\n    a/../../x: x\n",
			want: "sealmark.yaml:4: server.files.a/../../x: the path escapes the sandbox; write a path relative to the sandbox root, or starting with {sandbox}/"},
		{name: "file path with a backslash ..", yaml: "server:\n  command: npx\n  files:\n    '..\\x': x\n",
			want: `sealmark.yaml:4: server.files...\x: the path escapes the sandbox; write a path relative to the sandbox root, or starting with {sandbox}/`},
		{name: "absolute file path", yaml: "server:\n  command: npx\n  files:\n    /etc/passwd: x\n",
			want: "sealmark.yaml:4: server.files./etc/passwd: an absolute path outside {sandbox} escapes the sandbox; write a path relative to the sandbox root, or starting with {sandbox}/"},
		{name: "drive letter file path", yaml: "server:\n  command: npx\n  files:\n    'C:\\x': x\n",
			want: `sealmark.yaml:4: server.files.C:\x: an absolute path outside {sandbox} escapes the sandbox; write a path relative to the sandbox root, or starting with {sandbox}/`},
		{name: "file path leaving {sandbox}", yaml: "server:\n  command: npx\n  files:\n    \"{sandbox}/../canary/x\": x\n",
			want: "sealmark.yaml:4: server.files.{sandbox}/../canary/x: the path escapes the sandbox; write a path relative to the sandbox root, or starting with {sandbox}/"},
		{name: "file path the root itself", yaml: "server:\n  command: npx\n  files:\n    \"{sandbox}\": x\n",
			want: "sealmark.yaml:4: server.files.{sandbox}: the path names the sandbox root itself, not a file in it; write a path relative to the sandbox root, or starting with {sandbox}/"},
		{name: "file path under another placeholder", yaml: "server:\n  command: npx\n  files:\n    \"{sandbox_home}/.npmrc\": x\n",
			want: "sealmark.yaml:4: server.files.{sandbox_home}/.npmrc: the path starts with a placeholder other than {sandbox}; write a path relative to the sandbox root, or starting with {sandbox}/"},
		{name: "timeouts below the minimum", yaml: "server:\n  command: npx\ntimeouts:\n  call: 1ms\n", flags: map[string]string{"timeout": "1ns"},
			want: "flag --timeout: timeouts.start: 1ns is too short for any server to answer; want at least 100ms\n" +
				"sealmark.yaml:4: timeouts.call: 1ms is too short for any server to answer; want at least 100ms"},
		{name: "timeouts at the minimum", yaml: "server:\n  command: npx\n", flags: map[string]string{"timeout": "100ms", "call-timeout": "100ms", "probe-timeout": "100ms", "run-timeout": "100ms"}},
		{name: "no sandbox to keep", yaml: "server:\n  command: npx\n", flags: map[string]string{"no-sandbox": "true", "keep-sandbox": "true"},
			want: "--no-sandbox (flag --no-sandbox) and --keep-sandbox (flag --keep-sandbox): without a sandbox there is none to keep and no containment layer to turn off; drop one"},
		{name: "no sandbox to weaken", yaml: "server:\n  command: npx\nsandbox:\n  layers_off: [landlock]\n", flags: map[string]string{"no-sandbox": "true"},
			want: "--no-sandbox (flag --no-sandbox) and sandbox.layers_off (sealmark.yaml:4): without a sandbox there is none to keep and no containment layer to turn off; drop one"},
		{name: "sandbox under /proc", yaml: "server:\n  command: npx\n", flags: map[string]string{"sandbox-dir": "/proc/self"},
			want: `flag --sandbox-dir: sandbox.dir: "/proc/self" is on the kernel's /proc filesystem; the sandbox is made under a writable directory`},
		{name: "sandbox dir missing", yaml: "server:\n  command: npx\nsandbox:\n  dir: /nonexistent/x\n",
			want: `sealmark.yaml:4: sandbox.dir: "/nonexistent/x" is not a directory; the sandbox is made under an existing directory`},
		{name: "every problem together", yaml: "sandbox:\n  max_mib: 0\nserver:\n  start: x\n",
			want: "no server: set server.command (or give the command after --) or server.url\n" +
				"server.start (sealmark.yaml:4) needs server.url, the URL the started server answers on\n" +
				"sealmark.yaml:2: sandbox.max_mib: want a positive number of MiB, got 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := resolve(t, tc.yaml, nil, tc.flags)
			require.NoError(t, err)
			err = r.Check()
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// TestCheckHeaderInjection refuses a header that would become two, as
// sealmarktest.Config.Headers can give it (the file parser and --header
// refuse it before Check).
func TestCheckHeaderInjection(t *testing.T) {
	r := &Resolved{Settings: Defaults()}
	r.URL = "http://127.0.0.1:9/mcp"
	r.Headers = []KV{{"Authorization", "Bearer x"}}
	require.NoError(t, r.Check())
	for _, v := range []string{"Bearer x\r\nX-Evil: 1", "Bearer x\nX-Evil: 1", "Bearer\x00x"} {
		r.Headers = []KV{{"Authorization", v}}
		err := r.Check()
		require.Error(t, err, "%q", v)
		assert.Equal(t, "server.headers.Authorization: a header cannot hold a line break (CR or LF) or NUL: it would inject a header", err.Error())
	}
}

func TestCheckWhatOnlyGoCallersCanSet(t *testing.T) {
	r := &Resolved{Settings: Defaults()}
	r.Command = "npx"
	r.FailOn = "severe"
	r.Env = []KV{{"", "x"}}
	r.Files = []File{{"big.txt", string(make([]byte, MaxFileBytes+1))}}
	err := r.Check()
	require.Error(t, err)
	assert.Equal(t, `fail_on: want low, medium, high or critical, got "severe"`+"\n"+
		"server.files.big.txt: content is 65537 bytes; at most 65536\n"+
		"server.env.: not a valid variable name", err.Error())
}

func TestCheckPacks(t *testing.T) {
	known := []string{"fs", "core", "git", "exec"}
	r, err := resolve(t, "server:\n  command: npx\nhints:\n  fs:\n    depth: 1\n  gti:\n    repo: x\n", nil, map[string]string{"packs": "core,sf,zzz"})
	require.NoError(t, err)
	err = r.CheckPacks(known)
	require.Error(t, err)
	assert.Equal(t, `flag --packs: packs: unknown pack "sf" (did you mean fs?) (known: core, exec, fs, git)`+"\n"+
		`flag --packs: packs: unknown pack "zzz" (known: core, exec, fs, git)`+"\n"+
		`sealmark.yaml:6: hints.gti: hints for unknown pack "gti" (did you mean git?) (known: core, exec, fs, git)`, err.Error())

	ok, err := resolve(t, "server:\n  command: npx\npacks: [core, fs]\nhints:\n  fs: {}\n", nil, nil)
	require.NoError(t, err)
	assert.NoError(t, ok.CheckPacks(known))
}

func TestCheckLayers(t *testing.T) {
	known := []string{"landlock", "seccomp", "namespaces", "cgroup", "fsize", "quota", "secrets"}
	const list = "(known: landlock, seccomp, namespaces, cgroup, fsize, quota, secrets)"
	for _, tc := range []struct {
		name, yaml string
		env        []string
		flags      map[string]string
		want       string
	}{
		{name: "the file's line", yaml: "server:\n  command: npx\nsandbox:\n  max_mib: 10\n\n\n  layers_off: [landlock, selinux]\n",
			want: `sealmark.yaml:7: sandbox.layers_off: unknown containment layer "selinux" ` + list},
		{name: "a near miss", yaml: "server:\n  command: npx\nsandbox:\n  layers_off: [namespace, Cgroup, seccmp]\n",
			want: `sealmark.yaml:4: sandbox.layers_off: unknown containment layer "namespace" (did you mean namespaces?) ` + list + "\n" +
				`sealmark.yaml:4: sandbox.layers_off: unknown containment layer "Cgroup" (did you mean cgroup?) ` + list + "\n" +
				`sealmark.yaml:4: sandbox.layers_off: unknown containment layer "seccmp" (did you mean seccomp?) ` + list},
		{name: "the environment", yaml: "server:\n  command: npx\n", env: []string{"SEALMARK_LAYERS_OFF=netns"},
			want: `env SEALMARK_LAYERS_OFF: sandbox.layers_off: unknown containment layer "netns" ` + list},
		{name: "a flag over the file", yaml: "server:\n  command: npx\nsandbox:\n  layers_off: [landlock]\n",
			flags: map[string]string{"layers-off": "fsize,rlimit"},
			want:  `flag --layers-off: sandbox.layers_off: unknown containment layer "rlimit" ` + list},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := resolve(t, tc.yaml, tc.env, tc.flags)
			require.NoError(t, err)
			require.NoError(t, r.Check(), "only CheckLayers knows the layers")
			err = r.CheckLayers(known)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}

	for _, yaml := range []string{
		"server:\n  command: npx\n",
		"server:\n  command: npx\nsandbox:\n  layers_off: []\n",
		"server:\n  command: npx\nsandbox:\n  layers_off: [landlock, seccomp, namespaces, cgroup, fsize]\n",
	} {
		ok, err := resolve(t, yaml, nil, nil)
		require.NoError(t, err)
		assert.NoError(t, ok.CheckLayers(known), "%q", yaml)
	}
}
