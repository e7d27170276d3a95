package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullFile sets every key sealmark.yaml accepts.
const fullFile = `# every key
server:
  command: npx
  args: ["-y", "@modelcontextprotocol/server-filesystem", "{sandbox}"]
  env:
    API_KEY: sk-live-123456
    LOG_LEVEL: debug
    DATA_DIR: "{sandbox}/data"
  url: http://127.0.0.1:{port}/mcp
  headers:
    Authorization: Bearer abc
    X-Trace: "on"
  files:
    config.json: '{"root": "{sandbox}"}'
    "{sandbox}/etc/app.ini": |
      [app]
      debug = true
  start: node dist/http.js --port {port}
sandbox:
  keep_env: [HTTP_PROXY, HTTPS_PROXY]
  scrub_env: false
  dir: /var/tmp/sm
  max_mib: 2048
  network: closed
  layers_off: [seccomp, fsize]
  services: ["tcp:127.0.0.1:5432", "unix:/var/run/postgresql/.s.PGSQL.5432"]
packs: [core, fs]
hints:
  fs:
    read_tool: read_file
    depth: 3
    roots: ["{sandbox}", 2]
  db: {}
fail_on: medium
allow_inconclusive: true
baseline: old.json
timeouts:
  start: 1m
  call: 1500ms
  probe: 2m
  run: 20m
report:
  json: out/report.json
  sarif: out/report.sarif
  junit: out/junit.xml
db:
  admin_dsn: postgres://admin:s3cret@127.0.0.1:5432/postgres
probes:
  - name: refuses-dotdot
    tool: read_note
    args: {name: "{sandbox}/../canary/secret.txt"}
    expect: [refused, no_canary]
lock: locks/notes.lock.json
`

// goodFiles are files Parse accepts, with the settings they give. The schema
// test validates each of them against docs/sealmark.schema.json.
var goodFiles = []struct {
	name  string
	yaml  string
	want  func(*Settings) // applied to Defaults()
	lines map[string]int  // a subset of the lines Parse returns
}{
	{name: "empty", yaml: "", want: func(*Settings) {}},
	{name: "comments only", yaml: "# nothing here\n\n# yet\n", want: func(*Settings) {}},
	{name: "null document", yaml: "~\n", want: func(*Settings) {}},
	{name: "empty sections", yaml: "server:\nsandbox:\n  # keep_env: [HTTP_PROXY]\ntimeouts:\n", want: func(*Settings) {}},
	{name: "key without value", yaml: "server:\n  command:\n  url: http://127.0.0.1:9/mcp\nbaseline:\n", want: func(s *Settings) {
		s.URL = "http://127.0.0.1:9/mcp"
	}, lines: map[string]int{"server": 1, "server.url": 3}},
	{name: "every key", yaml: fullFile, want: func(s *Settings) {
		s.Probes = []map[string]any{{"name": "refuses-dotdot", "tool": "read_note",
			"args": map[string]any{"name": "{sandbox}/../canary/secret.txt"}, "expect": []any{"refused", "no_canary"}}}
		s.Command = "npx"
		s.Args = []string{"-y", "@modelcontextprotocol/server-filesystem", "{sandbox}"}
		s.Env = []KV{{"API_KEY", "sk-live-123456"}, {"LOG_LEVEL", "debug"}, {"DATA_DIR", "{sandbox}/data"}}
		s.URL = "http://127.0.0.1:{port}/mcp"
		s.Headers = []KV{{"Authorization", "Bearer abc"}, {"X-Trace", "on"}}
		s.Files = []File{{"config.json", `{"root": "{sandbox}"}`}, {"{sandbox}/etc/app.ini", "[app]\ndebug = true\n"}}
		s.Start = "node dist/http.js --port {port}"
		s.KeepEnv = []string{"HTTP_PROXY", "HTTPS_PROXY"}
		s.ScrubEnv = false
		s.SandboxDir = "/var/tmp/sm"
		s.MaxMiB = 2048
		s.LayersOff = []string{"seccomp", "fsize"}
		s.Services = []string{"tcp:127.0.0.1:5432", "unix:/var/run/postgresql/.s.PGSQL.5432"}
		s.Packs = []string{"core", "fs"}
		s.Hints = map[string]map[string]any{
			"fs": {"read_tool": "read_file", "depth": 3, "roots": []any{"{sandbox}", 2}},
			"db": {},
		}
		s.FailOn = "medium"
		s.AllowInconclusive = true
		s.Baseline = "old.json"
		s.Lock = "locks/notes.lock.json"
		s.StartTimeout = time.Minute
		s.CallTimeout = 1500 * time.Millisecond
		s.ProbeTimeout = 2 * time.Minute
		s.RunTimeout = 20 * time.Minute
		s.JSON, s.SARIF, s.JUnit = "out/report.json", "out/report.sarif", "out/junit.xml"
		s.DBAdminDSN = "postgres://admin:s3cret@127.0.0.1:5432/postgres"
	}, lines: map[string]int{
		"server": 2, "server.command": 3, "server.args": 4, "server.env": 5, "server.env.API_KEY": 6,
		"server.env.DATA_DIR": 8, "server.headers.X-Trace": 12, "server.files.{sandbox}/etc/app.ini": 15,
		"server.start": 18, "sandbox.network": 24, "sandbox.layers_off": 25, "sandbox.services": 26, "packs": 27, "hints": 28,
		"hints.fs": 29, "hints.fs.depth": 31, "hints.db": 33, "fail_on": 34, "allow_inconclusive": 35, "timeouts.call": 39, "timeouts.run": 41, "db.admin_dsn": 47,
	}},
	{name: "values for the server are taken as written", yaml: `server:
  command: ./server
  args: [--port, 8080, true, 1.50, "0x10"]
  env:
    PORT: 8080
    DEBUG: true
    RATIO: 0.5
    EMPTY: ""
`, want: func(s *Settings) {
		s.Command = "./server"
		s.Args = []string{"--port", "8080", "true", "1.50", "0x10"}
		s.Env = []KV{{"PORT", "8080"}, {"DEBUG", "true"}, {"RATIO", "0.5"}, {"EMPTY", ""}}
	}},
	{name: "map order is kept", yaml: "server:\n  command: x\n  env:\n    Z: 1\n    A: 2\n    M: 3\n", want: func(s *Settings) {
		s.Command = "x"
		s.Env = []KV{{"Z", "1"}, {"A", "2"}, {"M", "3"}}
	}},
	{name: "fail_on", yaml: "fail_on: critical\n", want: func(s *Settings) { s.FailOn = "critical" }},
	{name: "services", yaml: "sandbox:\n  services: [\"tcp:[::1]:5432\"]\n", want: func(s *Settings) {
		s.Services = []string{"tcp:[::1]:5432"}
	}, lines: map[string]int{"sandbox.services": 2}},
	{name: "layers_off", yaml: "sandbox:\n  layers_off:\n    - landlock\n    - namespaces\n", want: func(s *Settings) {
		s.LayersOff = []string{"landlock", "namespaces"}
	}, lines: map[string]int{"sandbox.layers_off": 2}},
	{name: "integers in YAML forms", yaml: "sandbox:\n  max_mib: 0x100\n", want: func(s *Settings) { s.MaxMiB = 256 }},
	{name: "empty lists", yaml: "packs: []\nserver:\n  args: []\n", want: func(s *Settings) { s.Args = []string{} }},
	{name: "url alone with headers", yaml: "server:\n  url: http://127.0.0.1:{port}/mcp\n  headers:\n    Authorization: \"Bearer {dsn}\"\n", want: func(s *Settings) {
		s.URL = "http://127.0.0.1:{port}/mcp"
		s.Headers = []KV{{"Authorization", "Bearer {dsn}"}}
	}},
}

func TestParseGoodFiles(t *testing.T) {
	for _, tc := range goodFiles {
		t.Run(tc.name, func(t *testing.T) {
			got, lines, err := Parse("sealmark.yaml", []byte(tc.yaml))
			require.NoError(t, err)
			want := Defaults()
			tc.want(&want)
			assert.Equal(t, &want, got)
			for key, line := range tc.lines {
				assert.Equal(t, line, lines[key], "line of %s", key)
			}
			if tc.yaml == "" {
				assert.Empty(t, lines)
			}
		})
	}
}

// badFiles are files Parse refuses, with the exact error. schema says the
// schema refuses them too (checked by the schema test).
var badFiles = []struct {
	name, yaml, want string
	schema           bool
}{
	// keys
	{"unknown key with suggestion", "server:\n  comand: npx\n", "sealmark.yaml:2: server.comand: unknown key (did you mean server.command?)", true},
	{"key in the wrong section", "command: npx\n", "sealmark.yaml:1: command: unknown key (did you mean server.command?)", true},
	{"key in another section", "server:\n  max_mib: 10\n", "sealmark.yaml:2: server.max_mib: unknown key (did you mean sandbox.max_mib?)", true},
	// A key that would not show (one space) or would break the one-problem
	// line (a line break) is quoted.
	{"blank key", "\" \": 1\n", `sealmark.yaml:1: " ": unknown key (did you mean db?)`, true},
	{"key with a line break", "\"a\\nb\": 1\n", `sealmark.yaml:1: "a\nb": unknown key (did you mean db?)`, true},
	{"dash instead of underscore", "sandbox:\n  keep-env: [A]\n", "sealmark.yaml:2: sandbox.keep-env: unknown key (did you mean sandbox.keep_env?)", true},
	{"misspelt section", "timeout:\n  start: 1s\n", "sealmark.yaml:1: timeout: unknown key (did you mean timeouts?)", true},
	{"unknown key far from any", "colour: blue\n", "sealmark.yaml:1: colour: unknown key", true},
	{"dotted key", "server.command: npx\n", `sealmark.yaml:1: server.command: unknown key (write it nested: "server:", then "command:" indented under it)`, true},
	{"key that is not a name", "? [a]\n: b\n", "sealmark.yaml:1: (top level): want a key name, got a list", false},
	{"duplicate key", "packs: [core]\nfail_on: low\npacks: [fs]\n", "sealmark.yaml:3: packs: duplicate key (first at line 1)", false},
	{"duplicate nested key", "server:\n  command: a\n  command: b\n", "sealmark.yaml:3: server.command: duplicate key (first at line 2)", false},
	{"duplicate env name", "server:\n  env:\n    A: 1\n    A: 2\n", "sealmark.yaml:4: server.env.A: duplicate key (first at line 3)", false},
	{"duplicate header in another case", "server:\n  headers:\n    X-A: 1\n    x-a: 2\n", "sealmark.yaml:4: server.headers.x-a: duplicate key (first at line 3)", false},
	{"duplicate hint", "hints:\n  fs:\n    a: 1\n    a: 2\n", "sealmark.yaml:4: hints.fs.a: duplicate key (first at line 3)", false},
	// active and yes
	{"active", "packs: [core]\nfail_on: low\n\nactive: true\n", "sealmark.yaml:4: active: --active cannot be set in a file; pass --active on the command line", true},
	{"--active in a section", "sandbox:\n  --active: true\n", "sealmark.yaml:2: sandbox.--active: --active cannot be set in a file; pass --active on the command line", true},
	{"Active in capitals", "Active: yes\n", "sealmark.yaml:1: Active: --active cannot be set in a file; pass --active on the command line", true},
	{"yes", "yes: true\n", "sealmark.yaml:1: yes: --yes cannot be set in a file; pass --yes on the command line", true},
	{"active as a hint", "hints:\n  exec:\n    active: true\n", "sealmark.yaml:3: hints.exec.active: --active cannot be set in a file; pass --active on the command line", true},
	{"yes deep in a hint", "hints:\n  db:\n    roles:\n      --yes: 1\n", "sealmark.yaml:4: hints.db.roles.--yes: --yes cannot be set in a file; pass --yes on the command line", false},
	{"active as a pack name under hints", "hints:\n  active: {}\n", "sealmark.yaml:2: hints.active: --active cannot be set in a file; pass --active on the command line", true},
	// types: strings
	{"string given a list", "server:\n  command: [npx]\n", "sealmark.yaml:2: server.command: want a string, got a list", true},
	{"string given a number", "server:\n  url: 123\n", "sealmark.yaml:2: server.url: want a string, got 123", true},
	{"string given a map", "baseline: {a: 1}\n", "sealmark.yaml:1: baseline: want a string, got a map", true},
	{"report path given a bool", "report:\n  json: true\n", "sealmark.yaml:2: report.json: want a string, got true", true},
	// lists
	{"args given a string", "server:\n  args: -y x\n", `sealmark.yaml:2: server.args: want a list of strings, got "-y x"`, true},
	{"args item a map", "server:\n  args:\n    - ok\n    - {a: 1}\n", "sealmark.yaml:4: server.args[1]: want a string, got a map", true},
	{"args item null", "server:\n  args: [~]\n", "sealmark.yaml:2: server.args[0]: want a string, got nothing", true},
	{"keep_env given a string", "sandbox:\n  keep_env: HTTP_PROXY\n", `sealmark.yaml:2: sandbox.keep_env: want a list of names, got "HTTP_PROXY"`, true},
	{"a service on another host", "sandbox:\n  services: [\"tcp:10.0.0.5:5432\"]\n", `sealmark.yaml:2: sandbox.services: service "tcp:10.0.0.5:5432": the host must be 127.0.0.1 or [::1] (a contained server reaches only loopback, and names are never resolved)`, true},
	{"layers_off given a string", "sandbox:\n  layers_off: landlock\n", `sealmark.yaml:2: sandbox.layers_off: want a list of names, got "landlock"`, true},
	{"packs item with a comma", "packs: [\"core,fs\"]\n", `sealmark.yaml:1: packs[0]: want a name, got "core,fs"`, true},
	{"packs item a number", "packs: [core, 7]\n", "sealmark.yaml:1: packs[1]: want a name, got 7", true},
	// maps
	{"env given a list", "server:\n  env: [A=1]\n", "sealmark.yaml:2: server.env: want a map, got a list", true},
	{"env value a map", "server:\n  env:\n    A: {b: 1}\n", `sealmark.yaml:3: server.env.A: want a value (write "" for an empty one), got a map`, true},
	{"env value missing", "server:\n  env:\n    TOKEN:\n", `sealmark.yaml:3: server.env.TOKEN: want a value (write "" for an empty one), got nothing`, true},
	{"env name with =", "server:\n  env:\n    A=B: x\n", "sealmark.yaml:3: server.env.A=B: not a valid variable name", true},
	{"header name with a space", "server:\n  headers:\n    Bad Name: x\n", "sealmark.yaml:3: server.headers.Bad Name: not a valid header name", true},
	{"header value with a line break", "server:\n  headers:\n    X-A: |\n      one\n      two\n", "sealmark.yaml:3: server.headers.X-A: a header value cannot hold a line break", false},
	{"file content a map", "server:\n  files:\n    config.json: {\"a\": 1}\n", "sealmark.yaml:3: server.files.config.json: want the file's content as a string (quote it, or use a | block), got a map", true},
	{"file content too big", "server:\n  files:\n    big.txt: " + strings.Repeat("x", MaxFileBytes+1) + "\n", "sealmark.yaml:3: server.files.big.txt: content is 65537 bytes; at most 65536", true},
	{"hints given a list", "hints: [fs]\n", "sealmark.yaml:1: hints: want a map, got a list", true},
	{"hints of a pack given a string", "hints:\n  fs: deep\n", `sealmark.yaml:2: hints.fs: want a map of hints for pack fs, got "deep"`, true},
	{"section given a string", "server: npx\n", `sealmark.yaml:1: server: want a map of settings, got "npx"`, true},
	// bool, int, duration, enums
	{"bool given a word", "sandbox:\n  scrub_env: no\n", `sealmark.yaml:2: sandbox.scrub_env: want true or false, got "no"`, true},
	{"bool given a quoted bool", "sandbox:\n  scrub_env: \"false\"\n", `sealmark.yaml:2: sandbox.scrub_env: want true or false, got "false"`, true},
	{"int given a word", "packs: [core]\n\nsandbox:\n  max_mib: lots\n", `sealmark.yaml:4: sandbox.max_mib: want an integer, got "lots"`, true},
	{"int given a float", "sandbox:\n  max_mib: 1.5\n", "sealmark.yaml:2: sandbox.max_mib: want an integer, got 1.5", true},
	{"int given a list", "sandbox:\n  max_mib: [1]\n", "sealmark.yaml:2: sandbox.max_mib: want an integer, got a list", true},
	{"duration given a word", "timeouts:\n  start: soon\n", `sealmark.yaml:2: timeouts.start: want a duration such as "30s", got "soon"`, true},
	{"duration given a number", "timeouts:\n  call: 30\n", `sealmark.yaml:2: timeouts.call: want a duration such as "30s", got 30`, true},
	{"fail_on not a severity", "fail_on: severe\n", `sealmark.yaml:1: fail_on: want low, medium, high or critical, got "severe"`, true},
	{"fail_on in capitals", "fail_on: HIGH\n", `sealmark.yaml:1: fail_on: want low, medium, high or critical, got "HIGH"`, true},
	{"fail_on info", "fail_on: info\n", `sealmark.yaml:1: fail_on: want low, medium, high or critical, got "info"`, true},
	{"network open", "sandbox:\n  network: open\n", "sealmark.yaml:2: sandbox.network: open is not supported yet", true},
	{"network something else", "sandbox:\n  network: half\n", `sealmark.yaml:2: sandbox.network: want closed, got "half"`, true},
	// YAML itself
	{"tab indentation", "server:\n\tcommand: npx\n", "sealmark.yaml:2: invalid YAML: found character that cannot start any token (indent with spaces, not tabs)", false},
	{"tab after spaces", "server:\n  command: npx\n\turl: x\n", "sealmark.yaml:2: invalid YAML: found a tab character that violates indentation (indent with spaces, not tabs)", false},
	{"unclosed list", "packs: [core, fs\n", "sealmark.yaml:1: invalid YAML: did not find expected ',' or ']'", false},
	{"error on the first line", "server: command: npx\n", "sealmark.yaml:1: invalid YAML: mapping values are not allowed in this context", false},
	{"unterminated string", "packs: [core]\nbaseline: \"old.json\n", "sealmark.yaml:2: invalid YAML: found unexpected end of stream", false},
	{"alias", "server:\n  command: &c npx\n  start: *c\n", "sealmark.yaml:3: server.start: YAML aliases are not supported; write the value out", false},
	{"second document", "packs: [core]\n---\npacks: [fs]\n", "sealmark.yaml:2: a second YAML document; sealmark.yaml holds one", false},
	{"empty second document", "---\npacks: [core]\n# next\n---\n", "sealmark.yaml:4: a second YAML document; sealmark.yaml holds one", false},
	{"top level a list", "- core\n- fs\n", "sealmark.yaml:1: want a map of settings at the top level, got a list", true},
	{"top level a string", "hello\n", `sealmark.yaml:1: want a map of settings at the top level, got "hello"`, true},
	// every problem at once
	{"several problems", "server:\n  comand: npx\nsandbox:\n  max_mib: lots\nactive: true\n",
		"sealmark.yaml:2: server.comand: unknown key (did you mean server.command?)\n" +
			`sealmark.yaml:4: sandbox.max_mib: want an integer, got "lots"` + "\n" +
			"sealmark.yaml:5: active: --active cannot be set in a file; pass --active on the command line", true},
}

func TestParseBadFiles(t *testing.T) {
	for _, tc := range badFiles {
		t.Run(tc.name, func(t *testing.T) {
			got, lines, err := Parse("sealmark.yaml", []byte(tc.yaml))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.Nil(t, got)
			assert.Nil(t, lines)
		})
	}
}

func TestParseNamesTheFileAsGiven(t *testing.T) {
	_, _, err := Parse("configs/ci.yaml", []byte("fail_on: never\n"))
	require.Error(t, err)
	assert.Equal(t, `configs/ci.yaml:1: fail_on: want low, medium, high or critical, got "never"`, err.Error())
}

func TestParseQuotesAtMostFortyCharactersOfAValue(t *testing.T) {
	_, _, err := Parse("sealmark.yaml", []byte("fail_on: "+strings.Repeat("a", 100)+"\n"))
	require.Error(t, err)
	assert.Equal(t, `sealmark.yaml:1: fail_on: want low, medium, high or critical, got "`+strings.Repeat("a", 40)+`..."`, err.Error())
}

func TestParseRefusesAnOversizedFile(t *testing.T) {
	_, _, err := Parse("sealmark.yaml", make([]byte, MaxConfigBytes+1))
	require.Error(t, err)
	assert.Equal(t, "sealmark.yaml: 1048577 bytes; a config file is at most 1048576", err.Error())
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "sealmark.yaml")
	require.NoError(t, os.WriteFile(good, []byte("server:\n  command: npx\n"), 0o600))

	s, lines, err := Load(good)
	require.NoError(t, err)
	assert.Equal(t, "npx", s.Command)
	assert.Equal(t, 2, lines["server.command"])

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("server:\n  comand: npx\n"), 0o600))
	_, _, err = Load(bad)
	require.Error(t, err)
	assert.Equal(t, bad+":2: server.comand: unknown key (did you mean server.command?)", err.Error())
}

func TestLoadMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "sealmark.yaml")
	_, _, err := Load(missing)
	require.Error(t, err)
	assert.Equal(t, missing+": no such config file (sealmark init writes one)", err.Error())
	assert.True(t, errors.Is(err, fs.ErrNotExist), "got %v, want an error matching fs.ErrNotExist", err)
}

func TestLoadRefusesWhatIsNotASmallFile(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Load(dir)
	require.Error(t, err)
	assert.Equal(t, dir+": is a directory; want a YAML file", err.Error())

	big := filepath.Join(dir, "big.yaml")
	require.NoError(t, os.WriteFile(big, make([]byte, MaxConfigBytes+1), 0o600))
	_, _, err = Load(big)
	require.Error(t, err)
	assert.Equal(t, big+": 1048577 bytes; a config file is at most 1048576", err.Error())
}

func TestLoadRefusesADevice(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no device file to open on Windows")
	}
	_, _, err := Load(os.DevNull)
	require.Error(t, err)
	assert.Equal(t, os.DevNull+": not a regular file; want a YAML file", err.Error())
}
