package engine

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// Config is one run's settings, resolved by a front end. The zero value of
// every field is its default.
type Config struct {
	// Command is the stdio server's program: a name found on the scrubbed
	// PATH, or a path (a relative path resolves against Cwd).
	Command string
	// Shown is how the report shows Command; default Command as written.
	Shown string
	// Args are the program's arguments; placeholders expand.
	Args []string
	// Env is server.env as written; placeholders expand in values.
	Env []environ.KV
	// URL is an HTTP server's MCP endpoint (server.url), a loopback URL;
	// placeholders expand. With URL and no Start nothing is started: no
	// sandbox process, no canaries, and the packs that need them say so.
	URL string
	// Headers go with every HTTP request, the session's DELETE included
	// (server.headers); their values are masked in every output.
	Headers []environ.KV
	// Start launches the HTTP server for URL (server.start, --start): a
	// command line split on spaces (quotes group), placeholders expanded,
	// run as a stdio server is (the scrubbed environment, the canaries,
	// the sandbox root, contained); the harness waits until URL accepts
	// connections, within StartTimeout.
	Start string
	// Files are small files (server.files) written into the sandbox before
	// the first start: Path is relative to the sandbox root or starts with
	// {sandbox}; placeholders expand in Content.
	Files []File
	// Staged are host files copied byte for byte into the sandbox before
	// the first start, after Files, read-only (sealmark scan stages the
	// files an entry's arguments and env name): no placeholder expands in
	// their data, and no size bound but the caller's applies.
	Staged []Staged
	// KeepEnv names variables copied from the caller's environment.
	KeepEnv []string
	// InheritEnv gives the server the caller's environment (plus Env and the
	// canaries) instead of the scrubbed one, with a throwaway working
	// directory. The run is CUSTOM. (sandbox.scrub_env: false)
	InheritEnv bool
	// NoSandbox makes no sandbox: inherited environment, throwaway working
	// directory, packs needing the sandbox not applicable. The run is CUSTOM.
	NoSandbox bool
	// SandboxDir is the sandbox's parent directory; default the OS temp dir.
	SandboxDir string
	// KeepSandbox keeps the sandbox after the run and prints its path.
	KeepSandbox bool
	// FreshStarts starts the server afresh for every pack, even one that
	// could run on a start an earlier pack left running
	// (packs.Pack.SharesStart). The verdicts are the same; the run takes
	// longer. (--fresh-starts)
	FreshStarts bool
	// MaxMiB is sandbox.max_mib (default 1024); enforced by the size observer.
	MaxMiB int
	// LayersOff turns containment layers off (sandbox.layers_off), each of
	// Layers: the isolation line then says "off by config" for it, and
	// the run is CUSTOM. For diagnosing a server that cannot run contained
	// and for proving what a layer stops.
	LayersOff []string
	// Uncontained starts the server on a system without the containment
	// layers (not Linux, or a Linux without Landlock, namespaces and
	// seccomp), which is otherwise refused; the run is CUSTOM.
	// (--uncontained)
	Uncontained bool
	// Services are host endpoints outside the sandbox the server may reach
	// (sandbox.services, --service): "tcp:127.0.0.1:5432" (forwarded into
	// the server's network namespace) or
	// "unix:/var/run/postgresql/.s.PGSQL.5432". Every other unix socket
	// outside the sandbox and every other port is refused. Each connection
	// is recorded; the run stays STANDARD and the isolation line names
	// every service. Default none.
	Services []string
	// Packs selects packs by name; empty means every pack.
	Packs []string
	// OnlyProbes and SkipProbes are glob patterns (path.Match) over a
	// probe's pack/name, name or ID (--probes, --skip-probes): only the
	// probes OnlyProbes matches run (every one when empty), and none that
	// SkipProbes matches. A pattern that matches no probe is an error.
	OnlyProbes, SkipProbes []string
	// Active lets probes that change state run.
	Active bool
	// FailOn is the lowest severity that fails the run; default High.
	FailOn *packs.Severity
	// AllowInconclusive lets an inconclusive probe at or above FailOn, or
	// an INCOMPLETE pack, pass (report.Report.AllowInconclusive).
	AllowInconclusive bool
	// StartTimeout bounds a start: process start, initialize and the tool
	// list (default 30s). CallTimeout bounds one request (default 10s):
	// the floor of a probe's call bound, which grows to the server's
	// measured latency (latency.go: a quarter of its start time, or 20
	// round trips of its tool list, at most 4 times CallTimeout).
	StartTimeout, CallTimeout time.Duration
	// ProbeTimeout bounds one probe (default 5m), grown in the ratio the
	// call bound grew: past it the probe's calls are cancelled and it is
	// inconclusive. RunTimeout bounds the
	// whole run (default 1h): past it the run stops as on a signal.
	ProbeTimeout, RunTimeout time.Duration
	// StdinGrace and TermGrace bound the shutdown steps (default 2s each).
	StdinGrace, TermGrace time.Duration
	// MaxProcs (tasks: processes and threads) and MaxMemoryMiB limit a
	// contained server's cgroup leaf where the machine offers the
	// controllers (default MaxProcs and MaxMemory).
	MaxProcs, MaxMemoryMiB int
	// CPUPercent starves a contained server: its cgroup leaf gets that
	// percentage of one CPU (contain.Options.CPUPercent), as on a loaded
	// machine. It is for the load test (internal/starve), no setting of
	// the CLI or the config file; where the leaf cannot carry the limit
	// the run warns and the server runs unlimited. Default 0: no limit.
	CPUPercent int
	// Cwd is {cwd}: where the harness was started from; default the
	// working directory.
	Cwd string
	// Harness is the binary the sandbox's sm-* programs run; default
	// os.Executable().
	Harness string
	// Caller is the harness's own environment; default os.Environ().
	Caller []string
	// Log receives warnings and progress lines; default io.Discard.
	Log io.Writer
	// SweepLog receives what the start of the run removed of earlier,
	// dead runs (their sandboxes, processes and observer directories),
	// which is no part of this server's run; default Log. A front end
	// running several servers gives it a log of its own, so that no
	// server's lines carry another run's cleanup.
	SweepLog io.Writer
	// Version is the tool version written into the report.
	Version string
	// DBAdminDSN is db.admin_dsn: the PostgreSQL admin connection string
	// the db pack makes its throwaway database and roles through (a
	// loopback host); "" means SEALMARK_DB_ADMIN_DSN, and without either
	// the db pack is not applicable.
	DBAdminDSN string
	// Observers are the run's observers beyond the built-in ones (files,
	// loopback, upstream, process, sockets, limits, size), in order: each
	// is made once the sandbox is, begun before and collected after every
	// probe as they are (Pass.Observed), closed with the run and named in
	// the isolation line. Default none; a run without a sandbox makes
	// none. (docs/adding-an-observer.md)
	Observers []Observe
	// Catalog is the packs the run may choose from, in run order
	// (catalogue.All is every pack Sealmark ships); New refuses none.
	Catalog []packs.Pack
	// Own is the user's own probes as a pack (sealmark.yaml's probes:
	// rows or sealmarktest.Config.Probes, made one by catalogue.Rows), run
	// after the catalogue's packs; naming it in Packs runs it once. Nil
	// means none.
	Own *packs.Pack
	// Hints are per pack free-form keys the pack validates (hints: in
	// sealmark.yaml); Pack.Prepare and Pack.Starts get their pack's. The fs pack's are tool
	// name → {role, path, to} (see fs.ParseHints), replacing its guess for
	// the tools they name: an unknown key or role fails Validate, a hinted
	// tool the server does not list fails the run once the tool list is
	// read.
	Hints map[string]map[string]any
	// HintsAt says where a hints key came from, to prefix its errors
	// ("sealmark.yaml:7: hints.fs.peek"); nil names the key alone.
	HintsAt func(key string) string
	// Baseline accepts known findings: an accepted finding does not fail
	// the run, an entry that matches no finding does. Nil means none.
	Baseline *report.Baseline
	// Lock is the tool lock (sealmark pin) core's tool-pin compares the
	// tool list with: every tool added, removed or changed since is a
	// finding. Nil means none, and tool-pin is not applicable.
	Lock *pin.Lock
	// Secrets are values the front end knows to be secret whatever their
	// name (a client config's credentials): each is masked as <redacted>
	// in every output, like a header value. Values shorter than
	// redact.MinSecretLen are ignored.
	Secrets []string
	// Custom are the reasons, from the front end, that make the run
	// CUSTOM (a scan that kept the host paths a client config gave).
	Custom []string

	// Jobs is how many packs may run at once (--jobs): past the first
	// start, a pack that would start the server afresh runs on a server
	// and sandbox of its own beside the others (parallel.go). 0 or 1 runs
	// them one after another; FromSettings makes --jobs 0 one per CPU.
	// Only Run (the CLI) runs packs at once.
	Jobs int

	noSweep  bool             // a part of a run: the run swept stale runs already
	prepared []packs.Prepared // each catalogue pack as its set-up left it (prepare), by Validate
	// credentialHomes are the homes whose credential stores a contained
	// server's namespace hides (contain.Options.Homes); nil is the harness
	// user's. Tests set it to a fake home (export_test.go).
	credentialHomes []string
}

// Layers are the containment layers LayersOff can name: "landlock" (writes
// only inside the sandbox, TCP connects only to the harness's ports,
// signals scoped), "seccomp" (the egress observer: every connect and exec
// recorded, what is not the harness's refused), "namespaces" (pid and
// loopback-only network namespaces), "cgroup" (a cgroup v2 leaf, root
// only), "fsize" (the per-file size cap), "quota" (the sandbox a
// filesystem of sandbox.max_mib, so a write past it fails; root only:
// without it the size limit is sampled) and "secrets" (the harness user's
// credential stores, and as root the host's root-only secrets, hidden in
// the server's mount namespace).
var Layers = []string{"landlock", "seccomp", "namespaces", "cgroup", "fsize", "quota", "secrets"}

// File is one staged file of server.files.
type File = config.File

// Staged is one host file copied into the sandbox: Path is relative to the
// sandbox root or starts with {sandbox}; Data is written as is, mode 0400.
type Staged struct {
	Path string
	Data []byte
}

// Severity returns the fail bar.
func (c *Config) failOn() packs.Severity {
	if c.FailOn == nil {
		return packs.High
	}
	return *c.FailOn
}

func (c *Config) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.StartTimeout, 30*time.Second)
	def(&c.CallTimeout, 10*time.Second)
	def(&c.ProbeTimeout, 5*time.Minute)
	def(&c.RunTimeout, time.Hour)
	def(&c.StdinGrace, 2*time.Second)
	def(&c.TermGrace, 2*time.Second)
	if c.MaxMiB <= 0 {
		c.MaxMiB = 1024
	}
	if c.MaxProcs <= 0 {
		c.MaxProcs = MaxProcs
	}
	if c.MaxMemoryMiB <= 0 {
		c.MaxMemoryMiB = MaxMemory >> 20
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.SweepLog == nil {
		c.SweepLog = c.Log
	}
	if c.Version == "" {
		c.Version = "dev"
	}
}

// Validate reports a usage or configuration error, naming what is wrong.
func (c *Config) Validate() error {
	switch {
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("no server command: give one (sealmark run -- COMMAND [ARGS...], or Config.Command), or an HTTP server's URL")
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("both a stdio command and an HTTP URL: an HTTP server the harness starts is given as Start (--start), not Command")
	case c.Start != "" && c.URL == "":
		return fmt.Errorf("Start (--start) needs the URL (--url) the started server answers on")
	}
	for _, l := range c.LayersOff {
		if !slices.Contains(Layers, l) {
			return fmt.Errorf("unknown containment layer %q in sandbox.layers_off (known: %s)", l, strings.Join(Layers, ", "))
		}
	}
	for _, sv := range c.Services {
		if _, err := contain.ParseService(sv); err != nil {
			return fmt.Errorf("sandbox.services: %v", err)
		}
	}
	known := map[string]bool{}
	for _, p := range c.catalog() {
		known[p.Name] = true
	}
	for _, name := range c.Packs {
		if !known[name] {
			return fmt.Errorf("unknown pack %q (known: %s)", name, packNames(c.catalog()))
		}
	}
	for _, kv := range c.Env {
		if kv.Name == "" {
			return fmt.Errorf("server.env: an entry has an empty name")
		}
	}
	if err := c.checkSelection(); err != nil {
		return err
	}
	return c.prepare()
}

// addOwn puts the user's own pack at the end of the catalog, selected
// once when Packs names packs.
func (c *Config) addOwn() {
	if c.Own == nil {
		return
	}
	c.Catalog = append(slices.Clone(c.catalog()), *c.Own)
	if len(c.Packs) > 0 && !slices.Contains(c.Packs, c.Own.Name) {
		c.Packs = append(slices.Clone(c.Packs), c.Own.Name)
	}
}

// FromSettings is the one way a front end makes the engine's Config: the
// CLI from its layered settings (config.Resolve), sealmarktest from its
// Config (and the sealmark.yaml it names). It makes all but the packs:
// Catalog (catalogue.All) and the user's rows of Settings.Probes
// (catalogue.Own) are the front end's to give, with Log and Version;
// Active too (it has no file or environment form).
func FromSettings(s config.Settings) (Config, error) {
	if s.URL != "" && s.Command != "" {
		return Config{}, errors.New("server.command and server.url: an HTTP server the harness starts is given as server.start (--start), not as the command")
	}
	sev, err := packs.ParseFailOn(s.FailOn)
	if err != nil {
		return Config{}, fmt.Errorf("fail_on: %v", err)
	}
	cfg := Config{
		Command: s.Command, Args: s.Args, KeepEnv: s.KeepEnv, InheritEnv: !s.ScrubEnv,
		NoSandbox: s.NoSandbox, SandboxDir: s.SandboxDir, KeepSandbox: s.KeepSandbox, FreshStarts: s.FreshStarts, Jobs: s.Jobs, MaxMiB: s.MaxMiB,
		LayersOff: s.LayersOff, Uncontained: s.Uncontained, Services: s.Services, Packs: s.Packs, OnlyProbes: s.OnlyProbes, SkipProbes: s.SkipProbes, FailOn: &sev, AllowInconclusive: s.AllowInconclusive, StartTimeout: s.StartTimeout, CallTimeout: s.CallTimeout,
		ProbeTimeout: s.ProbeTimeout, RunTimeout: s.RunTimeout,
		URL: s.URL, Start: s.Start, Hints: s.Hints, DBAdminDSN: s.DBAdminDSN,
	}
	if cfg.Jobs == 0 {
		cfg.Jobs = runtime.NumCPU() // --jobs 0: one per CPU
	}
	for _, kv := range s.Env {
		cfg.Env = append(cfg.Env, environ.KV{Name: kv.Name, Value: kv.Value})
	}
	for _, h := range s.Headers {
		cfg.Headers = append(cfg.Headers, environ.KV{Name: h.Name, Value: h.Value})
	}
	for _, fl := range s.Files {
		cfg.Files = append(cfg.Files, File{Path: fl.Path, Content: fl.Content})
	}
	if s.Baseline != "" {
		if cfg.Baseline, err = report.LoadBaseline(s.Baseline); err != nil {
			return Config{}, err
		}
	}
	if s.Lock != "" {
		if cfg.Lock, err = pin.Find(s.Lock, ""); err != nil {
			return Config{}, fmt.Errorf("lock: %v", err)
		}
	}
	return cfg, nil
}

// CheckSettings reports every problem of res no run can use: config's own
// checks, pack names not among cat and more (the user's own pack), and
// containment layers not among Layers.
func CheckSettings(res *config.Resolved, cat []packs.Pack, more ...string) error {
	var known []string
	for _, p := range cat {
		known = append(known, p.Name)
	}
	if len(res.Probes) > 0 {
		more = append(more, config.UserPack)
	}
	return errors.Join(res.Check(), res.CheckPacks(append(known, more...)), res.CheckLayers(Layers))
}
