package sealmarktest

import (
	"fmt"
	"slices"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// Config says which server to start and how to test it. The zero value of
// every field but Command is its default.
type Config struct {
	// Command is the stdio server's program: a name looked up on the
	// server's scrubbed PATH (the sandbox bin, then the caller's PATH), or a
	// path; a relative path resolves against the package directory ({cwd}).
	Command string
	// Args are the program's arguments. Placeholders expand: {sandbox} (the
	// sandbox root, the server's working directory), {sandbox_home}, {cwd}
	// (the package directory) and {port} (a free loopback port).
	Args []string
	// Env is server.env: variables the server needs, applied after the
	// scrubbed base and KeepEnv; placeholders expand in values. Values under
	// secret-looking names are masked in every output.
	Env map[string]string
	// KeepEnv names variables copied from the test's own environment when set
	// (sandbox.keep_env), for example HTTP_PROXY.
	KeepEnv []string
	// InheritEnv gives the server the test's whole environment instead of
	// the scrubbed one (sandbox.scrub_env: false). The run is CUSTOM.
	InheritEnv bool
	// NoSandbox runs without a sandbox: inherited environment, a throwaway
	// working directory. The run is CUSTOM.
	NoSandbox bool
	// SandboxDir is the sandbox's parent directory; default the OS temp dir.
	SandboxDir string
	// KeepSandbox keeps the sandbox after the test and logs its path.
	KeepSandbox bool
	// MaxMiB is the sandbox size limit (default 1024).
	MaxMiB int
	// LayersOff turns containment layers off (sandbox.layers_off): any of
	// "landlock", "seccomp", "namespaces", "cgroup" and "fsize". The report's
	// isolation line says "off by config" for each and the run is CUSTOM; an
	// unknown name fails the test before anything starts. For diagnosing a
	// server that cannot run contained.
	LayersOff []string
	// Packs selects packs by name; empty means every pack. go test -run
	// Packs/<name> selects further.
	Packs []string
	// Active lets probes that change state (write, delete, exec) run.
	Active bool
	// FailOn is the lowest severity that fails the test: "low", "medium",
	// "high" (the default) or "critical". Findings below it are logged.
	FailOn string
	// Probes are your own table-driven probes (packs/table rows), run as a
	// pack of their own named ProbesPack (default "mine"), after the
	// standard packs: go test -run Packs/mine/<row> runs one row.
	Probes     []table.Row
	ProbesPack string
	// StartTimeout bounds each start of the server up to its tool list
	// (default 30s); CallTimeout bounds each request (default 10s).
	StartTimeout, CallTimeout time.Duration
}

func (c Config) engine() (engine.Config, error) {
	ec := engine.Config{
		Command: c.Command, Args: c.Args, KeepEnv: c.KeepEnv, InheritEnv: c.InheritEnv,
		NoSandbox: c.NoSandbox, SandboxDir: c.SandboxDir, KeepSandbox: c.KeepSandbox, MaxMiB: c.MaxMiB,
		LayersOff: c.LayersOff, Packs: c.Packs, Active: c.Active, StartTimeout: c.StartTimeout, CallTimeout: c.CallTimeout,
		Version: Version,
	}
	names := make([]string, 0, len(c.Env))
	for name := range c.Env {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ec.Env = append(ec.Env, environ.KV{Name: name, Value: c.Env[name]})
	}
	if len(c.Probes) > 0 {
		name := c.ProbesPack
		if name == "" {
			name = "mine"
		}
		pk, err := table.Pack(name, c.Probes)
		if err != nil {
			return ec, fmt.Errorf("Config.Probes: %v", err)
		}
		ec.Catalog = append(slices.Clone(engine.All), pk)
		if len(ec.Packs) > 0 {
			ec.Packs = append(slices.Clone(ec.Packs), name)
		}
	}
	if c.FailOn != "" {
		s, err := packs.ParseSeverity(c.FailOn)
		if err != nil {
			return ec, fmt.Errorf("Config.FailOn: %v", err)
		}
		ec.FailOn = &s
	}
	return ec, nil
}

// Version is the harness version written into reports.
var Version = "dev"
