package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/smbin"
)

// doctorRun runs sealmark doctor in a fresh directory, with no config file
// or DSN coming from the test's own environment.
func doctorRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	freshDir(t)
	return sealmark(t, append([]string{"doctor"}, args...)...)
}

// freshDir moves the test to an empty directory and unsets the variables
// that would give doctor a config file or a DSN.
func freshDir(t *testing.T) {
	t.Setenv("SEALMARK_CONFIG", "")
	t.Setenv("SEALMARK_DB_ADMIN_DSN", "")
	t.Chdir(t.TempDir())
}

// recordDials replaces the DSN dialer with one that records and refuses.
func recordDials(t *testing.T) *[]string {
	var dialled []string
	saved := dialDSN
	dialDSN = func(addr string) error {
		dialled = append(dialled, addr)
		return &net.OpError{Op: "dial", Err: os.ErrDeadlineExceeded}
	}
	t.Cleanup(func() { dialDSN = saved })
	return &dialled
}

// checkLine matches one check line of doctor's output.
func checkLine(status, topic, text string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + status + ` +` + regexp.QuoteMeta(topic) + ` +` + text)
}

func TestDoctorGoodFixtureServer(t *testing.T) {
	argv := serverArgs(t, "")
	code, out, errOut := doctorRun(t, append([]string{"--"}, argv...)...)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Regexp(t, checkLine("ok", "config", "no config file"), out)
	assert.Regexp(t, checkLine("ok", "command", regexp.QuoteMeta(argv[0]+": "+argv[0]+", found on the sandbox's PATH")), out)
	assert.Regexp(t, checkLine("ok", "environment", "scrubbed: built from scratch; from yours only PATH \\(system part\\)"), out)
	assert.Regexp(t, checkLine("ok", "paths", "no real path"), out)
	assert.Regexp(t, checkLine("(ok|warn)", "isolation", "procs=pgid"), out)
	if runtime.GOOS == "linux" {
		assert.Regexp(t, checkLine("ok", "isolation", "/proc: present"), out)
	}
	if _, err := exec.LookPath("go"); err == nil {
		assert.Regexp(t, checkLine("ok", "programs", `sm-\* programs: (the helper is built: |not built yet: the first run builds it into )`), out)
	}
	assert.Contains(t, out, "settings (value, and where it came from):\n  server.command = "+argv[0]+"   (command after --)")
	assert.Contains(t, out, "sealmark doctor: 0 failed")
	assert.NotRegexp(t, `(?m)^fail `, out)
}

func TestDoctorMissingCommandNamesThePATH(t *testing.T) {
	code, out, _ := doctorRun(t, "--", "sealmark-no-such-program")
	assert.Equal(t, 2, code)
	assert.Regexp(t, checkLine("fail", "command", `command "sealmark-no-such-program": executable file not found in PATH \{sandbox\}/bin:`+regexp.QuoteMeta(os.Getenv("PATH"))+`$`), out)
	assert.Contains(t, out, "sealmark doctor: 1 failed")

	// With an inherited environment the PATH searched is the caller's own.
	code, out, _ = doctorRun(t, "--no-sandbox", "--", "sealmark-no-such-program")
	assert.Equal(t, 2, code)
	assert.Regexp(t, checkLine("fail", "command", `command "sealmark-no-such-program": executable file not found in PATH `+regexp.QuoteMeta(os.Getenv("PATH"))+`$`), out)
	assert.Regexp(t, checkLine("warn", "environment", "inherited .*the run is CUSTOM"), out)
}

func TestDoctorCommandOnlyOnARelativePATHEntry(t *testing.T) {
	freshDir(t)
	require.NoError(t, os.Mkdir("relbin", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("relbin", "sm-doctor-tool"), []byte("#!/bin/sh\n"), 0o755))
	t.Setenv("PATH", "relbin"+string(os.PathListSeparator)+os.Getenv("PATH"))
	code, out, errOut := sealmark(t, "doctor", "--", "sm-doctor-tool")
	assert.Equal(t, 2, code, errOut)
	assert.Regexp(t, checkLine("fail", "command", `command "sm-doctor-tool": executable file not found`), out)
	assert.Regexp(t, checkLine("fail", "command", regexp.QuoteMeta("your own PATH finds relbin/sm-doctor-tool only through a relative entry, which the server's PATH skips: write {cwd}/relbin/sm-doctor-tool")), out)
}

func TestDoctorBadConfigNamesFileAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ yaml, want string }{
		{"server:\n  comand: x\n", ":2: server.comand: unknown key (did you mean server.command?)"},
		{"server:\n  command: x\nsandbox:\n  max_mib: 0\n", ":4: sandbox.max_mib: want a positive number of MiB, got 0"},
		{"server:\n  command: x\nactive: true\n", ":3: active: --active cannot be set in a file"},
	} {
		path := filepath.Join(dir, "sealmark.yaml")
		require.NoError(t, os.WriteFile(path, []byte(tc.yaml), 0o644))
		code, out, _ := doctorRun(t, "--config", path)
		assert.Equal(t, 2, code, tc.yaml)
		assert.Regexp(t, checkLine("fail", "config", regexp.QuoteMeta(path+tc.want)), out)
		assert.Regexp(t, checkLine("(ok|warn)", "isolation", ""), out, "the machine is checked even when the config is not")
	}

	code, out, _ := doctorRun(t, "--config", filepath.Join(dir, "missing.yaml"))
	assert.Equal(t, 2, code)
	assert.Regexp(t, checkLine("fail", "config", regexp.QuoteMeta(filepath.Join(dir, "missing.yaml")+": no such config file (sealmark init writes one)")), out)

	code, out, _ = doctorRun(t)
	assert.Equal(t, 2, code)
	assert.Regexp(t, checkLine("fail", "config", "no server: set server.command"), out)
}

func TestDoctorReadsTheFileInTheWorkingDirectory(t *testing.T) {
	argv := serverArgs(t, "")
	freshDir(t)
	require.NoError(t, os.WriteFile("sealmark.yaml", []byte("server:\n  command: "+argv[0]+"\n  args: [__sealmark-fixture]\n"), 0o644))
	code, out, _ := sealmark(t, "doctor")
	assert.Equal(t, 0, code, out)
	assert.Regexp(t, checkLine("ok", "config", "sealmark.yaml: read and checked"), out)
	assert.Contains(t, out, "server.command = "+argv[0]+"   (sealmark.yaml:2)")
}

func TestDoctorNeverPrintsSecrets(t *testing.T) {
	const envSecret, keptSecret, dsnSecret = "sk-doctor-env-secret-0123", "tok-doctor-kept-secret-4567", "pw-doctor-dsn-secret-89"
	recordDials(t)
	t.Setenv("SM_DOCTOR_API_TOKEN", keptSecret)
	t.Setenv("SM_DOCTOR_PROXY", "http://user:"+keptSecret+"@127.0.0.1:3128")
	argv := serverArgs(t, "")
	code, out, errOut := doctorRun(t, append([]string{
		"--env", "API_KEY=" + envSecret, "--env", "PLAIN=" + envSecret,
		"--keep-env", "SM_DOCTOR_API_TOKEN,SM_DOCTOR_PROXY,SM_DOCTOR_UNSET", "--"}, argv...)...)
	t.Setenv("SEALMARK_DB_ADMIN_DSN", "postgres://admin:"+dsnSecret+"@127.0.0.1:5432/postgres")
	code2, out2, errOut2 := sealmark(t, append([]string{"doctor", "--env", "API_KEY=" + envSecret, "--"}, argv...)...)

	all := out + errOut + out2 + errOut2
	for _, secret := range []string{envSecret, keptSecret, dsnSecret} {
		assert.NotContains(t, all, secret)
	}
	assert.Equal(t, 0, code, out)
	assert.Regexp(t, checkLine("ok", "server.env", "API_KEY = <redacted>"), out)
	assert.Regexp(t, checkLine("ok", "server.env", "PLAIN = <redacted>"), out, "the value under a secret name is masked wherever it appears")
	assert.Regexp(t, checkLine("ok", "keep_env", "SM_DOCTOR_API_TOKEN is set and copied to the server: <redacted>"), out)
	assert.Regexp(t, checkLine("ok", "keep_env", `SM_DOCTOR_PROXY is set and copied to the server: "http://127.0.0.1:3128"`), out)
	assert.Regexp(t, checkLine("warn", "keep_env", "SM_DOCTOR_UNSET is not set in your environment: the server will not get it"), out)
	assert.Contains(t, out, "server.env.API_KEY = <redacted>   (flag --env)")
	assert.Equal(t, 2, code2, "the recording dialer refuses, so the DSN is unreachable")
	assert.Regexp(t, checkLine("fail", "db", regexp.QuoteMeta("db.admin_dsn: 127.0.0.1:5432 is not reachable")), out2)
}

func TestDoctorHTTPServer(t *testing.T) {
	const secret = "pw-doctor-url-secret-42"
	self, err := os.Executable()
	require.NoError(t, err)
	_, out, errOut := doctorRun(t, "--url", "http://admin:"+secret+"@127.0.0.1:9/mcp", "--header", "Authorization: Bearer "+secret,
		"--start", self+" __sealmark-fixture")
	assert.NotContains(t, out+errOut, secret)
	assert.Regexp(t, checkLine("ok", "server", regexp.QuoteMeta("an HTTP server at http://127.0.0.1:9/mcp")), out)
	assert.Regexp(t, checkLine("ok", "command", regexp.QuoteMeta(self+": "+self+", found on the sandbox's PATH")), out, "a --start server gets the scrubbed environment, as a stdio one does")
	assert.Contains(t, out, "header:Authorization = <redacted>")
}

func TestDoctorDialsOnlyLoopbackDSNs(t *testing.T) {
	dialled := recordDials(t)
	argv := serverArgs(t, "")
	for _, dsn := range []string{
		"postgres://admin:pw@192.0.2.10:5432/postgres",
		"postgresql://db.example.com/postgres",
		"host=203.0.113.5 port=5432 user=admin password='a b'",
		"postgres://admin@[2001:db8::1]:5432/x",
		"postgres://admin@127.0.0.1.example.com/x",
	} {
		t.Setenv("SEALMARK_DB_ADMIN_DSN", dsn)
		code, out, _ := sealmark(t, append([]string{"doctor", "--"}, argv...)...)
		assert.Equal(t, 0, code, dsn)
		assert.Regexp(t, checkLine("warn", "db", "db.admin_dsn: host .*: not checked: not a loopback address"), out, dsn)
	}
	t.Setenv("SEALMARK_DB_ADMIN_DSN", "host=/var/run/postgresql user=admin")
	_, out, _ := sealmark(t, append([]string{"doctor", "--"}, argv...)...)
	assert.Regexp(t, checkLine("warn", "db", regexp.QuoteMeta("db.admin_dsn: not checked: a Unix socket (/var/run/postgresql), not a loopback TCP address")), out)
	assert.Empty(t, *dialled, "nothing but loopback is ever dialled")

	for _, tc := range []struct{ dsn, addr string }{
		{"postgres://admin:pw@127.0.0.1:6543/postgres", "127.0.0.1:6543"},
		{"postgres://admin@localhost/postgres", "localhost:5432"},
		{"postgres://admin@[::1]:7000/x", "[::1]:7000"},
		{"host=127.0.0.2 port=7001", "127.0.0.2:7001"},
		{"postgres:///db?host=127.0.0.1&port=7002", "127.0.0.1:7002"},
	} {
		*dialled = nil
		t.Setenv("SEALMARK_DB_ADMIN_DSN", tc.dsn)
		sealmark(t, append([]string{"doctor", "--"}, argv...)...)
		assert.Equal(t, []string{tc.addr}, *dialled, tc.dsn)
	}
}

func TestDoctorReachesALoopbackDatabase(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	argv := serverArgs(t, "")
	t.Setenv("SEALMARK_DB_ADMIN_DSN", "postgres://admin:pw@"+l.Addr().String()+"/postgres")
	code, out, _ := sealmark(t, append([]string{"doctor", "--"}, argv...)...)
	assert.Equal(t, 0, code, out)
	assert.Regexp(t, checkLine("ok", "db", regexp.QuoteMeta("db.admin_dsn: "+l.Addr().String()+" is reachable")), out)

	addr := l.Addr().String()
	l.Close()
	code, out, _ = sealmark(t, append([]string{"doctor", "--"}, argv...)...)
	assert.Equal(t, 2, code, out)
	assert.Regexp(t, checkLine("fail", "db", regexp.QuoteMeta("db.admin_dsn: "+addr+" is not reachable: ")), out)
}

func TestDoctorPathWarningsAndLaunchers(t *testing.T) {
	code, out, _ := doctorRun(t, "--env", "MEMORY_FILE_PATH=/data/memory.json", "--", "npx", "-y", "@modelcontextprotocol/server-memory", "/srv/data")
	assert.Regexp(t, checkLine("warn", "paths", regexp.QuoteMeta("server.args[2] (/srv/data) points at a real path on this machine; valid calls may read or write it")), out)
	assert.Regexp(t, checkLine("warn", "paths", regexp.QuoteMeta("server.env MEMORY_FILE_PATH points at a real path on this machine; valid calls may read or write it")), out)
	assert.Regexp(t, checkLine("warn", "launcher", regexp.QuoteMeta("npx downloads @modelcontextprotocol/server-memory when it starts, and a contained server cannot download itself: install it first (npm install -g @modelcontextprotocol/server-memory)")), out)
	_ = code // npx may be missing on this machine; the warnings do not depend on it

	_, out, _ = doctorRun(t, "--", "uvx", "mcp-server-fetch")
	assert.Regexp(t, checkLine("warn", "launcher", regexp.QuoteMeta("uvx downloads mcp-server-fetch when it starts")), out)
}

func TestDoctorUsage(t *testing.T) {
	code, _, errOut := doctorRun(t, "--active", "--", "x")
	assert.Equal(t, 2, code, "doctor starts nothing: run's --active is not its flag")
	assert.Contains(t, errOut, "flag provided but not defined: -active")
	code, _, errOut = doctorRun(t, "--example")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "flag provided but not defined: -example")
	code, _, errOut = doctorRun(t, "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "usage: sealmark doctor")
	assert.Contains(t, errOut, "-keep-env", "run's layered flags are doctor's too")
	code, out, _ := doctorRun(t, "--fail-on", "severe", "--", "x")
	assert.Equal(t, 2, code)
	assert.Regexp(t, checkLine("fail", "config", `--fail-on: want low, medium, high or critical, got "severe"`), out)
}

func TestDSNAddress(t *testing.T) {
	for _, tc := range []struct{ dsn, host, port string }{
		{"postgres://u:p@db:6000/x", "db", "6000"},
		{"postgresql://u@127.0.0.1/x", "127.0.0.1", "5432"},
		{"postgres://u@[::1]:7/x", "::1", "7"},
		{"postgres:///x?host=/tmp", "/tmp", "5432"},
		{"host=h1,h2 port=1,2", "h1", "1"},
		{"  hostaddr = 127.0.0.1  port=9 password='x y\\' z'", "127.0.0.1", "9"},
		{"dbname=x", "", "5432"},
		{"postgres://u:p%zz@db/x", "", "5432"},
	} {
		host, port := dsnAddress(tc.dsn)
		assert.Equal(t, tc.host, host, tc.dsn)
		assert.Equal(t, tc.port, port, tc.dsn)
	}
	words := map[string]string{}
	for k, v := range dsnWords(`host=a password='p \'q\' r' user=u`) {
		words[k] = v
	}
	assert.Equal(t, map[string]string{"host": "a", "password": `p 'q' r`, "user": "u"}, words)
}

func TestDoctorWarnsAboutRelativeArguments(t *testing.T) {
	freshDir(t)
	require.NoError(t, os.MkdirAll("dist", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("dist", "index.js"), nil, 0o644))
	require.NoError(t, os.MkdirAll("notes", 0o755))
	code, out, _ := sealmark(t, "doctor", "--", "node", "dist/index.js", "./notes", "{cwd}/dist/index.js", "notes")
	assert.Equal(t, 0, code, "warnings do not fail doctor: %s", out)
	assert.Regexp(t, checkLine("warn", "paths", regexp.QuoteMeta("server.args[0] (dist/index.js) is a relative path to the server's program: the server runs in the sandbox root, where it does not exist; write {cwd}/dist/index.js")), out)
	assert.Regexp(t, checkLine("warn", "paths", regexp.QuoteMeta("server.args[1] (./notes) is relative: the server runs in the sandbox root, where ./notes is not ./notes of this directory; write {cwd}/notes for that one, or {sandbox}/<name> for a copy of your own")), out)
	assert.NotContains(t, out, "server.args[2]", "an argument placed with {cwd} is fine")
	assert.NotContains(t, out, "server.args[3]", "a bare word is a word, not a path, though a directory of that name is here")
}

// TestDoctorWithoutTheHelper: doctor warns when a run's sm-* programs
// would be starts of the sealmark binary, and says why.
func TestDoctorWithoutTheHelper(t *testing.T) {
	t.Setenv(smbin.HelperEnv, "off")
	code, out, errOut := doctorRun(t, append([]string{"--"}, serverArgs(t, "")...)...)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Regexp(t, checkLine("warn", "programs", regexp.QuoteMeta("sm-* programs: "+smbin.HelperEnv+"=off turns it off: they will be links to the sealmark binary")), out)
}
