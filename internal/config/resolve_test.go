package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resolve parses yaml as sealmark.yaml and resolves it with env and flags.
func resolve(t *testing.T, yaml string, env []string, flags map[string]string) (*Resolved, error) {
	t.Helper()
	file, lines, err := Parse("sealmark.yaml", []byte(yaml))
	require.NoError(t, err)
	return Resolve(file, lines, "sealmark.yaml", env, flags)
}

// layersFile sets keys that the environment and flags set again.
const layersFile = `server:
  command: npx
  env:
    A: file
    B: file
packs: [core]
fail_on: low
sandbox:
  max_mib: 10
  keep_env: [HTTP_PROXY]
`

func TestResolveLaterLayersWin(t *testing.T) {
	env := []string{"SEALMARK_PACKS=fs, git", "SEALMARK_FAIL_ON=medium", "SEALMARK_MAX_MIB=20", "HOME=/home/x"}
	flags := map[string]string{"packs": "exec", "max-mib": "30", "env": "B=flag\nC=flag"}
	r, err := resolve(t, layersFile, env, flags)
	require.NoError(t, err)

	assert.Equal(t, []string{"exec"}, r.Packs, "flag over env over file")
	assert.Equal(t, 30, r.MaxMiB, "flag over env over file")
	assert.Equal(t, "medium", r.FailOn, "env over file")
	assert.Equal(t, "npx", r.Command, "file over default")
	assert.Equal(t, []string{"HTTP_PROXY"}, r.KeepEnv, "file over default")
	assert.Equal(t, []KV{{"A", "file"}, {"B", "flag"}, {"C", "flag"}}, r.Env, "--env merges into server.env")
	assert.Equal(t, 30*time.Second, r.StartTimeout, "default")

	want := map[string]string{
		"packs":            "flag --packs",
		"sandbox.max_mib":  "flag --max-mib",
		"fail_on":          "env SEALMARK_FAIL_ON",
		"server.command":   "sealmark.yaml:2",
		"server.env":       "sealmark.yaml:3",
		"server.env.A":     "sealmark.yaml:4",
		"server.env.B":     "flag --env",
		"server.env.C":     "flag --env",
		"sandbox.keep_env": "sealmark.yaml:10",
		"timeouts.start":   "default",
		"server.url":       "default",
		"--no-sandbox":     "default",
		"sandbox.network":  "default",
	}
	for key, from := range want {
		assert.Equal(t, Origin{Key: key, From: from}, r.Origins[key], "origin of %s", key)
	}
}

func TestResolveWithoutFile(t *testing.T) {
	r, err := Resolve(nil, nil, "", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, Defaults(), r.Settings)
	for _, s := range settings {
		assert.Equal(t, "default", r.Origins[s.key].From, "origin of %s", s.key)
	}
	assert.Len(t, r.Origins, len(settings))
}

func TestResolveFileWithoutLines(t *testing.T) {
	file := Defaults()
	file.Command = "npx"
	file.Env = []KV{{"A", "1"}}
	file.MaxMiB = 1024 // the default: not counted as set
	r, err := Resolve(&file, nil, "ci.yaml", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "ci.yaml", r.Origins["server.command"].From)
	assert.Equal(t, "ci.yaml", r.Origins["server.env.A"].From)
	assert.Equal(t, "default", r.Origins["sandbox.max_mib"].From)
}

func TestResolveDoesNotShareListsWithTheFile(t *testing.T) {
	file, lines, err := Parse("sealmark.yaml", []byte("server:\n  command: x\n  args: [a, b]\n  env:\n    A: 1\n"))
	require.NoError(t, err)
	r, err := Resolve(file, lines, "sealmark.yaml", nil, map[string]string{"env": "A=2"})
	require.NoError(t, err)
	r.Args[0] = "changed"
	assert.Equal(t, []string{"a", "b"}, file.Args)
	assert.Equal(t, []KV{{"A", "1"}}, file.Env)
}

func TestResolveEnvironment(t *testing.T) {
	env := []string{
		"SEALMARK_URL=http://127.0.0.1:9/mcp",
		"SEALMARK_KEEP_ENV=HTTP_PROXY,,NO_PROXY ",
		"SEALMARK_SCRUB_ENV=false",
		"SEALMARK_SANDBOX_DIR=/var/tmp",
		"SEALMARK_BASELINE=old.json",
		"SEALMARK_LOCK=pins.json",
		"SEALMARK_TIMEOUT=1m",
		"SEALMARK_CALL_TIMEOUT=2s",
		"SEALMARK_JSON=r.json",
		"SEALMARK_SARIF=r.sarif",
		"SEALMARK_JUNIT=r.xml",
		"SEALMARK_DB_ADMIN_DSN=postgres://a@127.0.0.1/db",
		"SEALMARK_FAIL_ON=CRITICAL",
		"SEALMARK_LAYERS_OFF=namespaces, seccomp",
		"SEALMARK_PACKS=",                      // empty: unset
		"SEALMARK_CANARY=sm-canary-0123456789", // belongs elsewhere
		"SEALMARK_FAKE_API_KEY=x",
		"SEALMARK_REPORT=x",
		"SEALMARK_RUN=x",
		"SEALMARK_SOMETHING_ELSE=x",
		"SEALMARK_URL=http://second/ignored", // the first wins, as os.Getenv
	}
	r, err := resolve(t, "packs: [core]\n", env, nil)
	require.NoError(t, err)
	want := Defaults()
	want.URL = "http://127.0.0.1:9/mcp"
	want.KeepEnv = []string{"HTTP_PROXY", "NO_PROXY"}
	want.ScrubEnv = false
	want.SandboxDir = "/var/tmp"
	want.Baseline = "old.json"
	want.Lock = "pins.json"
	want.StartTimeout, want.CallTimeout = time.Minute, 2*time.Second
	want.JSON, want.SARIF, want.JUnit = "r.json", "r.sarif", "r.xml"
	want.DBAdminDSN = "postgres://a@127.0.0.1/db"
	want.FailOn = "critical"
	want.LayersOff = []string{"namespaces", "seccomp"}
	want.Packs = []string{"core"}
	assert.Equal(t, want, r.Settings)
	assert.Equal(t, "env SEALMARK_CALL_TIMEOUT", r.Origins["timeouts.call"].From)
	assert.Equal(t, "env SEALMARK_LAYERS_OFF", r.Origins["sandbox.layers_off"].From)
	assert.Equal(t, "sealmark.yaml:1", r.Origins["packs"].From)
}

func TestResolveEnvironmentErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"active", []string{"SEALMARK_ACTIVE=1"}, "SEALMARK_ACTIVE: --active has no environment form; pass --active"},
		{"active even empty", []string{"SEALMARK_ACTIVE="}, "SEALMARK_ACTIVE: --active has no environment form; pass --active"},
		{"yes", []string{"SEALMARK_YES=true"}, "SEALMARK_YES: --yes has no environment form; pass --yes"},
		{"max mib", []string{"SEALMARK_MAX_MIB=lots"}, `SEALMARK_MAX_MIB: want an integer, got "lots"`},
		{"scrub env", []string{"SEALMARK_SCRUB_ENV=maybe"}, `SEALMARK_SCRUB_ENV: want true or false, got "maybe"`},
		{"timeout", []string{"SEALMARK_TIMEOUT=30"}, `SEALMARK_TIMEOUT: want a duration such as "30s", got "30"`},
		{"fail on", []string{"SEALMARK_FAIL_ON=info"}, `SEALMARK_FAIL_ON: want low, medium, high or critical, got "info"`},
		{"packs", []string{"SEALMARK_PACKS=core fs"}, `SEALMARK_PACKS: want a comma-separated list of names, got "core fs"`},
		{"layers off", []string{"SEALMARK_LAYERS_OFF=landlock seccomp"}, `SEALMARK_LAYERS_OFF: want a comma-separated list of names, got "landlock seccomp"`},
		{"all of them", []string{"SEALMARK_YES=1", "SEALMARK_CALL_TIMEOUT=x", "SEALMARK_ACTIVE=1"},
			"SEALMARK_ACTIVE: --active has no environment form; pass --active\n" +
				"SEALMARK_YES: --yes has no environment form; pass --yes\n" +
				`SEALMARK_CALL_TIMEOUT: want a duration such as "30s", got "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(nil, nil, "", tc.env, nil)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.Nil(t, r)
		})
	}
}

func TestResolveFlags(t *testing.T) {
	flags := map[string]string{
		"command":      `["node", "dist/index.js", "{sandbox}"]`,
		"url":          "http://127.0.0.1:{port}/mcp",
		"start":        "node dist/http.js",
		"header":       "authorization: Bearer new\nX-Extra:  1 ",
		"keep-env":     "A,B",
		"layers-off":   "cgroup,fsize",
		"sandbox-dir":  "/srv/sm",
		"no-sandbox":   "true",
		"keep-sandbox": "true",
		"fail-on":      "low",
		"baseline":     "b.json",
		"lock":         "l.json",
		"timeout":      "45s",
		"call-timeout": "3s",
		"json":         "r.json",
		"sarif":        "r.sarif",
		"junit":        "r.xml",
		// the CLI's own flags, not settings
		"config": "sealmark.yaml", "active": "true", "yes": "true", "example": "false", "fixture": "fs", "into": "/tmp/x",
	}
	yaml := "server:\n  command: npx\n  args: [old]\n  headers:\n    Authorization: Bearer old\n    X-Keep: k\n"
	r, err := resolve(t, yaml, nil, flags)
	require.NoError(t, err)
	assert.Equal(t, "node", r.Command)
	assert.Equal(t, []string{"dist/index.js", "{sandbox}"}, r.Args)
	assert.Equal(t, []KV{{"authorization", "Bearer new"}, {"X-Keep", "k"}, {"X-Extra", "1"}}, r.Headers)
	assert.Equal(t, "http://127.0.0.1:{port}/mcp", r.URL)
	assert.Equal(t, "node dist/http.js", r.Start)
	assert.Equal(t, []string{"A", "B"}, r.KeepEnv)
	assert.Equal(t, []string{"cgroup", "fsize"}, r.LayersOff)
	assert.Equal(t, "/srv/sm", r.SandboxDir)
	assert.True(t, r.NoSandbox)
	assert.True(t, r.KeepSandbox)
	assert.Equal(t, "low", r.FailOn)
	assert.Equal(t, "b.json", r.Baseline)
	assert.Equal(t, "l.json", r.Lock)
	assert.Equal(t, 45*time.Second, r.StartTimeout)
	assert.Equal(t, 3*time.Second, r.CallTimeout)
	assert.Equal(t, "r.json", r.JSON)
	assert.Equal(t, "r.sarif", r.SARIF)
	assert.Equal(t, "r.xml", r.JUnit)

	for key, from := range map[string]string{
		"server.command":               "command after --",
		"server.args":                  "command after --",
		"server.headers.authorization": "flag --header",
		"server.headers.X-Keep":        "sealmark.yaml:6",
		"server.headers.X-Extra":       "flag --header",
		"--no-sandbox":                 "flag --no-sandbox",
		"timeouts.start":               "flag --timeout",
		"sandbox.dir":                  "flag --sandbox-dir",
		"sandbox.layers_off":           "flag --layers-off",
	} {
		assert.Equal(t, from, r.Origins[key].From, "origin of %s", key)
	}
	_, stale := r.Origins["server.headers.Authorization"]
	assert.False(t, stale, "the replaced header's origin is gone")
}

func TestResolveFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags map[string]string
		want  string
	}{
		{"max mib", map[string]string{"max-mib": "lots"}, `--max-mib: want an integer, got "lots"`},
		{"layers off", map[string]string{"layers-off": "landlock seccomp"}, `--layers-off: want a comma-separated list of names, got "landlock seccomp"`},
		{"timeout", map[string]string{"timeout": "soon"}, `--timeout: want a duration such as "30s", got "soon"`},
		{"fail on", map[string]string{"fail-on": "severe"}, `--fail-on: want low, medium, high or critical, got "severe"`},
		{"no sandbox", map[string]string{"no-sandbox": "yes please"}, `--no-sandbox: want true or false, got "yes please"`},
		{"env without =", map[string]string{"env": "A=1\nTOKEN"}, `--env: want NAME=VALUE; an entry has no "="`},
		{"env without a name", map[string]string{"env": "=sk-live-secret"}, "--env: want NAME=VALUE; an entry has an empty name"},
		{"header without :", map[string]string{"header": "Bearer sk-live-secret"}, `--header: want "Name: value"; an entry has no ":"`},
		{"header with a bad name", map[string]string{"header": "Bad Name: sk-live-secret"}, `--header: want "Name: value"; "Bad Name" is not a valid header name`},
		{"command not JSON", map[string]string{"command": "npx -y"}, "command after --: want a JSON array of strings (the command and its arguments)"},
		{"command empty", map[string]string{"command": "[]"}, "command after --: empty; give the server's command"},
		{"unknown flag", map[string]string{"colour": "blue"}, "--colour: not a setting (config.Resolve does not know this flag)"},
		{"several", map[string]string{"timeout": "x", "max-mib": "y"},
			`--max-mib: want an integer, got "y"` + "\n" + `--timeout: want a duration such as "30s", got "x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(nil, nil, "", nil, tc.flags)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
			assert.NotContains(t, err.Error(), "sk-live-secret", "an error must not quote a value")
			assert.Nil(t, r)
		})
	}
}

func TestResolveEnvAndFlagErrorsTogether(t *testing.T) {
	_, err := Resolve(nil, nil, "", []string{"SEALMARK_MAX_MIB=x"}, map[string]string{"timeout": "y"})
	require.Error(t, err)
	assert.Equal(t, `SEALMARK_MAX_MIB: want an integer, got "x"`+"\n"+`--timeout: want a duration such as "30s", got "y"`, err.Error())
}

func TestConfigPath(t *testing.T) {
	env := []string{"HOME=/h", "SEALMARK_CONFIG=from-env.yaml"}
	assert.Equal(t, "flag.yaml", ConfigPath(env, "flag.yaml"), "the flag wins")
	assert.Equal(t, "from-env.yaml", ConfigPath(env, ""))
	assert.Equal(t, "", ConfigPath([]string{"HOME=/h"}, ""), "neither: no file")
}

func TestProbeGlobs(t *testing.T) {
	r, err := Resolve(nil, nil, "", nil, map[string]string{"probes": "core/secret-*, FS-READ-*", "skip-probes": "core/tool-drift"})
	require.NoError(t, err)
	assert.Equal(t, []string{"core/secret-*", "FS-READ-*"}, r.OnlyProbes)
	assert.Equal(t, []string{"core/tool-drift"}, r.SkipProbes)
	_, err = Resolve(nil, nil, "", nil, map[string]string{"probes": "core/[secret"})
	require.Error(t, err)
	assert.Equal(t, `--probes: "core/[secret" is not a glob pattern: syntax error in pattern`, err.Error())
}
