package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/hostpath"
	"github.com/sealmark/sealmark/internal/netguard"
	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
)

// runOnlyFlags are flags of run that doctor does not take: they start
// something, write something or shape the report doctor does not write.
var runOnlyFlags = []string{"example", "fixture", "into", "active", "yes", "explain-config", "quiet", "sarif-category", "verbose", "color"}

// doctorFlags are run's flags without runOnlyFlags, sharing their values, so
// doctor resolves the settings exactly as run would.
func doctorFlags(stderr io.Writer) (*flag.FlagSet, *runFlags) {
	runSet, f := newRunFlags(io.Discard)
	set := flag.NewFlagSet("sealmark doctor", flag.ContinueOnError)
	set.SetOutput(stderr)
	runSet.VisitAll(func(fl *flag.Flag) {
		if !slices.Contains(runOnlyFlags, fl.Name) {
			set.Var(fl.Value, fl.Name, fl.Usage)
		}
	})
	set.Usage = func() {
		fmt.Fprint(stderr, "usage: sealmark doctor [--config FILE] [flags like run] [-- COMMAND [ARGS...]]\n\n"+
			"Checks the settings, the server command on the sandbox's PATH, the environment, real\n"+
			"paths, this machine's isolation and the db admin DSN. Starts nothing, runs no probe.\n"+
			"Exit 0 when nothing failed, 2 when something did.\n\nflags:\n")
		set.PrintDefaults()
	}
	return set, f
}

// dialDSN connects to a loopback database address; tests replace it.
var dialDSN = func(addr string) error {
	conn, err := netguard.Dialer(2*time.Second).Dial("tcp", addr)
	if err != nil {
		return err
	}
	return conn.Close()
}

// doctor prints one line per check and remembers whether one failed.
// Every line passes through mask, which knows the secret values of the
// settings, so none is ever printed.
type doctor struct {
	w              io.Writer
	mask           *redact.Redactor
	failed, warned int
}

func (d *doctor) line(status, topic, format string, a ...any) {
	text := d.mask.Mask(fmt.Sprintf(format, a...))
	for _, l := range strings.Split(text, "\n") {
		fmt.Fprintf(d.w, "%-5s %-12s %s\n", status, topic, l)
	}
}

func (d *doctor) ok(topic, format string, a ...any) { d.line("ok", topic, format, a...) }

func (d *doctor) warn(topic, format string, a ...any) {
	d.warned++
	d.line("warn", topic, format, a...)
}

func (d *doctor) fail(topic, format string, a ...any) {
	d.failed++
	d.line("fail", topic, format, a...)
}

// doctorCmd checks what a run would need without starting anything.
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	set, f := doctorFlags(stderr)
	if err := parseFlags(set, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	d := &doctor{w: stdout, mask: redact.New()}
	caller := os.Environ()
	res, err := resolve(f, set, set.Args())
	if err == nil {
		d.secrets(res, caller)
		err = runnable(res)
	}
	if err != nil {
		for _, l := range strings.Split(err.Error(), "\n") {
			d.fail("config", "%s", l)
		}
	} else {
		d.ok("config", "%s", configSource(f, caller))
	}
	if res != nil {
		d.command(res, caller)
		d.environment(res, caller)
		d.paths(res)
		d.database(res.DBAdminDSN)
		d.services(res.Services)
	}
	var off []string
	if res != nil && !res.NoSandbox {
		off = res.LayersOff
	}
	d.isolation(off, sandboxMiB(res))
	d.helper()
	if res != nil {
		fmt.Fprintln(stdout, "\nsettings (value, and where it came from):")
		var b strings.Builder
		if err := res.Explain(&b); err == nil {
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				fmt.Fprintln(stdout, "  "+d.mask.Mask(l))
			}
		}
	}
	fmt.Fprintf(stdout, "\nsealmark doctor: %d failed, %d warnings\n", d.failed, d.warned)
	if d.failed > 0 {
		return report.ExitUsage
	}
	return report.ExitClean
}

// runnable reports what run would refuse in resolved settings: missing
// directories (preflight), a baseline file it cannot use, and what the engine's configuration refuses.
func runnable(res *config.Resolved) error {
	if err := preflight(res); err != nil {
		return err
	}
	if res.Baseline != "" {
		if _, err := report.LoadBaseline(res.Baseline); err != nil {
			return err
		}
	}
	cfg, err := engineConfig(res, io.Discard)
	if err != nil {
		return err
	}
	return cfg.Validate()
}

// configSource says which file the settings came from (chosen the way
// resolve chooses it) and that they passed.
func configSource(f *runFlags, env []string) string {
	path := config.ConfigPath(env, f.configPath)
	if path == "" {
		if _, err := os.Stat("sealmark.yaml"); err == nil {
			path = "sealmark.yaml"
		}
	}
	if path == "" {
		return "no config file; the defaults, SEALMARK_* variables and flags are checked"
	}
	return path + ": read and checked, with the SEALMARK_* variables and flags"
}

// secrets registers every secret value the settings and the caller's kept
// variables hold, so no line can print one.
func (d *doctor) secrets(res *config.Resolved, caller []string) {
	for _, kv := range res.Env {
		if redact.SecretEnv(kv.Name, kv.Value) {
			d.mask.Secret(kv.Value, redact.MaskRedacted)
		}
	}
	for _, h := range res.Headers {
		d.mask.Secret(h.Value, redact.MaskRedacted)
	}
	for _, name := range res.KeepEnv {
		if v := environ.Value(caller, name); redact.SecretEnv(name, v) {
			d.mask.Secret(v, redact.MaskRedacted)
		}
	}
	if u, err := url.Parse(res.DBAdminDSN); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			d.mask.Secret(p, redact.MaskPassword)
		}
	}
	for key, value := range dsnWords(res.DBAdminDSN) {
		if k := strings.ToLower(key); k == "password" || k == "pwd" {
			d.mask.Secret(value, redact.MaskPassword)
		}
	}
}

// sandboxed reports whether the server's environment is scrubbed.
func sandboxed(s config.Settings) bool { return !s.NoSandbox && s.ScrubEnv }

// serverEnv is the server's environment as the engine builds it, with the
// sandbox's bin written as {sandbox}/bin (a relative entry no lookup uses).
func serverEnv(s config.Settings, caller []string) (env, inherited []string) {
	var own []environ.KV
	for _, kv := range s.Env {
		own = append(own, environ.KV{Name: kv.Name, Value: kv.Value})
	}
	return environ.Build(environ.Spec{
		Scrub: sandboxed(s), Bin: "{sandbox}/bin", Home: "{sandbox_home}", Tmp: "{sandbox_tmp}",
		KeepEnv: s.KeepEnv, ServerEnv: own, Caller: caller, GOOS: runtime.GOOS,
	})
}

// command checks that the server's program is found on the PATH its
// environment will have.
func (d *doctor) command(res *config.Resolved, caller []string) {
	s := res.Settings
	env, _ := serverEnv(s, caller) // a --start server's too
	where := "the sandbox's PATH"
	if !sandboxed(s) {
		where = "your PATH (the environment is inherited)"
	}
	if s.Command == "" {
		if s.URL != "" {
			d.ok("server", "an HTTP server at %s", redact.URL(s.URL))
		}
		if start := strings.Fields(s.Start); len(start) > 0 {
			d.lookup(start[0], environ.Value(env, "PATH"), where)
		}
		return
	}
	d.lookup(s.Command, environ.Value(env, "PATH"), where)
	d.launcher(s, env)
}

// lookup resolves name on path and prints where it was found, or fails
// naming the PATH searched.
func (d *doctor) lookup(name, path, where string) {
	cwd, _ := os.Getwd()
	found, lerr := environ.LookPath(name, path, cwd)
	if lerr == nil {
		d.ok("command", "%s: %s, found on %s", name, found, where)
		return
	}
	var err error = lerr
	if nf, ok := errors.AsType[*environ.NotFoundError](lerr); ok {
		err = errors.New(nf.Detail()) // doctor shows the PATH searched
	}
	if !strings.ContainsAny(name, `/\`) {
		switch own, oerr := exec.LookPath(name); {
		case errors.Is(oerr, exec.ErrDot):
			d.fail("command", "%v\nyour own PATH finds %s only through a relative entry, which the server's PATH skips: write {cwd}/%s", err, own, filepath.ToSlash(own))
			return
		case oerr == nil:
			d.fail("command", "%v\nyour own PATH finds %s, the server's does not (does server.env set PATH?): write its absolute path", err, own)
			return
		}
	}
	d.fail("command", "%v", err)
}

// launcher warns that npx and uvx download the server at start, which a
// contained server cannot do.
func (d *doctor) launcher(s config.Settings, env []string) {
	name := strings.ToLower(filepath.Base(s.Command))
	name = strings.TrimSuffix(strings.TrimSuffix(name, ".cmd"), ".exe")
	cacheVar, install := "", ""
	switch name {
	case "npx":
		cacheVar, install = "npm_config_cache", "npm install -g PACKAGE"
	case "uvx":
		cacheVar, install = "UV_CACHE_DIR", "uv tool install PACKAGE"
	default:
		return
	}
	pkg := "the package"
	for _, a := range s.Args {
		if !strings.HasPrefix(a, "-") {
			pkg = a
			install = strings.Replace(install, "PACKAGE", a, 1)
			break
		}
	}
	cache := "no cache directory of yours reaches the server"
	if dir := environ.Value(env, cacheVar); dir != "" {
		cache = fmt.Sprintf("the server sees your cache through %s=%s", cacheVar, dir)
	}
	d.warn("launcher", "%s downloads %s when it starts, and a contained server cannot download itself: install it first (%s), or run it once outside Sealmark so it is cached; %s", name, pkg, install, cache)
}

// environment says what the server's environment holds: scrubbed or
// inherited, each sandbox.keep_env variable, each server.env entry.
func (d *doctor) environment(res *config.Resolved, caller []string) {
	s := res.Settings
	_, inherited := serverEnv(s, caller)
	if sandboxed(s) {
		d.ok("environment", "scrubbed: built from scratch; from yours only %s", orNone(inherited))
	} else {
		var secretNames []string
		for _, e := range caller {
			if name, _, ok := strings.Cut(e, "="); ok && redact.SecretName(name) {
				secretNames = append(secretNames, name)
			}
		}
		slices.Sort(secretNames)
		what := "your whole environment"
		if len(secretNames) > 0 {
			what += ", including the secret-looking " + strings.Join(secretNames, ", ")
		}
		d.warn("environment", "inherited (--no-sandbox or sandbox.scrub_env: false): the server gets %s; the run is CUSTOM", what)
	}
	for _, name := range s.KeepEnv {
		v, set := lookupCaller(caller, name)
		switch {
		case !sandboxed(s):
		case !set:
			d.warn("keep_env", "%s is not set in your environment: the server will not get it", name)
		default:
			d.ok("keep_env", "%s is set and copied to the server: %s", name, shownValue(name, v))
		}
	}
	for _, kv := range s.Env {
		canary := kv.Name == environ.CanaryVar || kv.Name == environ.FakeAPIKeyVar
		d.ok("server.env", "%s = %s", kv.Name, redact.EnvValue(kv.Name, kv.Value, canary))
	}
}

func lookupCaller(env []string, name string) (string, bool) {
	for _, e := range env {
		if k, v, ok := strings.Cut(e, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// shownValue is a kept variable's value as doctor prints it: <redacted>
// under a secret-looking name or when token-shaped, else without a URL's
// user:password@, and bounded.
func shownValue(name, v string) string {
	if redact.SecretName(name) || redact.TokenShaped(v) {
		return redact.MaskRedacted
	}
	v = redact.URL(v)
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	return fmt.Sprintf("%q", v)
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, ", ")
}

// paths prints the seed's warning for every real path in server.args and
// server.env.
func (d *doctor) paths(res *config.Resolved) {
	var env []environ.KV
	for _, kv := range res.Env {
		env = append(env, environ.KV{Name: kv.Name, Value: kv.Value})
	}
	warnings := environ.PathWarnings(res.Args, env, "")
	if cwd, err := os.Getwd(); err == nil {
		warnings = append(warnings, relativeArgs(res.Args, cwd)...)
	}
	for _, w := range warnings {
		d.warn("paths", "%s", w)
	}
	if len(warnings) == 0 {
		d.ok("paths", "no real path in server.args or server.env")
		return
	}
	d.warn("paths", "use {sandbox}/<name> to keep such a file inside the sandbox (sealmark init offers it)")
}

// relativeArgs warns about each argument that is a relative path existing
// here: the server runs in the sandbox root, where it means something else
// (or nothing).
func relativeArgs(args []string, cwd string) []string {
	var out []string
	for i, a := range args {
		if fixed, what, ok := hostpath.OwnProgram(a, cwd); ok {
			out = append(out, fmt.Sprintf("server.args[%d] (%s) is a relative path to the server's %s: the server runs in the sandbox root, where it does not exist; write %s", i, a, what, fixed))
			continue
		}
		if prefix, p, relative, ok := hostpath.Find(a, cwd); ok && relative {
			out = append(out, fmt.Sprintf("server.args[%d] (%s) is relative: the server runs in the sandbox root, where %s is not ./%s of this directory; write %s{cwd}/%s for that one, or %s{sandbox}/<name> for a copy of your own",
				i, a, p, strings.TrimPrefix(p, "./"), prefix, filepath.ToSlash(filepath.Clean(p)), prefix))
		}
	}
	return out
}

// serviceTimeout bounds doctor's check of one declared service.
const serviceTimeout = 2 * time.Second

// services checks that each declared service (sandbox.services) answers:
// a connection to it is accepted within serviceTimeout. The harness dials
// only loopback addresses and unix paths; ParseService made sure of it.
func (d *doctor) services(list []string) {
	for _, raw := range list {
		sv, err := contain.ParseService(raw)
		if err != nil {
			d.fail("services", "%v", err)
			continue
		}
		c, err := net.DialTimeout(sv.Network, sv.Address, serviceTimeout)
		if err != nil {
			d.fail("services", "%s does not answer: %v (start it, or remove it from sandbox.services)", sv, err)
			continue
		}
		c.Close()
		d.ok("services", "%s answers; the server may reach it", sv)
	}
}

// probeLayers and doctorGOOS are contain.Probe and runtime.GOOS; tests set
// them to a system without the containment layers.
var (
	probeLayers = contain.Probe
	doctorGOOS  = runtime.GOOS
)

// isolation says which isolation mechanisms this machine offers
// (contain.Probe tries each once, in a child of its own) and whether /proc,
// which the process and sockets observers read, is there. The layers off
// (sandbox.layers_off) say "off by config", as a run's isolation line does.
func (d *doctor) isolation(off []string, maxMiB int) {
	i := probeLayers()
	if missing := engine.ContainmentMissing(doctorGOOS, i); missing != "" {
		d.fail("isolation", "%s: run and scan refuse to start a server unless --uncontained is given (the run is then CUSTOM); "+
			"run Sealmark on Linux (a Linux VM or WSL2 elsewhere)", missing)
	}
	if len(off) > 0 {
		i = layersOff(i, off, maxMiB)
		d.warn("isolation", "sandbox.layers_off: %s: the server runs with weaker containment and the run is CUSTOM", strings.Join(off, ", "))
	}
	if i.NetNS.Applied || i.LandlockNet.Applied {
		d.ok("isolation", "%s", i.Line())
	} else {
		d.warn("isolation", "%s", i.Line())
	}
	if fi, err := os.Stat("/proc/self/stat"); err != nil || fi.IsDir() {
		d.warn("isolation", "/proc: absent; the process and sockets observers see less")
		return
	}
	d.ok("isolation", "/proc: present")
}

// helper says how a run's sandbox will get its sm-* programs, building
// nothing (smbin.HelperStatus): without the helper they are starts of
// the sealmark binary, tens of milliseconds more each.
func (d *doctor) helper() {
	s, err := smbin.HelperStatus()
	if err != nil {
		d.warn("programs", "sm-* programs: %v: they will be links to the sealmark binary, each start tens of milliseconds slower", err)
		return
	}
	d.ok("programs", "sm-* programs: %s", s)
}

// layersOff narrows what the machine offers to what a run with the layers
// off gets: the engine's own mapping (engine.Isolation).
func layersOff(i contain.Isolation, off []string, maxMiB int) contain.Isolation {
	return engine.Isolation(i, off, maxMiB)
}

// sandboxMiB is sandbox.max_mib of res, or its default when res is nil.
func sandboxMiB(res *config.Resolved) int {
	if res == nil {
		return config.Defaults().MaxMiB
	}
	return res.MaxMiB
}

// database checks the db admin DSN: reachable when it names a loopback
// address; anything else is never dialled.
func (d *doctor) database(dsn string) {
	if dsn == "" {
		return
	}
	host, port := dsnAddress(dsn)
	switch {
	case host == "":
		d.warn("db", "db.admin_dsn: not checked: no host found in it")
	case strings.HasPrefix(host, "/") || strings.HasPrefix(host, "@"):
		d.warn("db", "db.admin_dsn: not checked: a Unix socket (%s), not a loopback TCP address", host)
	case !netguard.Loopback(host):
		d.warn("db", "db.admin_dsn: host %s: not checked: not a loopback address", host)
	default:
		addr := net.JoinHostPort(strings.Trim(host, "[]"), port)
		if err := dialDSN(addr); err != nil {
			d.fail("db", "db.admin_dsn: %s is not reachable: %v", addr, unwrapOp(err))
			return
		}
		d.ok("db", "db.admin_dsn: %s is reachable (a TCP connection, nothing sent)", addr)
	}
}

// unwrapOp drops net.OpError's address prefix, which repeats the address.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err
	}
	return err
}

// dsnAddress finds the host and port of a PostgreSQL connection string: a
// URL (postgres://user:pass@host:5432/db, ?host=... overriding) or
// key=value words (host=... port=...). The port defaults to 5432; a list
// of hosts yields the first.
func dsnAddress(dsn string) (host, port string) {
	port = "5432"
	if strings.Contains(dsn, "://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", port // never quote the parse error: it holds the DSN
		}
		host = u.Hostname()
		if p := u.Port(); p != "" {
			port = p
		}
		if q := u.Query(); q.Get("host") != "" {
			host = q.Get("host")
		}
		if q := u.Query(); q.Get("port") != "" {
			port = q.Get("port")
		}
	} else {
		for key, value := range dsnWords(dsn) {
			switch strings.ToLower(key) {
			case "host", "hostaddr":
				host = value
			case "port":
				port = value
			}
		}
	}
	host, _, _ = strings.Cut(host, ",")
	port, _, _ = strings.Cut(port, ",")
	return host, port
}

// dsnWords yields the key=value pairs of a libpq connection string, values
// optionally single-quoted with backslash escapes.
func dsnWords(dsn string) func(yield func(string, string) bool) {
	return func(yield func(string, string) bool) {
		s := dsn
		for {
			s = strings.TrimLeft(s, " \t\r\n")
			eq := strings.IndexByte(s, '=')
			if eq <= 0 {
				return
			}
			key := strings.TrimSpace(s[:eq])
			s = strings.TrimLeft(s[eq+1:], " \t")
			var value strings.Builder
			if strings.HasPrefix(s, "'") {
				i := 1
				for ; i < len(s) && s[i] != '\''; i++ {
					if s[i] == '\\' && i+1 < len(s) {
						i++
					}
					value.WriteByte(s[i])
				}
				s = s[min(i+1, len(s)):]
			} else {
				end := strings.IndexAny(s, " \t\r\n")
				if end < 0 {
					end = len(s)
				}
				value.WriteString(s[:end])
				s = s[end:]
			}
			if !yield(key, value.String()) {
				return
			}
		}
	}
}
