package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// DiffResult is what changed between two reports, as sealmark diff OLD.json
// NEW.json prints it. Probes are matched by ID (pack and name when a probe
// has no ID), findings by probe ID and fingerprint. Only findings of
// failing probes count, as in the summary and the exit code.
type DiffResult struct {
	// OldClass and NewClass are the two runs' classes. Results compare only
	// within a class: when they differ (ClassChanged) the other fields still
	// say what changed, but a change may come from the settings rather than
	// from the server.
	OldClass, NewClass string
	// OldHarnessError and NewHarnessError are the runs' harness errors;
	// a run with one tested little or nothing.
	OldHarnessError, NewHarnessError string
	// NewFindings are the findings the new report has and the old lacks,
	// in the new report's order; a finding found twice in the new report
	// and once in the old is new once.
	NewFindings []DiffFinding
	// FixedFindings are the findings the old report has and the new lacks,
	// in the old report's order.
	FixedFindings []DiffFinding
	// Unchanged counts the findings in both.
	Unchanged int
	// VerdictChanges lists the probes in both reports whose verdict
	// changed, in the new report's order.
	VerdictChanges []VerdictChange
	// PacksOnlyInOld and PacksOnlyInNew name the packs that ran in one
	// report only; their probes are in ProbesOnlyInOld and ProbesOnlyInNew.
	PacksOnlyInOld, PacksOnlyInNew []DiffPack
	// ProbesOnlyInOld and ProbesOnlyInNew list the probes that ran in one
	// report only, in that report's order.
	ProbesOnlyInOld, ProbesOnlyInNew []DiffProbe
	// OldFormat counts the findings, of both reports, whose fingerprint an
	// older Sealmark wrote (hashing line numbers, temp names, ports and
	// times with the rule): they were matched by their current fingerprint
	// (CurrentFingerprint), and the text says so.
	OldFormat int
}

// DiffFinding is a finding with the probe that reported it.
type DiffFinding struct {
	Pack, ProbeID, ProbeName string
	// Finding is the finding; its Fingerprint is the current one even
	// when the report had none (Fingerprint(probe ID, message)) or one of
	// an older Sealmark (see CurrentFingerprint).
	packs.Finding
}

// VerdictChange is a probe whose verdict changed.
type VerdictChange struct {
	Pack, ProbeID, ProbeName string
	Old, New                 packs.Verdict
	// Worst is what the probe weighs against a fail-on bar in the new
	// report (see failWeight).
	Worst packs.Severity
}

// DiffPack is a pack that ran in one report only.
type DiffPack struct {
	Name string
	// Reason is why the pack did not run in the other report, when that
	// report's NotCovered says.
	Reason string
}

// DiffProbe is a probe that ran in one report only.
type DiffProbe struct {
	Pack, ProbeID, ProbeName string
	// Verdict is the probe's verdict in the report it ran in.
	Verdict packs.Verdict
	// Worst is what the probe weighs against a fail-on bar in that report
	// (see failWeight).
	Worst packs.Severity
	// Reason is why the probe did not run in the other report, when that
	// report's NotCovered says.
	Reason string
}

// ClassChanged reports whether the two runs have different classes.
func (d DiffResult) ClassChanged() bool { return d.OldClass != d.NewClass }

// Regressed reports whether the new run is worse: it has a finding the old
// lacks, a probe that now fails (from any other verdict, or that ran only
// in the new run), or a harness error (a run that could not test the server
// is never clean).
func (d DiffResult) Regressed() bool {
	if len(d.NewFindings) > 0 || d.NewHarnessError != "" {
		return true
	}
	for _, c := range d.VerdictChanges {
		if c.New == packs.Failed {
			return true
		}
	}
	for _, p := range d.ProbesOnlyInNew {
		if p.Verdict == packs.Failed {
			return true
		}
	}
	return false
}

// RegressedAt reports whether the new run is worse at the failOn bar, the
// question sealmark diff --fail-on asks: a harness error, a new finding of
// severity failOn or higher that the new run's baseline does not accept, or
// a probe that now fails (or fails and ran only in the new run) whose worst
// unaccepted finding, or its own severity when it has no finding, reaches
// failOn. Unlike Regressed it ignores what falls below the bar.
func (d DiffResult) RegressedAt(failOn packs.Severity) bool {
	if d.NewHarnessError != "" {
		return true
	}
	for _, f := range d.NewFindings {
		if f.Accepted == "" && f.Severity >= failOn {
			return true
		}
	}
	for _, c := range d.VerdictChanges {
		if c.New == packs.Failed && c.Worst >= failOn {
			return true
		}
	}
	for _, p := range d.ProbesOnlyInNew {
		if p.Verdict == packs.Failed && p.Worst >= failOn {
			return true
		}
	}
	return false
}

// failWeight is what a probe weighs against a fail-on bar, as ExitCode
// weighs it: the worst severity among its findings the baseline does not
// accept, its own severity when it has no finding, Info (which no bar
// reaches) when every finding is accepted or it did not fail.
func failWeight(pr Probe) packs.Severity {
	if pr.Verdict != packs.Failed {
		return packs.Info
	}
	if len(pr.Findings) == 0 {
		return pr.Severity
	}
	worst := packs.Info
	for _, f := range pr.Findings {
		if f.Accepted == "" && f.Severity > worst {
			worst = f.Severity
		}
	}
	return worst
}

// Diff compares two reports of the same server, oldRep first. A nil report
// counts as an empty one.
func Diff(oldRep, newRep *Report) DiffResult {
	if oldRep == nil {
		oldRep = &Report{}
	}
	if newRep == nil {
		newRep = &Report{}
	}
	d := DiffResult{
		OldClass: oldRep.Class, NewClass: newRep.Class,
		OldHarnessError: oldRep.HarnessError, NewHarnessError: newRep.HarnessError,
	}
	oldFs, oldFormat := diffFindings(oldRep)
	newFs, newFormat := diffFindings(newRep)
	d.OldFormat = oldFormat + newFormat
	d.NewFindings, d.Unchanged = unmatched(newFs, oldFs)
	d.FixedFindings, _ = unmatched(oldFs, newFs)

	oldProbes, newProbes := probesByKey(oldRep), probesByKey(newRep)
	for _, pk := range newRep.Packs {
		for _, pr := range pk.Probes {
			if was, ok := oldProbes[probeKey(pk, pr)]; ok && was.Verdict != pr.Verdict {
				d.VerdictChanges = append(d.VerdictChanges, VerdictChange{
					Pack: pk.Name, ProbeID: pr.ID, ProbeName: pr.Name, Old: was.Verdict, New: pr.Verdict,
					Worst: failWeight(pr),
				})
			}
		}
	}
	d.PacksOnlyInOld, d.ProbesOnlyInOld = onlyIn(oldRep, newRep, newProbes)
	d.PacksOnlyInNew, d.ProbesOnlyInNew = onlyIn(newRep, oldRep, oldProbes)
	return d
}

// probeKey identifies a probe across reports.
func probeKey(pk Pack, pr Probe) string {
	key := pk.Name + "/" + pr.Name
	if pr.ID != "" {
		key = pr.ID
	}
	// A pack run once per start (the db pack's reader and writer) has
	// the same probes in each: each start's are their own.
	if pk.Start != "" {
		key = pk.Start + "\x00" + key
	}
	return key
}

func probesByKey(rep *Report) map[string]Probe {
	m := map[string]Probe{}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if _, dup := m[probeKey(pk, pr)]; !dup {
				m[probeKey(pk, pr)] = pr
			}
		}
	}
	return m
}

// diffFindings lists the findings of rep's failing probes, each with its
// current fingerprint, and counts those whose stored one an older Sealmark
// wrote.
func diffFindings(rep *Report) (fs []DiffFinding, oldFormat int) {
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict != packs.Failed {
				continue
			}
			for _, f := range pr.Findings {
				if f.Fingerprint == "" {
					f.Fingerprint = Fingerprint(pr.ID, f.Message)
				} else if fp, up := CurrentFingerprint(pr.ID, f.Message, f.Fingerprint); up {
					f.Fingerprint = fp
					oldFormat++
				}
				fs = append(fs, DiffFinding{Pack: pk.Name, ProbeID: pr.ID, ProbeName: pr.Name, Finding: f})
			}
		}
	}
	return fs, oldFormat
}

// unmatched returns the findings of a that b lacks, each of b matching at
// most one of a, and how many of a matched.
func unmatched(a, b []DiffFinding) (rest []DiffFinding, matched int) {
	key := func(f DiffFinding) string { return f.ProbeID + "\x00" + f.Fingerprint }
	left := map[string]int{}
	for _, f := range b {
		left[key(f)]++
	}
	for _, f := range a {
		if left[key(f)] > 0 {
			left[key(f)]--
			matched++
			continue
		}
		rest = append(rest, f)
	}
	return rest, matched
}

// onlyIn lists the packs and probes of rep that other lacks (otherProbes
// is other's probesByKey), with other's NotCovered reason when it has one.
func onlyIn(rep, other *Report, otherProbes map[string]Probe) ([]DiffPack, []DiffProbe) {
	otherPacks := map[string]bool{}
	for _, pk := range other.Packs {
		otherPacks[pk.Name] = true
	}
	var pks []DiffPack
	var prs []DiffProbe
	for _, pk := range rep.Packs {
		if !otherPacks[pk.Name] {
			pks = append(pks, DiffPack{Name: pk.Name, Reason: notCoveredReason(other, pk.Name, "")})
			otherPacks[pk.Name] = true // a pack listed twice is reported once
		}
		for _, pr := range pk.Probes {
			if _, ok := otherProbes[probeKey(pk, pr)]; !ok {
				prs = append(prs, DiffProbe{
					Pack: pk.Name, ProbeID: pr.ID, ProbeName: pr.Name, Verdict: pr.Verdict, Worst: failWeight(pr),
					Reason: notCoveredReason(other, pk.Name, pr.Name),
				})
			}
		}
	}
	return pks, prs
}

// notCoveredReason is why rep says the pack (or its probe) did not run: the
// probe's own entry, else the whole pack's; "" when rep does not say.
func notCoveredReason(rep *Report, pack, probe string) string {
	var whole string
	for _, nc := range rep.NotCovered {
		switch {
		case nc.Pack != pack:
		case probe != "" && nc.Probe == probe:
			return nc.Reason
		case nc.Probe == "" && whole == "":
			whole = nc.Reason
		}
	}
	return whole
}

// WriteDiff writes d for a person:
//
//	class: STANDARD
//	new: CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed by tool debug_info
//	  evidence: response: tools/call debug_info result contains <canary>
//	  fingerprint: ed691d6ca8dc77f0
//	fixed: CORE-TOOL-SWEEP high: tool delete_note ran during the sweep
//	  fingerprint: 3c1e0a9b5d7f2468
//	verdict: core/secret-echo CORE-SECRET-ECHO: pass → fail
//	verdict: core/tool-sweep CORE-TOOL-SWEEP: fail → pass
//	only in old: pack fs (3 probes); new run: not applicable: no path-taking tool
//	only in new: core/stdout-hygiene CORE-STDOUT (pass)
//	summary: 1 new, 1 fixed, 4 unchanged, 2 verdicts changed — regressed
//
// As in WriteText, every line that is not a detail starts with a fixed word
// and a colon, and text from the reports is cleaned. A pack that ran in one
// report only gets one line, its probes counted there; the other run's
// reason follows when its NotCovered gives one.
func WriteDiff(w io.Writer, d DiffResult) error {
	var b strings.Builder
	if d.ClassChanged() {
		b.WriteString("class: " + orNone(d.OldClass) + " → " + orNone(d.NewClass) + " (results compare only within a class)\n")
	} else {
		b.WriteString("class: " + orNone(d.NewClass) + "\n")
	}
	if d.OldHarnessError != "" {
		line(&b, "error: old run: ", d.OldHarnessError)
	}
	if d.NewHarnessError != "" {
		line(&b, "error: new run: ", d.NewHarnessError)
	}
	if d.OldFormat > 0 {
		fmt.Fprintf(&b, "note: %d finding(s) carry the fingerprint of an older Sealmark, which hashed line numbers, temp names, ports and times; they were matched by their message's current fingerprint\n", d.OldFormat)
	}
	for _, f := range d.NewFindings {
		writeDiffFinding(&b, "new: ", f)
	}
	for _, f := range d.FixedFindings {
		writeDiffFinding(&b, "fixed: ", f)
	}
	for _, c := range d.VerdictChanges {
		fmt.Fprintf(&b, "verdict: %s: %s → %s\n", probeLabel(c.Pack, c.ProbeID, c.ProbeName), verdictName(c.Old), verdictName(c.New))
	}
	writeOnlyIn(&b, "only in old: ", "new run: ", d.PacksOnlyInOld, d.ProbesOnlyInOld)
	writeOnlyIn(&b, "only in new: ", "old run: ", d.PacksOnlyInNew, d.ProbesOnlyInNew)

	result := "no regression"
	if d.Regressed() {
		result = "regressed"
	}
	changed := "verdicts changed"
	if len(d.VerdictChanges) == 1 {
		changed = "verdict changed"
	}
	fmt.Fprintf(&b, "summary: %d new, %d fixed, %d unchanged, %d %s — %s\n",
		len(d.NewFindings), len(d.FixedFindings), d.Unchanged, len(d.VerdictChanges), changed, result)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("report: write diff: %w", err)
	}
	return nil
}

func writeDiffFinding(b *strings.Builder, prefix string, f DiffFinding) {
	id := f.ProbeID
	if id == "" {
		id = f.Pack + "/" + f.ProbeName
	}
	b.WriteString(prefix + FindingText(id, f.Finding, "  ") + "\n")
	b.WriteString("  fingerprint: " + clean(f.Fingerprint) + "\n")
}

// writeOnlyIn writes the packs and probes of one run that the other run
// lacks, each with the other run's reason when it has one.
func writeOnlyIn(b *strings.Builder, prefix, other string, pks []DiffPack, prs []DiffProbe) {
	whole := map[string]int{} // pack → probes in it
	for _, pk := range pks {
		whole[pk.Name] = 0
	}
	for _, pr := range prs {
		if _, ok := whole[pr.Pack]; ok {
			whole[pr.Pack]++
		}
	}
	for _, pk := range pks {
		s := fmt.Sprintf("pack %s (%d probes)", clean(pk.Name), whole[pk.Name])
		if whole[pk.Name] == 1 {
			s = fmt.Sprintf("pack %s (1 probe)", clean(pk.Name))
		}
		if pk.Reason != "" {
			line(b, prefix+s+"; "+other, pk.Reason)
		} else {
			b.WriteString(prefix + s + "\n")
		}
	}
	for _, pr := range prs {
		if _, ok := whole[pr.Pack]; ok {
			continue
		}
		s := probeLabel(pr.Pack, pr.ProbeID, pr.ProbeName) + " (" + verdictName(pr.Verdict) + ")"
		if pr.Reason != "" {
			line(b, prefix+s+"; "+other, pr.Reason)
		} else {
			b.WriteString(prefix + s + "\n")
		}
	}
}

// probeLabel is "pack/name ID", cleaned.
func probeLabel(pack, id, name string) string {
	return strings.TrimSpace(clean(pack+"/"+name) + " " + clean(id))
}

// verdictName is a verdict as written, "none" when empty.
func verdictName(v packs.Verdict) string { return orNone(string(v)) }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return clean(s)
}
