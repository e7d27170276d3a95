package config

import (
	"strings"
	"time"
)

// KV is one server.env or server.headers entry, in the order written.
type KV struct{ Name, Value string }

// File is one server.files entry, staged into the sandbox before the server
// starts. Path is relative to the sandbox root or starts with {sandbox}/;
// Content is at most MaxFileBytes bytes.
type File struct{ Path, Content string }

// Dir reports whether f makes an empty directory rather than a file: its
// path ends in a slash ("notes/"), and its content is empty.
func (f File) Dir() bool { return strings.HasSuffix(strings.ReplaceAll(f.Path, `\`, "/"), "/") }

// MaxFileBytes bounds the content of one server.files entry (64 KiB).
const MaxFileBytes = 64 << 10

// Settings are one run's settings as the CLI resolves them. Each field names
// its key in sealmark.yaml; Defaults gives the value of a key nobody set.
type Settings struct {
	Command string   // server.command: the stdio server's program
	Args    []string // server.args: its arguments; placeholders expand
	Env     []KV     // server.env: variables for the server, in the order written
	URL     string   // server.url: an HTTP server's MCP endpoint
	Headers []KV     // server.headers: HTTP headers sent with every request
	Files   []File   // server.files: small files staged into the sandbox
	Start   string   // server.start: the command that starts the HTTP server at URL

	KeepEnv     []string // sandbox.keep_env: variables copied from the caller's environment
	ScrubEnv    bool     // sandbox.scrub_env: build the environment from scratch (default true)
	NoSandbox   bool     // --no-sandbox (flag only)
	Uncontained bool     // --uncontained (flag only): start the server where containment is unavailable
	SandboxDir  string   // sandbox.dir: the sandbox's parent directory; default the OS temp dir
	MaxMiB      int      // sandbox.max_mib: the sandbox size limit (default 1024)
	LayersOff   []string // sandbox.layers_off: containment layers turned off (the run is CUSTOM)
	Services    []string // sandbox.services: host endpoints the server may reach (tcp:127.0.0.1:5432, unix:/path)
	KeepSandbox bool     // --keep-sandbox (flag only)
	FreshStarts bool     // --fresh-starts (flag only): no pack runs on another's start
	Jobs        int      // --jobs (flag only): packs run at once; 0 means one per CPU

	Packs []string                  // packs: the packs to run; empty means every pack
	Hints map[string]map[string]any // hints: per pack, free-form keys the pack validates

	// OnlyProbes and SkipProbes (--probes, --skip-probes; flags only) are
	// glob patterns (path.Match) over a probe's pack/name, name or ID: only
	// the probes OnlyProbes matches run (all when empty), and none that
	// SkipProbes matches.
	OnlyProbes, SkipProbes []string

	// Probes are the user's own table rows (probes:), as decoded; Parse
	// checks them with CheckRows, which the catalogue sets to the table
	// pack's own check (config knows no pack).
	Probes []map[string]any

	FailOn string // fail_on: low, medium, high (default) or critical
	// AllowInconclusive (allow_inconclusive): an inconclusive probe at or
	// above fail_on, or an INCOMPLETE pack, does not keep the run from
	// passing (default false: such a run exits 3).
	AllowInconclusive bool
	Baseline          string        // baseline: a previous JSON report whose findings are known
	Lock              string        // lock: the tool lock sealmark pin wrote (default sealmark.lock.json beside sealmark.yaml, when present)
	JSON              string        // report.json: where to write the JSON report
	SARIF             string        // report.sarif: where to write the SARIF report
	JUnit             string        // report.junit: where to write the JUnit report
	StartTimeout      time.Duration // timeouts.start: bound on one start up to the tool list (default 30s)
	CallTimeout       time.Duration // timeouts.call: bound on one request (default 10s)
	ProbeTimeout      time.Duration // timeouts.probe: bound on one probe (default 5m)
	RunTimeout        time.Duration // timeouts.run: bound on the whole run (default 1h)

	DBAdminDSN string // db.admin_dsn: the database administrator's connection string (db pack)
}

// Defaults returns the settings of a run nobody configured: ScrubEnv true,
// MaxMiB 1024, FailOn "high", StartTimeout 30s, CallTimeout 10s,
// ProbeTimeout 5m, RunTimeout 1h, everything else empty.
func Defaults() Settings {
	return Settings{
		ScrubEnv:     true,
		MaxMiB:       1024,
		FailOn:       "high",
		StartTimeout: 30 * time.Second,
		CallTimeout:  10 * time.Second,
		ProbeTimeout: 5 * time.Minute,
		RunTimeout:   time.Hour,
	}
}

// Origin says where a resolved value came from. From is "default", a file
// position ("sealmark.yaml:12", or the file's name alone when the line is not
// known), "env SEALMARK_PACKS", "flag --packs" or "command after --".
type Origin struct{ Key, From string }

// Resolved is the settings after every layer, with the origin of each value.
// Origins has an entry for every key (server.command, sandbox.max_mib, ...,
// and the flag-only --no-sandbox and --keep-sandbox) and one for every entry
// of a map-valued key (server.env.API_KEY, server.headers.Authorization,
// server.files.config.json, hints.fs and hints.fs.depth).
type Resolved struct {
	Settings
	Origins map[string]Origin
}

// from is where key's value came from, or "" when nobody recorded it.
func (r *Resolved) from(key string) string {
	return r.Origins[key].From
}

// UserPack is the name of the pack sealmark.yaml's probes: rows form.
const UserPack = "mine"
