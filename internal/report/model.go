// Package report holds Sealmark's one report model and its writers.
//
//	r := redact.New()
//	r.Secret(canary, redact.MaskCanary)
//	r.Stable(sandboxRoot, "{sandbox}")
//	rep := &report.Report{Tool: report.Tool{Name: "sealmark", Version: "dev"}, Class: report.Standard}
//	// ... the engine fills Server, Sandbox, Packs, NotCovered ...
//	report.Finalize(rep, r) // redact, fingerprint, summarize
//	_ = report.WriteJSON(jsonFile, rep)
//	_ = report.WriteText(os.Stdout, rep)
//	os.Exit(report.ExitCode(rep, packs.High))
//
// Every writer reads the same model, and the model is redacted (see package
// redact) by Finalize before any writer sees it, so every format hides the
// same secrets. The JSON form is the stable, versioned schema (SchemaVersion)
// documented field by field below; ReadJSON reads it back.
package report

import (
	"time"

	"github.com/sealmark/sealmark/observers"

	"github.com/sealmark/sealmark/packs"
)

// SchemaVersion names the JSON schema of Report. It changes when a field
// changes meaning or goes away; new fields may appear without a change.
const SchemaVersion = "sealmark.report/v1"

// Classes of a run. Results compare only within a class.
const (
	Standard = "STANDARD"
	Custom   = "CUSTOM"
)

// Report is everything one run found. It is built by the engine, passed
// through Finalize (redaction, fingerprints, summary) and then handed to the
// writers; every writer reads the same finalized value.
type Report struct {
	// Schema is SchemaVersion for a report this package wrote. ReadJSON
	// refuses any other value.
	Schema string `json:"schema"`
	// Tool names the harness that wrote the report.
	Tool Tool `json:"tool"`
	// Class is STANDARD when the default sandbox and the standard packs'
	// defaults applied, CUSTOM otherwise; ClassReasons says what made it
	// CUSTOM, one reason each ("--no-sandbox", "sandbox.network: open", ...),
	// and is empty for STANDARD. Results compare only within a class.
	Class        string   `json:"class"`
	ClassReasons []string `json:"classReasons,omitempty"`
	// FailOn is the run's fail bar, a severity name ("high"): an open
	// finding at or above it fails the run, a lower one is a warning (see
	// Outcome). Empty means DefaultFailOn.
	FailOn string `json:"failOn,omitempty"`
	// AllowInconclusive is true when the run was told an untested check
	// does not block it (--allow-inconclusive): an inconclusive probe at or
	// above FailOn, or an INCOMPLETE pack, then leaves the exit code alone.
	AllowInconclusive bool `json:"allowInconclusive,omitempty"`
	// Server is the server under test as the user wrote it, redacted.
	Server Server `json:"server"`
	// Sandbox says what environment and containment the server had.
	Sandbox Sandbox `json:"sandbox"`
	// Protocol is what the first server start negotiated; empty when the
	// server never answered initialize.
	Protocol Protocol `json:"protocol"`
	// Warnings are sentences for the user that do not judge the server, such
	// as "server.env MEMORY_FILE_PATH points at a real path on this machine;
	// valid calls may read or write it". One per line in the text report.
	Warnings []string `json:"warnings,omitempty"`
	// Started and Finished bound the run. They are the only fields that
	// differ between two runs of the same deterministic server.
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Packs holds every pack that ran, in the order they ran. Finalize makes
	// it an empty list rather than null.
	Packs []Pack `json:"packs"`
	// NotCovered lists every pack or probe that did not run, and why.
	NotCovered []NotCovered `json:"notCovered,omitempty"`
	// Timeline holds what the observers saw that no probe owns: between
	// probes, at start-up, after shutdown, and loss records. What a probe
	// owns is in its Probe.Observations. Records are kind-discriminated
	// (observers.Kind*); a reader keeps kinds it does not know.
	Timeline []observers.Record `json:"timeline,omitempty"`
	// Summary counts verdicts and findings; Finalize computes it.
	Summary Summary `json:"summary"`
	// StaleBaseline lists baseline entries whose probe ran (passed or
	// failed) and matched no finding of it ("PROBE-ID fingerprint
	// (severity: message)"): a stale entry fails the run, so the baseline
	// never silently outlives the findings it accepted. An entry of a probe
	// that did not run, or could not judge, is not stale.
	StaleBaseline []string `json:"staleBaseline,omitempty"`
	// HarnessError is set when the harness could not run at all (the server
	// did not start, the sandbox could not be made, ...). Such a run is never
	// clean: ExitCode returns ExitHarness for it.
	HarnessError string `json:"harnessError,omitempty"`
}

// Tool names the harness.
type Tool struct {
	// Name is "sealmark".
	Name string `json:"name"`
	// Version is the harness's version ("dev" for an unreleased build).
	Version string `json:"version"`
}

// Server is the server under test as the user wrote it, redacted by the
// rules of package redact: command and args as written, the URL without a
// user:password@ part, env values by redact.EnvValue.
type Server struct {
	// Command is server.command, placeholders unexpanded; empty for a server
	// reached by URL alone.
	Command string `json:"command,omitempty"`
	// Args is server.args, placeholders unexpanded, not redacted.
	Args []string `json:"args,omitempty"`
	// URL is server.url (see redact.URL); empty for a stdio server.
	URL string `json:"url,omitempty"`
	// Env is server.env in the order written, then server.headers as
	// header:<Name>, then the canary variables as <canary> when the harness
	// added them.
	Env []EnvEntry `json:"env,omitempty"`
}

// EnvEntry is one variable of server.env (or one header) as the report shows it.
type EnvEntry struct {
	// Name is the variable's name, or "header:<Name>" for a header.
	Name string `json:"name"`
	// Value is as written, "<redacted>" under a secret-looking name, or
	// "<canary>" for a canary variable (see redact.EnvValue).
	Value string `json:"value"`
}

// Sandbox is the report's "sandbox:" line.
type Sandbox struct {
	// EnvMode is "scrubbed" (built from scratch) or "inherited" (the
	// caller's whole environment); empty when nothing was started.
	EnvMode string `json:"envMode"`
	// Inherited names what the scrubbed environment took from the caller's,
	// for example "PATH (system part)", "LANG".
	Inherited []string `json:"inherited,omitempty"`
	// Path is "{sandbox}" unless the sandbox was kept, then its real path
	// (Finalize leaves a kept sandbox's path unreplaced).
	Path string `json:"path,omitempty"`
	// Kept is true when the user asked to keep the sandbox (--keep-sandbox).
	Kept bool `json:"kept,omitempty"`
	// CleanupError is set when the harness failed to delete the sandbox: the
	// path it could not delete and why, as in "/tmp/sealmark-1/root/x:
	// permission denied". The path stays real (Finalize does not replace
	// it by a stable name), so the user can delete it. The text report
	// prints it as "sandbox: could not delete " followed by this value.
	CleanupError string `json:"cleanupError,omitempty"`
	// Isolation names the containment mechanisms that applied, comma
	// separated (empty when none did).
	Isolation string `json:"isolation,omitempty"`
	// MaxMiB is the size limit past which the harness stops the sandbox's
	// processes; 0 when no limit applied.
	MaxMiB int `json:"maxMiB,omitempty"`
}

// Protocol is what the first start negotiated.
type Protocol struct {
	// Era is "legacy" or "modern".
	Era string `json:"era,omitempty"`
	// Version is the negotiated protocol version, such as "2025-11-25".
	Version string `json:"version,omitempty"`
	// Transport is how the harness reached the server: "stdio", "http"
	// (streamable HTTP) or "http-sse" (the legacy HTTP+SSE transport).
	Transport string `json:"transport,omitempty"`
	// ServerName and ServerVersion are what the server said about itself in
	// its initialize result.
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
}

// Pack is one pack's results.
type Pack struct {
	// Name is the pack's kebab-case name ("core", "fs", ...).
	Name string `json:"name"`
	// Start names the start of a pack that asks for several (one entry
	// each, in order, see packs.Pack.Starts); empty for a pack's one start.
	Start string `json:"start,omitempty"`
	// Doc is the pack's one-line description.
	Doc string `json:"doc,omitempty"`
	// User is true for a pack of the user's own probes; it does not change
	// the run's class.
	User bool `json:"user,omitempty"`
	// SharedStart names the pack whose start of the server this pack ran
	// on instead of starting it again ("core": its drift check's start;
	// see packs.Pack.SharesStart); empty for a start of the pack's own.
	SharedStart string `json:"sharedStart,omitempty"`
	// Probes holds every probe of the pack that ran, in order.
	Probes []Probe `json:"probes"`
	// Incomplete is true when the pack gave no verdict of its own: at
	// least one probe inconclusive and every other not applicable (see
	// PackIncomplete). Finalize sets it. Unless AllowInconclusive, such a
	// pack keeps the run from exit 0 (ExitHarness).
	Incomplete bool `json:"incomplete,omitempty"`
}

// Probe is one probe's result.
type Probe struct {
	// ID is the probe's stable id ("CORE-SECRET-ECHO"); fingerprints hash it.
	ID string `json:"id"`
	// Name is the kebab-case name, the probe's go test -run segment.
	Name string `json:"name"`
	// Doc is the one-line rule the probe enforces.
	Doc string `json:"doc,omitempty"`
	// Verdict is pass, fail, not-applicable, inconclusive or error.
	Verdict packs.Verdict `json:"verdict"`
	// Severity is the probe's declared severity, the one its findings
	// usually carry.
	Severity packs.Severity `json:"severity"`
	// CWE is the weakness class the probe declares ("CWE-22"), empty for a
	// protocol-hygiene rule; SARIF gives only probes with one a
	// security-severity.
	CWE string `json:"cwe,omitempty"`
	// Reason explains a not-applicable, inconclusive or error verdict.
	Reason string `json:"reason,omitempty"`
	// Findings are the problems found; only those of a failing probe count
	// in the summary and the exit code.
	Findings []packs.Finding `json:"findings,omitempty"`
	// Observations are what the observers saw while the probe ran,
	// attributed to it by time and by its token.
	Observations []observers.Record `json:"observations,omitempty"`
	// ObservationsLeftOut counts the observations past
	// MaxProbeObservations that the report does not list (the findings
	// were judged on all of them).
	ObservationsLeftOut int `json:"observations_left_out,omitempty"`
	// Notes are remarks that do not judge the server (what was tried, what
	// was skipped).
	Notes []string `json:"notes,omitempty"`
	// Token is the probe's random token, "{token}" once redacted.
	Token string `json:"token,omitempty"`
	// Positions maps a finding's message, as the probe reported it, to
	// where in the probe's source it was reported (packs.Pass.Positions),
	// for go test's lines; no report output holds it.
	Positions map[string]string `json:"-"`
	// Millis is how long the probe ran, in milliseconds.
	Millis int64 `json:"millis"`
}

// NotCovered is a pack or probe that did not run.
type NotCovered struct {
	// Pack names the pack.
	Pack string `json:"pack"`
	// Probe names the probe; empty when the whole pack did not run.
	Probe string `json:"probe,omitempty"`
	// Reason says why, for example "not applicable: no path-taking tool".
	Reason string `json:"reason"`
}

// Summary counts verdicts and findings. Finalize computes it from Packs.
type Summary struct {
	// Verdicts counts probes by verdict; all five verdicts are present.
	Verdicts map[packs.Verdict]int `json:"verdicts"`
	// Outcomes counts the failing probes by what they mean for the run at
	// the report's FailOn (see Outcome): "fail" (an open finding at or
	// above it: exit 1), "warn" (open findings below it only) and
	// "accepted" (every finding accepted by the baseline); all three are
	// present.
	Outcomes map[Outcome]int `json:"outcomes"`
	// Findings counts the open (not accepted) findings of failing probes
	// by severity name ("critical", ...); all five severities are present.
	Findings map[string]int `json:"findings"`
	// AcceptedFindings counts the findings the baseline accepted.
	AcceptedFindings int `json:"acceptedFindings"`
	// PacksNotApplicable counts the packs that did not apply to the
	// server as a whole (each is under NotCovered with its reason).
	PacksNotApplicable int `json:"packsNotApplicable"`
	// PacksIncomplete counts the INCOMPLETE packs (Pack.Incomplete).
	PacksIncomplete int `json:"packsIncomplete,omitempty"`
	// NothingTested is true when no probe passed or failed: every selected
	// pack or probe was not applicable or inconclusive. Such a run is no
	// pass; ExitCode makes it ExitHarness.
	NothingTested bool `json:"nothingTested,omitempty"`
}
