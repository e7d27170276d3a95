package report

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// shownProbe is one probe the text report lists, with the pack it is in.
type shownProbe struct {
	pk    *Pack
	pr    Probe
	label string
}

// probeGroups are the groups of the glance view, in the order it lists
// them: what fails the run, what warns, what the baseline accepts, then
// what could not be decided.
var probeGroups = []func(label string) bool{
	func(l string) bool { return l == "FAIL" },
	func(l string) bool { return l == "WARN" },
	func(l string) bool { return l == "ACCEPTED" },
	func(l string) bool { return l != "PASS" && l != "N/A" },
}

// writeProblems is the glance view's body: one entry per probe that needs
// a look, grouped FAIL, WARN, ACCEPTED, then INCONCLUSIVE, ERROR and any
// other verdict, each named pack/name (pack/start/name for a pack started
// once per role). Passing and not-applicable probes are left to the
// summary and writeNotCovered.
func writeProblems(b *strings.Builder, rep *Report, p painter) {
	bar := rep.FailBar()
	var all []shownProbe
	for i := range rep.Packs {
		pk := &rep.Packs[i]
		for _, pr := range pk.Probes {
			all = append(all, shownProbe{pk, pr, outcomeLabel(pr, bar)})
		}
	}
	var shown []shownProbe
	taken := make([]bool, len(all))
	for _, in := range probeGroups {
		for i, s := range all {
			if !taken[i] && in(s.label) {
				taken[i] = true
				shown = append(shown, s)
			}
		}
	}
	var incomplete []string
	for _, pk := range rep.Packs {
		if PackIncomplete(pk) {
			name := clean(pk.Name)
			if pk.Start != "" {
				name += "/" + clean(pk.Start)
			}
			incomplete = append(incomplete, name+"  "+p.paint(sgrMagenta, incompleteLine))
		}
	}
	if len(incomplete) > 0 {
		b.WriteString("\n" + strings.Join(incomplete, "\n") + "\n")
	}
	if len(shown) == 0 {
		return
	}
	vw, nw := 0, 0
	for _, s := range shown {
		vw = max(vw, len(s.label))
		nw = max(nw, len(probePath(s.pk, s.pr)))
	}
	b.WriteString("\n")
	for _, s := range shown {
		writeProbe(b, p, s.label, vw, probePath(s.pk, s.pr), nw, s.pr)
	}
}

// incompleteLine is what an INCOMPLETE pack's line says (PackIncomplete).
const incompleteLine = "INCOMPLETE: every probe inconclusive or not applicable"

// probePath is pack/name, or pack/start/name, cleaned.
func probePath(pk *Pack, pr Probe) string {
	s := clean(pk.Name) + "/"
	if pk.Start != "" {
		s += clean(pk.Start) + "/"
	}
	return s + clean(pr.Name)
}

// writePacks is the verbose view's body: every probe, pack by pack.
func writePacks(b *strings.Builder, rep *Report, p painter) {
	vw, nw := len("PASS"), 20
	bar := rep.FailBar()
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			vw = max(vw, len(outcomeLabel(pr, bar)))
			nw = max(nw, len(clean(pr.Name)))
		}
	}
	for _, pk := range rep.Packs {
		b.WriteString("\n" + clean(pk.Name))
		if pk.Start != "" {
			b.WriteString("/" + clean(pk.Start)) // a pack started once per role: db/reader, db/writer
		}
		if pk.User {
			b.WriteString(" (your own probes)")
		}
		if PackIncomplete(pk) {
			b.WriteString("  " + p.paint(sgrMagenta, incompleteLine))
		}
		b.WriteString("\n")
		if len(pk.Probes) == 0 {
			b.WriteString("  (no probes ran)\n")
		}
		for _, pr := range pk.Probes {
			writeProbe(b, p, outcomeLabel(pr, bar), vw, clean(pr.Name), nw, pr)
		}
	}
}

// writeProbe writes one probe: its label, name and id, its first finding
// or its reason on the same line, then the rest of its findings, notes and
// observations under it.
func writeProbe(b *strings.Builder, p painter, label string, vw int, name string, nw int, pr Probe) {
	detail := strings.Repeat(" ", 2+vw+2+2) // two past the start of the name column
	fmt.Fprintf(b, "  %s  %-*s  %s", p.label(label, vw), nw, name, clean(pr.ID))
	findings := pr.Findings
	reasonShown := false
	switch {
	case len(findings) > 0:
		b.WriteString(" ")
		writeFinding(b, p, "", findings[0], detail) // the id is on the probe's line
		findings = findings[1:]
	case pr.Reason != "":
		b.WriteString(": " + indent(pr.Reason, detail) + "\n")
		reasonShown = true
	default:
		b.WriteString("\n")
	}
	for _, f := range findings {
		b.WriteString(detail)
		writeFinding(b, p, pr.ID, f, detail)
	}
	if pr.Reason != "" && !reasonShown {
		line(b, detail+"reason: ", pr.Reason)
	}
	for _, n := range pr.Notes {
		line(b, detail+"note: ", n)
	}
	for _, r := range pr.Observations {
		line(b, detail+"seen: "+clean(r.Kind)+": ", r.Summary)
	}
}

// writeFinding writes the finding as every output shows it (FindingText),
// its lines after the first starting with detail, its severity coloured.
func writeFinding(b *strings.Builder, p painter, id string, f packs.Finding, detail string) {
	b.WriteString(p.finding(FindingText(id, f, detail), id, f) + "\n")
}

// uncovered is one line of the not-covered section: one reason, and the
// probes or packs it kept from running.
type uncovered struct {
	reason string
	packs  bool // whole packs, not probes
	names  []string
}

// maxNamed bounds how many probes a not-covered line names; past it, the
// line gives only their count (--verbose lists each).
const maxNamed = 3

// reasonHead is a not-applicable reason without its detail: the text
// before its first ": " ("no tool takes a path: none of the 4 tools has
// ..." is "no tool takes a path"), after a leading "not applicable: ".
// The verbose view shows the whole reason.
func reasonHead(reason string) string {
	prefix := ""
	for _, p := range []string{"not applicable: ", "not-applicable: "} {
		if rest, ok := strings.CutPrefix(reason, p); ok {
			prefix, reason = p, rest
			break
		}
	}
	if head, _, ok := strings.Cut(reason, ": "); ok && head != "" {
		reason = head
	}
	return prefix + reason
}

// writeNotCovered writes one line per reason a probe or a pack did not
// run, with how many it kept from running: "  11 probes: an HTTP
// transport check; ...", "  1 pack (fs): not applicable: no tool takes a
// path" (the glance view gives each reason's head, see reasonHead).
// Each probe or pack appears once in the report: the glance view lists
// not-applicable probes only here, the verbose view only in its table
// (so here only the packs, and entries whose probe the report lacks).
func writeNotCovered(b *strings.Builder, rep *Report, verbose bool) {
	var lines []*uncovered
	byKey := map[string]*uncovered{}
	add := func(isPack bool, name, reason string) {
		if !verbose {
			reason = reasonHead(reason)
		}
		key := fmt.Sprint(isPack, "\x00", reason)
		u := byKey[key]
		if u == nil {
			u = &uncovered{reason: reason, packs: isPack}
			byKey[key] = u
			lines = append(lines, u)
		}
		u.names = append(u.names, name)
	}
	inTable := map[string]bool{}
	for i := range rep.Packs {
		pk := &rep.Packs[i]
		for _, pr := range pk.Probes {
			inTable[pk.Name+"/"+pr.Name] = true
			if !verbose && pr.Verdict == packs.NotApplicable {
				add(false, probePath(pk, pr), pr.Reason)
			}
		}
	}
	for _, nc := range rep.NotCovered {
		switch {
		case nc.Probe == "":
			add(true, clean(nc.Pack), nc.Reason)
		case !inTable[nc.Pack+"/"+nc.Probe]:
			add(false, clean(nc.Pack)+"/"+clean(nc.Probe), nc.Reason)
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("\nnot covered:\n")
	for _, u := range lines {
		what := "probe"
		if u.packs {
			what = "pack"
		}
		if len(u.names) != 1 {
			what += "s"
		}
		head := fmt.Sprintf("  %d %s", len(u.names), what)
		if u.packs || len(u.names) <= maxNamed {
			head += " (" + strings.Join(u.names, ", ") + ")"
		}
		line(b, head+": ", u.reason)
	}
}
