package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// Finalize prepares rep for the writers, in this order:
//  1. r.Apply(rep): every string field is redacted (secrets masked, run-specific
//     paths and tokens replaced by stable names), except that Sandbox.Path of
//     a kept sandbox and Sandbox.CleanupError keep their real paths (secrets
//     still masked), since they name a directory left on the user's machine;
//     a nil r skips this step;
//  2. every finding without a Fingerprint gets Fingerprint(probe ID, message),
//     computed on the redacted message, so it is stable across runs;
//  3. a probe's findings that share a fingerprint fold into one (fold),
//     and its observations past MaxProbeObservations are counted, not
//     listed;
//  4. Schema is set to SchemaVersion when empty, nil Packs and Probes become
//     empty lists, and Summary is computed from Packs.
//
// Call it once, after the run, before any writer.
func Finalize(rep *Report, r *redact.Redactor) {
	if r != nil {
		kept, cleanup := rep.Sandbox.Path, rep.Sandbox.CleanupError
		r.Apply(rep)
		// A directory left on the user's machine is named by its real path,
		// so the user can find it: secrets masked, stable names not applied.
		if rep.Sandbox.Kept {
			rep.Sandbox.Path = r.Mask(kept)
		}
		if cleanup != "" {
			rep.Sandbox.CleanupError = r.Mask(cleanup)
		}
	}
	if rep.Schema == "" {
		rep.Schema = SchemaVersion
	}
	if rep.Packs == nil {
		rep.Packs = []Pack{}
	}
	for i := range rep.Packs {
		pk := &rep.Packs[i]
		if pk.Probes == nil {
			pk.Probes = []Probe{}
		}
		for j := range pk.Probes {
			pr := &pk.Probes[j]
			for k := range pr.Findings {
				f := &pr.Findings[k]
				if f.Fingerprint == "" {
					f.Fingerprint = Fingerprint(pr.ID, f.Message)
				}
			}
			pr.Findings = fold(pr.Findings)
			if n := len(pr.Observations); n > MaxProbeObservations {
				pr.ObservationsLeftOut += n - MaxProbeObservations
				pr.Observations = pr.Observations[:MaxProbeObservations:MaxProbeObservations]
			}
		}
	}
	for i := range rep.Packs {
		rep.Packs[i].Incomplete = PackIncomplete(rep.Packs[i])
	}
	rep.Summary = summarize(rep)
}

// MaxProbeObservations bounds the observations a probe lists in the
// report; the rest are counted (ObservationsLeftOut). A server whose every
// call runs programs and tries the network (desktop-commander: 4,096
// egress records a probe) made 96 MB reports, past what diff and baseline
// read (MaxJSONBytes).
const MaxProbeObservations = 500

// maxFoldedEvidence bounds the evidence a folded finding gathers from its
// repeats.
const maxFoldedEvidence = 10

// fold makes one finding of a probe's findings that share a fingerprint
// (the same rule and the same thing wrong, seen again: a program run once
// per call, the same file written by two tools): the first keeps its
// place, takes the highest severity among them, and gathers the others'
// evidence it lacks (at most maxFoldedEvidence items) and a count of the
// repeats. A finding the baseline accepted folds only with accepted ones.
func fold(findings []packs.Finding) []packs.Finding {
	if len(findings) < 2 {
		return findings
	}
	type key struct {
		fp       string
		accepted bool
	}
	first := map[key]int{}
	repeats := map[int]int{}
	out := findings[:0:0]
	for _, f := range findings {
		k := key{f.Fingerprint, f.Accepted != ""}
		i, seen := first[k]
		if !seen || f.Fingerprint == "" {
			first[k] = len(out)
			out = append(out, f)
			continue
		}
		g := &out[i]
		g.Severity = max(g.Severity, f.Severity)
		for _, e := range f.Evidence {
			if len(g.Evidence) < maxFoldedEvidence && !slices.Contains(g.Evidence, e) {
				g.Evidence = append(g.Evidence, e)
			}
		}
		repeats[i]++
	}
	for i, n := range repeats {
		out[i].Evidence = append(out[i].Evidence, packs.Evidence{Observer: "report",
			Detail: fmt.Sprintf("seen %d times in this probe (one finding: the same rule and the same thing wrong)", n+1)})
	}
	return out
}

// verdicts lists the five verdicts in the order the summary names them.
var verdicts = []packs.Verdict{packs.Passed, packs.Failed, packs.NotApplicable, packs.Inconclusive, packs.Errored}

// severities lists the severities, highest first.
var severities = []packs.Severity{packs.Critical, packs.High, packs.Medium, packs.Low, packs.Info}

// outcomes lists the outcomes of a failing probe in the order the summary
// names them.
var outcomes = []Outcome{OutcomeFail, OutcomeWarn, OutcomeAccepted}

// summarize counts probes by verdict and by outcome at rep's fail bar, and
// the open findings of failing probes by severity name. Every known
// verdict, outcome and severity is present, zero or not.
func summarize(rep *Report) Summary {
	s := Summary{Verdicts: map[packs.Verdict]int{}, Outcomes: map[Outcome]int{}, Findings: map[string]int{}}
	for _, v := range verdicts {
		s.Verdicts[v] = 0
	}
	for _, o := range outcomes {
		s.Outcomes[o] = 0
	}
	for _, sev := range severities {
		s.Findings[sev.String()] = 0
	}
	bar := rep.FailBar()
	for _, pk := range rep.Packs {
		if PackIncomplete(pk) {
			s.PacksIncomplete++
		}
		for _, pr := range pk.Probes {
			s.Verdicts[pr.Verdict]++
			if pr.Verdict != packs.Failed {
				continue
			}
			s.Outcomes[ProbeOutcome(pr, bar)]++
			for _, f := range pr.Findings {
				if f.Accepted != "" {
					s.AcceptedFindings++
					continue
				}
				s.Findings[f.Severity.String()]++
			}
		}
	}
	for _, nc := range rep.NotCovered {
		if nc.Probe == "" && strings.HasPrefix(nc.Reason, "not applicable") {
			s.PacksNotApplicable++
		}
	}
	s.NothingTested = s.Verdicts[packs.Passed] == 0 && s.Verdicts[packs.Failed] == 0
	return s
}
