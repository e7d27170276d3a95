package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/config"
)

// flagNames lists the flags of one command's flag set.
func flagNames(c command) []string {
	var names []string
	if c.flags != nil {
		c.flags(io.Discard).VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	}
	return names
}

func TestHelpListsEveryCommandFlagAndKey(t *testing.T) {
	code, top, _ := sealmark(t, "help")
	require.Equal(t, 0, code)
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		code, out, _ := sealmark(t, args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Equal(t, top, out, "%v prints what help prints", args)
	}
	for _, c := range commands {
		assert.Regexp(t, `(?m)^  `+c.name+` +\S`, top, "sealmark help lists %s", c.name)
		code, own, errOut := sealmark(t, "help", c.name)
		require.Equal(t, 0, code, "help %s: %s", c.name, errOut)
		assert.Contains(t, own, c.name, "help %s", c.name)
		for _, name := range flagNames(c) {
			assert.Contains(t, top, "--"+name, "sealmark help lacks %s --%s", c.name, name)
			assert.Regexp(t, `(?m)^  -`+regexp.QuoteMeta(name)+`\b`, own, "sealmark help %s lacks --%s", c.name, name)
		}
		if c.flags == nil {
			continue
		}
		fs := c.flags(io.Discard)
		fs.VisitAll(func(fl *flag.Flag) {
			assert.NotEmpty(t, fl.Usage, "%s --%s has no usage text", c.name, fl.Name)
		})
		// COMMAND -h prints the same text, on stderr, and exits 0.
		args := []string{c.name, "-h"}
		if c.name == "baseline" {
			args = []string{"baseline", "write", "-h"}
		}
		code, _, errOut = sealmark(t, args...)
		assert.Equal(t, 0, code, "%v", args)
		assert.Equal(t, own, errOut, "%v prints what help %s prints", args, c.name)
	}

	code, keys, _ := sealmark(t, "help", "config")
	require.Equal(t, 0, code)
	for _, r := range config.Reference() {
		if r.FileKey {
			assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(r.Key)+` `, keys, "help config lacks %s", r.Key)
		}
		for _, also := range []string{r.Flag, r.Env} {
			assert.Contains(t, keys, also, "help config lacks %s of %s", also, r.Key)
		}
	}
	assert.Contains(t, top, "sealmark help config")
	for _, exit := range []string{"0 no finding", "1 findings", "2 usage or configuration error", "3 the harness could not run", "128+n"} {
		assert.Contains(t, top, exit)
	}
}

func TestHelpErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "nope"}, `sealmark help: unknown topic "nope": want config or one of run, scan, merge, list, init, doctor, diff, baseline, pin, version, help`},
		{[]string{"help", "run", "init"}, "sealmark help: want one topic, got 2: run init"},
		{[]string{"baseline"}, "sealmark baseline: want the subcommand write, got nothing"},
		{[]string{"baseline", "read"}, `sealmark baseline: want the subcommand write, got "read"`},
	} {
		code, out, errOut := sealmark(t, tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out, "%v: errors go to stderr", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
	}
}

// flagError is a wrong use of one flag and what the error says.
type flagError struct {
	args []string
	want string
}

// flagErrors holds, for every flag of every command, a wrong use. A flag
// missing here fails TestEveryFlagHasAnErrorPath: a new flag needs one.
func flagErrors(t *testing.T) map[string]map[string]flagError {
	dir := t.TempDir()
	existing := filepath.Join(dir, "exists")
	require.NoError(t, os.WriteFile(existing, []byte("{}"), 0o600))
	report := filepath.Join(dir, "report.json")
	require.NoError(t, os.WriteFile(report, []byte(`{"schema":"sealmark.report/v1"}`), 0o600))
	out := filepath.Join(dir, "out.yaml")
	boolErr := func(name string) flagError {
		return flagError{[]string{"--" + name + "=maybe"}, `invalid boolean value "maybe" for -` + name}
	}
	run := map[string]flagError{
		"active":         {[]string{"--active", "--", "x"}, "--active needs confirmation: answer y on a terminal, or add --yes"},
		"baseline":       {[]string{"--baseline", "/nonexistent/b.json", "--", "x"}, "baseline: open /nonexistent/b.json: no such file or directory"},
		"call-timeout":   {[]string{"--call-timeout", "abc", "--", "x"}, `--call-timeout: want a duration such as "30s", got "abc"`},
		"probe-timeout":  {[]string{"--probe-timeout", "abc", "--", "x"}, `--probe-timeout: want a duration such as "30s", got "abc"`},
		"run-timeout":    {[]string{"--run-timeout", "0s", "--", "x"}, `flag --run-timeout: timeouts.run: want a positive duration, got 0s`},
		"config":         {[]string{"--config", "/nonexistent/sealmark.yaml", "--", "x"}, "/nonexistent/sealmark.yaml"},
		"env":            {[]string{"--env", "NOEQUALS", "--", "x"}, "--env: want NAME=VALUE"},
		"example":        {[]string{"--example", "--", "x"}, "--example runs the bundled server; give no command with it"},
		"explain-config": boolErr("explain-config"),
		"fail-on":        {[]string{"--fail-on", "severe", "--", "x"}, `--fail-on: want low, medium, high or critical, got "severe"`},
		"fixture":        {[]string{"--fixture", "zip", "--into", dir}, `--fixture "zip": want fs or git`},
		"header":         {[]string{"--url", "http://127.0.0.1:9/mcp", "--header", "NoColon"}, `--header: want "Name: value"; an entry has no ":"`},
		"into":           {[]string{"--into", dir}, "--fixture KIND and --into DIR go together"},
		"json":           {[]string{"--json", "/nonexistent/r.json", "--", "x"}, `flag --json: report.json: the directory "/nonexistent" does not exist`},
		"junit":          {[]string{"--junit", dir, "--", "x"}, `flag --junit: report.junit: "` + dir + `" is a directory`},
		"lock":           {[]string{"--lock", "/nonexistent/l.json", "--", "x"}, "lock: /nonexistent/l.json does not exist: sealmark pin writes it"},
		"keep-env":       {[]string{"--keep-env", "BAD=NAME", "--", "x"}, `--keep-env: want a comma-separated list of names, got "BAD=NAME"`},
		"keep-sandbox":   boolErr("keep-sandbox"),
		"fresh-starts":   boolErr("fresh-starts"),
		"layers-off":     {[]string{"--layers-off", "landlock,selinux", "--", "x"}, `flag --layers-off: sandbox.layers_off: unknown containment layer "selinux" (known: landlock, seccomp, namespaces, cgroup, fsize, quota, secrets)`},
		"max-mib":        {[]string{"--max-mib", "lots", "--", "x"}, `--max-mib: want an integer, got "lots"`},
		"jobs":           {[]string{"--jobs", "-1", "--", "x"}, `--jobs: want 0 (one per CPU) or more packs at once, got -1`},
		"no-sandbox":     boolErr("no-sandbox"),
		"uncontained":    boolErr("uncontained"),
		"packs":          {[]string{"--packs", "nope", "--", "x"}, `unknown pack "nope"`},
		"probes":         {[]string{"--probes", "core/[x", "--", "x"}, `--probes: "core/[x" is not a glob pattern: syntax error in pattern`},
		"skip-probes":    {[]string{"--skip-probes", "[", "--", "x"}, `--skip-probes: "[" is not a glob pattern: syntax error in pattern`},
		"quiet":          boolErr("quiet"),
		"sandbox-dir":    {[]string{"--sandbox-dir", "/nonexistent/x", "--", "x"}, `flag --sandbox-dir: sandbox.dir: "/nonexistent/x" is not a directory`},
		"sarif":          {[]string{"--sarif", "/nonexistent/r.sarif", "--", "x"}, `flag --sarif: report.sarif: the directory "/nonexistent" does not exist`},
		"sarif-category": {[]string{"--sarif-category", "/", "--", "x"}, `sealmark run: --sarif-category "/": want a name such as sealmark/notes`},
		"service":        {[]string{"--service", "tcp:db.example:5432", "--", "x"}, `--service: service "tcp:db.example:5432": the host must be 127.0.0.1 or [::1]`},
		"start":          {[]string{"--start", "x", "--", "y"}, "server.start (flag --start) needs server.url"},
		"timeout":        {[]string{"--timeout", "soon", "--", "x"}, `--timeout: want a duration such as "30s", got "soon"`},
		"url":            {[]string{"--url", "ftp://127.0.0.1/x"}, "flag --url: server.url: want an http or https URL"},
		"yes":            boolErr("yes"),
		"verbose":        boolErr("verbose"),
		"color":          {[]string{"--color", "sometimes", "--", "x"}, `invalid value "sometimes" for flag -color: want auto, always or never`},
	}
	run["allow-inconclusive"] = boolErr("allow-inconclusive")
	doctor := map[string]flagError{}
	for name, fe := range run {
		if !slices.Contains(runOnlyFlags, name) && !slices.Contains([]string{"fixture", "into"}, name) {
			doctor[name] = fe
		}
	}
	clientConfig := filepath.Join(dir, "mcp.json")
	require.NoError(t, os.WriteFile(clientConfig, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600))
	scanErrs := map[string]flagError{
		"list-configs":   boolErr("list-configs"),
		"jobs":           {[]string{"--jobs", "0", clientConfig}, "sealmark scan: --jobs: want 1 or more, got 0"},
		"only":           {[]string{"--only", "b", clientConfig}, "sealmark scan: --only: no server named b (the configurations have: a)"},
		"as-configured":  boolErr("as-configured"),
		"cache-dir":      {[]string{"--cache-dir", filepath.Join(clientConfig, "c"), clientConfig}, "sealmark scan: --cache-dir: mkdir " + clientConfig + ": not a directory"},
		"lock-dir":       {[]string{"--lock-dir", "/nonexistent/l", clientConfig}, `sealmark scan: --lock-dir: "/nonexistent/l" is not a directory`},
		"pin":            {[]string{"--pin", clientConfig}, "sealmark scan: --pin writes into --lock-dir; give one"},
		"sarif-category": {[]string{"--sarif-category", "/", clientConfig}, `sealmark scan: --sarif-category "/": want a name such as sealmark/notes`},
		"html":           {[]string{"--html", "/nonexistent/r.html", clientConfig}, `sealmark scan: flag --html: the directory "/nonexistent" does not exist`},
	}
	scanErrs["quiet"] = boolErr("quiet")
	scanErrs["verbose"] = boolErr("verbose")
	scanErrs["color"] = flagError{[]string{"--color", "sometimes", clientConfig}, `invalid value "sometimes" for flag -color: want auto, always or never`}
	scanErrs["allow-inconclusive"] = boolErr("allow-inconclusive")
	scanErrs["uncontained"] = boolErr("uncontained")
	for _, name := range []string{"packs", "fail-on", "timeout", "call-timeout", "probe-timeout", "run-timeout", "sandbox-dir", "max-mib", "layers-off", "json", "sarif", "junit"} { // run's, without "-- x"
		fe := run[name]
		scanErrs[name] = flagError{append(slices.Clone(fe.args[:len(fe.args)-2]), clientConfig), fe.want}
	}
	pinErrs := map[string]flagError{
		"config": run["config"],
		"lock":   {[]string{"--lock", "/nonexistent/l.json", "--", "x"}, `sealmark pin: flag --lock: lock: the directory "/nonexistent" does not exist`},
		"update": boolErr("update"),
		"quiet":  boolErr("quiet"),
	}
	for _, name := range pinLayered {
		pinErrs[name] = run[name]
	}
	return map[string]map[string]flagError{
		"run":    run,
		"pin":    pinErrs,
		"scan":   scanErrs,
		"doctor": doctor,
		"merge": {
			"fail-on": {[]string{"--fail-on", "severe", report}, `sealmark merge: --fail-on: want low, medium, high or critical, got "severe"`},
			"json":    {[]string{"--json", "/nonexistent/r.json", report}, `sealmark merge: flag --json: report.json: the directory "/nonexistent" does not exist`},
			"sarif":   {[]string{"--sarif", "/nonexistent/r.sarif", report}, `sealmark merge: flag --sarif: report.sarif: the directory "/nonexistent" does not exist`},
			"junit":   {[]string{"--junit", dir, report}, `sealmark merge: flag --junit: report.junit: "` + dir + `" is a directory`},
			"html":    {[]string{"--html", dir, report}, `sealmark merge: flag --html: "` + dir + `" is a directory`},
		},
		"init": {
			"env":   {[]string{"--out", out, "--env", "NOEQUALS", "--", "node"}, "sealmark init: --env: want NAME=VALUE"},
			"force": {[]string{"--out", existing, "--", "node"}, "sealmark init: " + existing + " exists; pass --force to overwrite it"},
			"out":   {[]string{"--out", "", "--", "node"}, "sealmark init: --out: want a file name"},
			"yes":   boolErr("yes"),
		},
		"list": {
			"json":  boolErr("json"),
			"wide":  boolErr("wide"),
			"packs": {[]string{"--packs", "nope"}, `sealmark list: --packs: unknown pack "nope" (known: core, fs, git, exec, effects, sqlite, db)`},
		},
		"diff": {
			"fail-on": {[]string{"--fail-on", "severe", report, report}, `sealmark diff: --fail-on: want low, medium, high or critical, got "severe"`},
		},
		"baseline": {
			"force":         {[]string{"write", "--out", existing, report}, "sealmark baseline write: " + existing + " exists; pass --force to overwrite it"},
			"out":           {[]string{"write", "--out", "", report}, "sealmark baseline write: --out: want a file name"},
			"justification": {[]string{"write", "--out", out, "--justification", "  ", report}, "sealmark baseline write: --justification: want a reason, got only spaces"},
		},
	}
}

func TestEveryFlagHasAnErrorPath(t *testing.T) {
	t.Chdir(t.TempDir()) // no ./sealmark.yaml of the caller's
	cases := flagErrors(t)
	for _, c := range commands {
		names := flagNames(c)
		for _, name := range names {
			fe, ok := cases[c.name][name]
			if !assert.True(t, ok, "%s --%s has no error-path case in flagErrors", c.name, name) {
				continue
			}
			args := append([]string{c.name}, fe.args...)
			code, out, errOut := sealmark(t, args...)
			assert.Equal(t, 2, code, "%v: stdout %s stderr %s", args, out, errOut)
			assert.Contains(t, out+errOut, fe.want, "%v", args)
		}
		for name := range cases[c.name] {
			assert.Contains(t, names, name, "flagErrors has a case for %s --%s, which does not exist", c.name, name)
		}
	}
}

// keyErrors holds, for every sealmark.yaml key, a file with a wrong value
// for it and the line the error must name.
var keyErrors = map[string]struct {
	yaml string
	line int
}{
	"server.command":     {"server:\n  command: [a]\n", 2},
	"server.args":        {"server:\n  args: {a: 1}\n", 2},
	"server.env":         {"server:\n  env: [a]\n", 2},
	"server.url":         {"server:\n  url: [a]\n", 2},
	"server.headers":     {"server:\n  headers: [a]\n", 2},
	"server.files":       {"server:\n  files: [a]\n", 2},
	"server.start":       {"server:\n  start: {a: 1}\n", 2},
	"sandbox.keep_env":   {"sandbox:\n  keep_env: {a: 1}\n", 2},
	"sandbox.scrub_env":  {"sandbox:\n  scrub_env: maybe\n", 2},
	"sandbox.dir":        {"sandbox:\n  dir: [a]\n", 2},
	"sandbox.max_mib":    {"sandbox:\n  max_mib: lots\n", 2},
	"sandbox.layers_off": {"sandbox:\n  layers_off: [seccomp, selinux]\n", 2},
	"sandbox.network":    {"sandbox:\n  network: open\n", 2},
	"sandbox.services":   {"sandbox:\n  services: [\"udp:127.0.0.1:53\"]\n", 2},
	"packs":              {"packs: {a: 1}\n", 1},
	"hints":              {"hints: [a]\n", 1},
	"probes":             {"probes: 5\n", 1},
	"fail_on":            {"fail_on: severe\n", 1},
	"allow_inconclusive": {"allow_inconclusive: maybe\n", 1},
	"baseline":           {"baseline: [a]\n", 1},
	"lock":               {"lock: [a]\n", 1},
	"timeouts.start":     {"timeouts:\n  start: soon\n", 2},
	"timeouts.call":      {"timeouts:\n  call: soon\n", 2},
	"timeouts.probe":     {"timeouts:\n  probe: soon\n", 2},
	"timeouts.run":       {"timeouts:\n  run: soon\n", 2},
	"report.json":        {"report:\n  json: [a]\n", 2},
	"report.sarif":       {"report:\n  sarif: [a]\n", 2},
	"report.junit":       {"report:\n  junit: [a]\n", 2},
	"db.admin_dsn":       {"db:\n  admin_dsn: [a]\n", 2},
}

func TestEveryKeyHasAnErrorPath(t *testing.T) {
	t.Chdir(t.TempDir())
	fileKeys := 0
	for _, r := range config.Reference() {
		if !r.FileKey {
			continue
		}
		fileKeys++
		ke, ok := keyErrors[r.Key]
		if !assert.True(t, ok, "key %s has no error-path case in keyErrors", r.Key) {
			continue
		}
		require.NoError(t, os.WriteFile("sealmark.yaml", []byte(ke.yaml), 0o600))
		for _, cmd := range []string{"run", "doctor"} {
			code, out, errOut := sealmark(t, cmd)
			assert.Equal(t, 2, code, "%s with %q", cmd, ke.yaml)
			assert.Regexp(t, `sealmark\.yaml:`+strconv.Itoa(ke.line)+`: `+regexp.QuoteMeta(r.Key)+`: \S`, out+errOut, "%s with %q", cmd, ke.yaml)
		}
	}
	assert.Len(t, keyErrors, fileKeys, "keyErrors names a key that is not one")
}

// The pages that document the CLI: the README names every command and
// the exit codes; docs/cli.md has every command, flag and exit code in
// full; docs/config.md every sealmark.yaml key and variable.
const (
	cliPage    = "../../docs/cli.md"
	configPage = "../../docs/config.md"
)

func TestDocsDocumentEveryCommandFlagAndKey(t *testing.T) {
	read := func(name string) string {
		raw, err := os.ReadFile(name)
		require.NoError(t, err)
		return string(raw)
	}
	readme, cli, cfg := read(readmeFile), read(cliPage), read(configPage)
	for _, c := range commands {
		assert.Contains(t, readme, "`sealmark "+c.name, "README.md lacks the command %s", c.name)
		assert.Contains(t, cli, "`sealmark "+c.name, "docs/cli.md lacks the command %s", c.name)
		for _, name := range flagNames(c) {
			assert.Regexp(t, "`--"+regexp.QuoteMeta(name)+"[` =]", cli, "docs/cli.md lacks %s --%s", c.name, name)
		}
	}
	for _, r := range config.Reference() {
		if r.FileKey {
			assert.Contains(t, cfg, "| `"+r.Key+"` |", "docs/config.md's key table lacks %s", r.Key)
		}
		if r.Env != "" {
			assert.Contains(t, cfg, "`"+r.Env+"`", "docs/config.md lacks %s", r.Env)
		}
	}
	for name, page := range map[string]string{"README.md": readme, "docs/cli.md": cli} {
		flat := strings.Join(strings.Fields(page), " ")
		for _, exit := range []string{"0 no finding at or above", "1 findings", "2 usage or configuration error", "3 the harness could not run", "128+n interrupted by signal n"} {
			assert.Contains(t, flat, exit, "%s's exit codes", name)
		}
	}
}
