// Package packs is Sealmark's probe vocabulary: a Pack is a value holding
// Probes, and a Probe is a value whose Run function judges one rule through
// the Pass the engine hands it.
//
//	var unknownMethod = packs.Probe{
//		ID:       "CORE-UNKNOWN-METHOD",
//		Name:     "unknown-method",
//		Severity: packs.Medium,
//		Doc:      "an unknown method must be answered with JSON-RPC error -32601",
//		Run: func(p *packs.Pass) {
//			res, err := p.Request("sealmark/no-such-method", nil)
//			if err != nil {
//				p.Reportf("no answer to an unknown method: %v", err)
//				return
//			}
//			if res.Error == nil || res.Error.Code != -32601 {
//				p.Reportf("unknown method answered with %s, want error -32601", res.Brief())
//			}
//		},
//	}
//
// Each pack lives in its own sub-package (packs/core, packs/fs, ...). A probe
// reaches the server, the sandbox and the observations only through its Pass;
// it never reaches into another pack.
package packs

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
)

// Probe is one rule and the function that checks it.
type Probe struct {
	// ID is stable across releases and upper-case ("CORE-SECRET-ECHO"); reports,
	// baselines and SARIF rules key on it.
	ID string
	// Name is kebab-case and becomes a go test -run segment ("secret-echo").
	Name string
	// Severity of a finding this probe reports, unless the finding says otherwise.
	Severity Severity
	// CWE names the weakness class when one fits ("CWE-200").
	CWE string
	// Doc states the rule in one line.
	Doc string
	// Active probes may change state (write, delete, exec); they run only when
	// the run is active (Config.Active, --active).
	Active bool
	// Requires is what the server must be for the rule to apply at all,
	// known before the probe runs (an HTTP transport, the modern era). A
	// server that is not (an HTTP check on a stdio server, a modern-era
	// rule on a legacy one) makes the probe not applicable by construction:
	// the engine records it without running it, and go test creates no
	// subtest for it, saying why in one line. Run still checks for itself.
	Requires Requirement
	// Run judges the rule. Reporting nothing is a pass.
	Run func(p *Pass)
	// Source, when set, is where a probe made from data is written, shown
	// as the position of all it reports ("server_test.go (row read-note)":
	// packs/table sets it for each row). Empty for a probe written in Go:
	// a finding shows at the Reportf that recorded it (Pass.Positions),
	// anything else at Run's own line.
	Source string
}

// Requirement is what a probe needs of the server to apply (Probe.Requires).
type Requirement uint8

// Requirements, combined with |.
const (
	// RequiresHTTP: an HTTP transport (streamable HTTP or HTTP+SSE).
	RequiresHTTP Requirement = 1 << iota
	// RequiresModern: the modern protocol era (ModernVersion and later).
	RequiresModern
)

// Pack is a named set of probes for one kind of server.
type Pack struct {
	Name string // kebab-case; a go test -run segment
	Doc  string
	// Applies decides from the server's own surface whether the pack applies.
	// Nil means every server. A pack that does not apply is skipped with why.
	Applies func(s *Surface) (ok bool, why string)
	Probes  []Probe
	// User marks a pack of the user's own probes (packs/table): reported
	// as theirs, it does not change the run's class.
	User bool
	// Prepare is the pack's one set-up hook, run once for every pack of
	// the catalogue when the engine is built, before anything starts:
	// through its Setup the pack reads its hints and the run's settings,
	// takes the run's form of itself (Setup.Use), and registers what it
	// needs of the run: sandbox files staged, placeholders defined,
	// stable names, secrets and services declared (Setup.OnOpen), its
	// hints checked against the first start's tools (Setup.OnSurface) and
	// its undoing (Setup.OnClose). Its error is a usage error naming what is wrong.
	// Nil means the pack needs no set-up.
	Prepare func(s *Setup) error
	// Starts, when set, asks for one start of the server per Start it
	// returns, each with its own extra placeholder values (a database pack
	// starts the server once per role, each with its own {dsn}); the
	// probes run on every start. Nil means one start with no extra values.
	// An error wrapping ErrNotApplicable makes the pack not applicable
	// with the error's text as the reason; any other error fails the pack.
	Starts func(s *Setup) ([]Start, error)
	// Canaries gives the pack's own start the canary secrets too (only the
	// first start gets them otherwise), for probes that judge where the
	// server's environment goes (the exec pack's children).
	Canaries bool
	// SharesStart runs the pack on a start of a stdio server that an
	// earlier pack of the run left running (core's drift check's, or that
	// of another pack that shares), instead of starting the server again,
	// and hands its own start on to the next pack that shares. Set it
	// when the pack's probes neither need a server no request has reached
	// yet nor leave it changed for the packs after them. The pack still
	// gets a fresh start when the held one's server exited, a probe on it
	// was abandoned or timed out twice, the pack asks for Starts, Canaries,
	// Relaunch or a GitLayout not staged when that server started, or the
	// run asks for fresh starts (engine.Config.FreshStarts,
	// --fresh-starts). The pack's probes see the start as their own: a
	// fresh Pass.Shared, what the observers saw from the server's start
	// up to the first probe on it (not what earlier packs' probes made it
	// do), and the canaries only when the pack is the run's first.
	SharesStart bool
	// Relaunch starts a stdio server afresh (handshake and all, the same
	// surface and Shared) before each probe of the pack that finds it
	// exited, so that one tool that kills the server (the exec pack's
	// finding) does not leave every later probe without one. Off, a probe
	// after the exit sees a dead server.
	Relaunch bool
	// GitLayout asks for the sandbox's git layout (root/repo,
	// root/hostile, root-evil/repo, canary/remote.git: Sandbox.Git)
	// before the pack's start: the sandbox is made with it when the pack
	// is the first selected, else it is staged just before the pack's
	// start, once the first start's surface shows the pack applies (it
	// costs over a dozen git commands). The git pack's.
	GitLayout bool
	// Restarted are probes run once Probes have, on a start of their own:
	// the pack's start is closed and the server started once more
	// (with the first start's canaries), so that they can compare that
	// start with the run's first (Pass.First): core's tool-drift. They
	// are selected, listed and counted like Probes, after them, and must
	// leave the server as they found it: their start is handed on to the
	// next pack that shares one (SharesStart). Nil means none.
	Restarted []Probe
	// StartLimits is the ID of the pack's probe that judges a process or
	// memory limit no probe owned (core's resource-limits): a limit the
	// server met while a start failed, before any probe ran, is graded
	// as that probe's finding, in the failed start's pack entry. "" means
	// none; the engine uses the first pack of its catalogue that names
	// one.
	StartLimits string
	// Inherited names the SDK ("mcp-go v1.2.1") whose own behaviour a
	// finding of the pack is, given the server's transport ("stdio",
	// "http"), the result of its first start's server/discover or
	// initialize as sent, the probe's ID and the finding's message as
	// the report shows it; "" when the finding is its author's. The
	// report labels the finding with it. Nil labels none
	// (internal/catalogue gives core packs/inherit's calibration).
	Inherited func(transport string, init json.RawMessage, probe, message string) string
}

// Start is one start of the server that a pack asks for (Pack.Starts).
type Start struct {
	// Name is kebab-case and becomes a go test -run segment between the
	// pack and its probes (Packs/db/reader/...) and the report's
	// Pack.Start. A single start may leave it empty.
	Name string
	// Vars are extra placeholder values, without braces ({dsn} is "dsn"):
	// they expand in server.args and server.env of this start (a stdio
	// server; an HTTP server is started once for the run),
	// and probes read them in Pass.Vars.
	Vars map[string]string
	// Secrets are values masked as <redacted> in every output (a password
	// inside a DSN of Vars).
	Secrets []string
	// Close undoes what made this start's values (drops a role, ...) after
	// the server stopped and the probes ran; nil when there is nothing to
	// undo. The engine calls it on every exit path once Starts returned.
	Close func()
}

// ErrNotApplicable marks an error of Pack.Starts as "the pack does not
// apply": fmt.Errorf("%w: no db.admin_dsn configured", packs.ErrNotApplicable).
var ErrNotApplicable = errors.New("not applicable")

var (
	idPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)
	namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// ValidName reports whether name is kebab-case, as pack, probe and start
// names must be (each becomes a go test -run segment).
func ValidName(name string) bool { return namePattern.MatchString(name) }

// ValidID reports whether id is of the form PACK-RULE in upper case, as a
// probe's ID must be ("CORE-SECRET-ECHO").
func ValidID(id string) bool { return idPattern.MatchString(id) }

// Check reports every problem with the pack's definition: names, ids,
// duplicates and missing functions. Every pack's own test calls it
// (TestPackDefinition and the like); a pack that fails it is a bug of the
// pack, not of the server under test.
func (pk Pack) Check() []error {
	var errs []error
	if !ValidName(pk.Name) {
		errs = append(errs, fmt.Errorf("pack %q: name is not kebab-case", pk.Name))
	}
	seenID, seenName := map[string]bool{}, map[string]bool{}
	for i, pr := range slices.Concat(pk.Probes, pk.Restarted) {
		where := fmt.Sprintf("pack %s: probe %d (%s)", pk.Name, i, pr.Name)
		if !ValidID(pr.ID) {
			errs = append(errs, fmt.Errorf("%s: id %q is not of the form PACK-RULE", where, pr.ID))
		}
		if !ValidName(pr.Name) {
			errs = append(errs, fmt.Errorf("%s: name %q is not kebab-case", where, pr.Name))
		}
		if seenID[pr.ID] {
			errs = append(errs, fmt.Errorf("%s: duplicate id %s", where, pr.ID))
		}
		if seenName[pr.Name] {
			errs = append(errs, fmt.Errorf("%s: duplicate name %s", where, pr.Name))
		}
		seenID[pr.ID], seenName[pr.Name] = true, true
		if pr.Doc == "" {
			errs = append(errs, fmt.Errorf("%s: no doc", where))
		}
		if pr.Run == nil {
			errs = append(errs, fmt.Errorf("%s: no Run function", where))
		}
	}
	if pk.StartLimits != "" && !slices.ContainsFunc(pk.Probes, func(pr Probe) bool { return pr.ID == pk.StartLimits }) {
		errs = append(errs, fmt.Errorf("pack %s: StartLimits %q is none of its probes", pk.Name, pk.StartLimits))
	}
	return errs
}
