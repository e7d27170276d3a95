package engine

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/environ"
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
	// run with the inherited environment in a throwaway directory; the
	// harness waits until URL accepts connections, within StartTimeout.
	Start string
	// Files are small files (server.files) written into the sandbox before
	// the first start: Path is relative to the sandbox root or starts with
	// {sandbox}; placeholders expand in Content.
	Files []File
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
	// MaxMiB is sandbox.max_mib (default 1024); enforced by the size observer.
	MaxMiB int
	// LayersOff turns containment layers off (sandbox.layers_off), each of
	// Layers: the isolation line then says "off by config" for it, and
	// the run is CUSTOM. For diagnosing a server that cannot run contained
	// and for proving what a layer stops.
	LayersOff []string
	// Packs selects packs by name; empty means every pack.
	Packs []string
	// Active lets probes that change state run.
	Active bool
	// FailOn is the lowest severity that fails the run; default High.
	FailOn *packs.Severity
	// StartTimeout bounds a start: process start, initialize and the tool
	// list (default 30s). CallTimeout bounds one request (default 10s).
	StartTimeout, CallTimeout time.Duration
	// StdinGrace and TermGrace bound the shutdown steps (default 2s each).
	StdinGrace, TermGrace time.Duration
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
	// Version is the tool version written into the report.
	Version string
	// Catalog is the packs the run may choose from; default All.
	Catalog []packs.Pack
}

// Layers are the containment layers LayersOff can name: "landlock" (writes
// only inside the sandbox, TCP connects only to the harness's ports,
// signals scoped), "seccomp" (the egress observer: every connect and exec
// recorded, what is not the harness's refused), "namespaces" (pid and
// loopback-only network namespaces), "cgroup" (a cgroup v2 leaf, root
// only) and "fsize" (the per-file size cap).
var Layers = []string{"landlock", "seccomp", "namespaces", "cgroup", "fsize"}

// File is one staged file of server.files.
type File struct{ Path, Content string }

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
	def(&c.StdinGrace, 2*time.Second)
	def(&c.TermGrace, 2*time.Second)
	if c.MaxMiB <= 0 {
		c.MaxMiB = 1024
	}
	if c.Log == nil {
		c.Log = io.Discard
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
	return nil
}

func (c *Config) catalog() []packs.Pack {
	if c.Catalog != nil {
		return c.Catalog
	}
	return All
}
