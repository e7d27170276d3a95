package sealmarktest

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/version"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// Config says which server to start and how to test it. The zero value of
// every field is its default; a server needs Command, URL or a ConfigFile
// that names one. Each field names its sealmark.yaml key: the same file
// drives both sealmark run and go test.
type Config struct {
	// ConfigFile is a sealmark.yaml (relative to the package directory)
	// whose settings apply first; every field set below overrides its key
	// (a list or a map as a whole). Default none. The SEALMARK_* variables
	// do not apply to go test.
	ConfigFile string
	// Command is the stdio server's program (server.command): a name
	// looked up on the server's scrubbed PATH (the sandbox bin, then the
	// caller's PATH), or a path; a relative path resolves against the
	// package directory ({cwd}).
	Command string
	// Args are the program's arguments (server.args). Placeholders expand:
	// {sandbox} (the sandbox root, the server's working directory),
	// {sandbox_home}, {cwd} (the package directory) and {port} (a free
	// loopback port).
	Args []string
	// Env is server.env: variables the server needs, applied after the
	// scrubbed base and KeepEnv; placeholders expand in values. Values under
	// secret-looking names are masked in every output.
	Env map[string]string
	// URL is an HTTP server's MCP endpoint (server.url), a loopback URL;
	// placeholders expand ("http://127.0.0.1:{port}/mcp"). Default none: a
	// stdio server. With URL and no Start nothing is started.
	URL string
	// Start is the command line that starts the HTTP server at URL
	// (server.start), split on spaces (quotes group), placeholders expanded,
	// run in the sandbox's throwaway directory; default none.
	Start string
	// Headers go with every HTTP request (server.headers); their values are
	// masked in every output. Default none.
	Headers map[string]string
	// Files are small files staged into the sandbox before the first start
	// (server.files), path → content: a path relative to the sandbox root
	// or starting with {sandbox}/; placeholders expand in contents.
	Files map[string]string
	// KeepEnv names variables copied from the test's own environment when set
	// (sandbox.keep_env), for example HTTP_PROXY.
	KeepEnv []string
	// InheritEnv gives the server the test's whole environment instead of
	// the scrubbed one (sandbox.scrub_env: false). The run is CUSTOM.
	InheritEnv bool
	// NoSandbox runs without a sandbox: inherited environment, a throwaway
	// working directory. The run is CUSTOM.
	NoSandbox bool
	// SandboxDir is the sandbox's parent directory (sandbox.dir); default
	// the OS temp dir.
	SandboxDir string
	// KeepSandbox keeps the sandbox after the test and logs its path.
	KeepSandbox bool
	// FreshStarts starts the server afresh for every pack, even one that
	// could run on the start an earlier pack left running (--fresh-starts).
	// There is no Jobs: this door runs its packs one after another, each
	// a subtest (go test itself runs packages at once); the CLI's --jobs
	// gives the same report.
	FreshStarts bool
	// MaxMiB is the sandbox size limit (sandbox.max_mib, default 1024).
	MaxMiB int
	// LayersOff turns containment layers off (sandbox.layers_off): any of
	// "landlock", "seccomp", "namespaces", "cgroup" and "fsize". The report's
	// isolation line says "off by config" for each and the run is CUSTOM; an
	// unknown name fails the test before anything starts. For diagnosing a
	// server that cannot run contained.
	LayersOff []string
	// Services are host endpoints the server may reach (sandbox.services):
	// "tcp:127.0.0.1:5432" or "unix:/var/run/postgresql/.s.PGSQL.5432".
	// Each connection is recorded and the run stays STANDARD. Default none;
	// given, they replace the ConfigFile's.
	Services []string
	// Packs selects packs by name (packs); empty means every pack. go test
	// -run Packs/<name> selects further.
	Packs []string
	// Hints are per pack free-form keys the pack validates (hints);
	// default none. The fs pack takes tool name → {role, path, to},
	// deciding for the tools named what its guess would (a tool under a
	// name no guess takes, an argument that carries a path under another
	// name); an unknown key or role fails the test before anything starts,
	// a tool the server does not list once the tool list is read:
	//
	//	Hints: map[string]map[string]any{"fs": {"peek": map[string]any{"role": "read", "path": "ref"}}}
	Hints map[string]map[string]any
	// Active lets probes that change state (write, delete, exec) run.
	Active bool
	// FailOn is the lowest severity that fails the test (fail_on):
	// packs.Low, packs.Medium, packs.High or packs.Critical; the zero
	// value (packs.Info, which fails nothing) leaves fail_on as the
	// configuration file says, else high. Findings below it are logged.
	// Any other value fails the test before anything starts, with the
	// error of every fail bar (want low, medium, high or critical).
	FailOn packs.Severity
	// AllowInconclusive (allow_inconclusive) lets a probe at or above
	// FailOn that ended inconclusive, and a pack whose every probe was
	// inconclusive or not applicable (INCOMPLETE), pass: they are skipped
	// with the reason. By default such a probe fails its subtest, and such
	// a pack fails its pack's subtest, as sealmark run exits 3 for them.
	AllowInconclusive bool
	// Baseline is a JSON file of accepted findings (baseline, relative to
	// the package directory; sealmark baseline writes one): an accepted
	// finding is logged, not failed; an entry that matches no finding fails
	// the test. Default none.
	Baseline string
	// Lock is the tool lock sealmark pin wrote (lock, relative to the
	// package directory): core/tool-pin fails on every tool added,
	// removed or changed since (a rug pull between releases). Default
	// sealmark.lock.json beside ConfigFile (in the package directory
	// without one) when that file exists; else tool-pin is skipped as not
	// applicable.
	Lock string
	// Probes are your own table-driven probes (packs/table rows), run as a
	// pack of their own named ProbesPack (default "mine"), after the
	// standard packs: go test -run Packs/mine/<row> runs one row. They
	// replace the probes: of ConfigFile.
	Probes     []table.Row
	ProbesPack string
	// StartTimeout bounds each start of the server up to its tool list
	// (timeouts.start, default 30s, and never past the test's deadline);
	// CallTimeout bounds each request (timeouts.call, default 10s).
	StartTimeout, CallTimeout time.Duration
	// ProbeTimeout bounds each probe (timeouts.probe, default 5m): past it
	// the probe is inconclusive. RunTimeout bounds the whole run
	// (timeouts.run, default 1h, and never past the test's deadline).
	ProbeTimeout, RunTimeout time.Duration
}

// settings layers the Config over its ConfigFile (over the defaults), the
// way sealmark run layers its flags over sealmark.yaml, and checks the
// result.
func (c Config) settings() (*config.Resolved, error) {
	var file *config.Settings
	var lines map[string]int
	if c.ConfigFile != "" {
		var err error
		if file, lines, err = config.Load(c.ConfigFile); err != nil {
			return nil, err
		}
	}
	res, err := config.Resolve(file, lines, c.ConfigFile, nil, nil)
	if err != nil {
		return nil, err
	}
	s := &res.Settings
	set := func(key, field string) { res.Origins[key] = config.Origin{Key: key, From: "Config." + field} }
	str := func(dst *string, v, key, field string) {
		if v != "" {
			*dst = v
			set(key, field)
		}
	}
	list := func(dst *[]string, v []string, key, field string) {
		if v != nil {
			*dst = slices.Clone(v)
			set(key, field)
		}
	}
	str(&s.Command, c.Command, "server.command", "Command")
	list(&s.Args, c.Args, "server.args", "Args")
	if c.Env != nil {
		s.Env = kvs(c.Env)
		set("server.env", "Env")
	}
	str(&s.URL, c.URL, "server.url", "URL")
	str(&s.Start, c.Start, "server.start", "Start")
	if c.Headers != nil {
		s.Headers = kvs(c.Headers)
		set("server.headers", "Headers")
	}
	if c.Files != nil {
		s.Files = nil
		for _, kv := range kvs(c.Files) {
			s.Files = append(s.Files, config.File{Path: kv.Name, Content: kv.Value})
		}
		set("server.files", "Files")
	}
	list(&s.KeepEnv, c.KeepEnv, "sandbox.keep_env", "KeepEnv")
	if c.InheritEnv {
		s.ScrubEnv = false
		set("sandbox.scrub_env", "InheritEnv")
	}
	s.NoSandbox = s.NoSandbox || c.NoSandbox
	s.KeepSandbox = s.KeepSandbox || c.KeepSandbox
	s.FreshStarts = s.FreshStarts || c.FreshStarts
	str(&s.SandboxDir, c.SandboxDir, "sandbox.dir", "SandboxDir")
	if c.MaxMiB != 0 {
		s.MaxMiB = c.MaxMiB
		set("sandbox.max_mib", "MaxMiB")
	}
	list(&s.LayersOff, c.LayersOff, "sandbox.layers_off", "LayersOff")
	list(&s.Services, c.Services, "sandbox.services", "Services")
	list(&s.Packs, c.Packs, "packs", "Packs")
	if c.Hints != nil {
		s.Hints = c.Hints
		set("hints", "Hints")
	}
	if c.FailOn != packs.Info {
		s.FailOn = c.FailOn.String()
		set("fail_on", "FailOn")
	}
	if c.AllowInconclusive {
		s.AllowInconclusive = true
		set("allow_inconclusive", "AllowInconclusive")
	}
	str(&s.Baseline, c.Baseline, "baseline", "Baseline")
	str(&s.Lock, c.Lock, "lock", "Lock")
	if s.Lock == "" {
		s.Lock = engine.DefaultLock(c.ConfigFile)
	}
	if c.StartTimeout != 0 {
		s.StartTimeout = c.StartTimeout
		set("timeouts.start", "StartTimeout")
	}
	if c.CallTimeout != 0 {
		s.CallTimeout = c.CallTimeout
		set("timeouts.call", "CallTimeout")
	}
	if c.ProbeTimeout != 0 {
		s.ProbeTimeout = c.ProbeTimeout
		set("timeouts.probe", "ProbeTimeout")
	}
	if c.RunTimeout != 0 {
		s.RunTimeout = c.RunTimeout
		set("timeouts.run", "RunTimeout")
	}
	if c.Probes != nil {
		s.Probes = nil // the rows below replace the file's
	}
	var more []string
	if len(c.Probes) > 0 {
		more = append(more, c.rowsPack())
	}
	if err := engine.CheckSettings(res, catalogue.All, more...); err != nil {
		return nil, err
	}
	return res, nil
}

func (c Config) rowsPack() string {
	if c.ProbesPack != "" {
		return c.ProbesPack
	}
	return config.UserPack
}

// engine is the engine's Config for c, made the way the CLI makes it.
//
// The rows (Probes, else the probes: of ConfigFile) name their file for
// go test's lines: Probes are written in testFile (the file that called
// Server), the file's rows in ConfigFile.
func (c Config) engine(testFile string) (engine.Config, error) {
	res, err := c.settings()
	if err != nil {
		return engine.Config{}, err
	}
	ec, err := engine.FromSettings(res.Settings)
	if err != nil {
		return engine.Config{}, err
	}
	if len(c.Probes) > 0 {
		ec.Own, err = catalogue.Rows(c.rowsPack(), c.Probes, testFile)
	} else {
		ec.Own, err = catalogue.Own(res.Settings, filepath.Base(c.ConfigFile))
	}
	if err != nil {
		return engine.Config{}, err
	}
	ec.Active, ec.Version, ec.HintsAt, ec.Catalog = c.Active, Version, res.At, catalogue.All
	return ec, nil
}

// kvs is a map as config entries, sorted by name.
func kvs(m map[string]string) []config.KV {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	out := make([]config.KV, 0, len(m))
	for _, name := range names {
		out = append(out, config.KV{Name: name, Value: m[name]})
	}
	return out
}

// Version is the harness version written into reports: Sealmark's module
// version as the test binary's build information records it (the version
// your go.mod requires), or "dev" when unknown.
var Version = version.String()
