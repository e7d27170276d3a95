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
	"fmt"
	"regexp"
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
	// Run judges the rule. Reporting nothing is a pass.
	Run func(p *Pass)
}

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
}

var (
	idPattern   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$`)
	namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// Check reports every problem with the pack's definition: names, ids,
// duplicates and missing functions. Packs are checked by their own tests and
// by the engine before a run.
func (pk Pack) Check() []error {
	var errs []error
	if !namePattern.MatchString(pk.Name) {
		errs = append(errs, fmt.Errorf("pack %q: name is not kebab-case", pk.Name))
	}
	seenID, seenName := map[string]bool{}, map[string]bool{}
	for i, pr := range pk.Probes {
		where := fmt.Sprintf("pack %s: probe %d (%s)", pk.Name, i, pr.Name)
		if !idPattern.MatchString(pr.ID) {
			errs = append(errs, fmt.Errorf("%s: id %q is not of the form PACK-RULE", where, pr.ID))
		}
		if !namePattern.MatchString(pr.Name) {
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
	return errs
}
