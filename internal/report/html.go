package report

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

//go:embed html.tmpl
var htmlSource string

// htmlPage is parsed once: html/template escapes every value by its
// context (text, attribute, URL), so nothing a server wrote becomes markup.
var htmlPage = template.Must(template.New("report").Parse(htmlSource))

// WriteHTML writes the reports of several servers (sealmark scan's) as one
// self-contained HTML page to mail around or open in a browser: a table
// with one row per server (its verdict at failOn, as the scan's summary
// table says it, and its worst open finding), then one section per server
// with its header and, pack by pack, one <details> per probe holding its
// findings, their evidence, its reason, notes and observations. A probe
// that fails or warns, or errs, is open; the others are collapsed, those
// that passed or did not apply under one line that counts them. Printing
// expands every probe.
//
// The page loads nothing: CSS is inline, there is no script, and its
// Content-Security-Policy forbids any fetch, so opening it contacts no
// network. Every value goes through html/template's escaping, after the
// control characters, bidirectional overrides and invalid UTF-8 of text
// from the server are escaped as in WriteText. The reports are read as
// Finalize left them: redacted like every other format. The output
// depends only on the reports (no clock), so equal reports give equal
// bytes.
func WriteHTML(w io.Writer, reps []NamedReport, failOn packs.Severity) error {
	page := htmlPageFor(reps, failOn)
	var b strings.Builder
	if err := htmlPage.Execute(&b, page); err != nil {
		return fmt.Errorf("report: render HTML: %w", err)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("report: write HTML: %w", err)
	}
	return nil
}

// htmlView is what the template reads: every string already cleaned.
type htmlView struct {
	Title   string
	Tool    string
	FailOn  string
	Counts  string
	Servers []htmlServer
}

type htmlServer struct {
	Anchor   string
	Name     string
	Verdict  string // pass, warn, FAIL, ERROR
	Class    string // the verdict's CSS class
	Worst    string // "ID severity: message", a harness error, a stale baseline entry, or "-"
	Time     string
	Meta     []htmlField
	Warnings []string
	Error    string
	Packs    []htmlPack
	// NotCovered are "pack/probe: reason" lines.
	NotCovered []string
	Stale      []string
	Timeline   []string
	Cleanup    string
	Summary    string
	Nothing    bool
}

type htmlField struct{ Name, Value string }

type htmlPack struct {
	Name string
	Doc  string
	// Probes are the probes to look at (fail, warn, accepted,
	// inconclusive, error), each on its own; Quiet are those that passed
	// or did not apply, under one collapsed line that counts them.
	Probes     []htmlProbe
	Quiet      []htmlProbe
	QuietCount string
	None       bool
	Incomplete bool // every probe inconclusive or not applicable (PackIncomplete)
}

type htmlProbe struct {
	Label    string // FAIL, WARN, ACCEPTED, PASS, N/A, INCONCLUSIVE, ERROR
	Class    string
	Open     bool
	Name     string
	ID       string
	Headline string
	Doc      string
	Severity string
	CWE      string
	Millis   int64
	Reason   string
	Findings []htmlFinding
	Notes    []string
	Seen     []string
	LeftOut  int
}

type htmlFinding struct {
	Head        string // "ID severity (medium confidence)"
	Message     string
	CWE         string
	Evidence    []htmlField
	Inherited   string
	Accepted    string
	Fingerprint string
}

func htmlPageFor(reps []NamedReport, failOn packs.Severity) htmlView {
	v := htmlView{FailOn: failOn.String(), Title: "Sealmark: " + htmlServerCount(len(reps))}
	counts := map[string]int{}
	for i, r := range reps {
		rep := r.Report
		if rep == nil {
			rep = &Report{HarnessError: "no report"}
		}
		if v.Tool == "" && rep.Tool.Version != "" {
			v.Tool = strings.TrimSpace(clean(cmp.Or(rep.Tool.Name, "sealmark")) + " " + clean(rep.Tool.Version))
		}
		s := htmlServerFor(rep, failOn)
		s.Anchor = fmt.Sprintf("server-%d", i+1)
		s.Name = clean(r.Name)
		counts[s.Verdict]++
		v.Servers = append(v.Servers, s)
	}
	if v.Tool == "" {
		v.Tool = "sealmark"
	}
	incomplete := ""
	if n := counts["INCOMPLETE"]; n > 0 {
		incomplete = fmt.Sprintf(", %d incomplete", n)
	}
	v.Counts = fmt.Sprintf("%s: %d pass, %d warn, %d fail%s, %d error", htmlServerCount(len(reps)), counts["pass"], counts["warn"], counts["FAIL"], incomplete, counts["ERROR"])
	return v
}

// htmlServerCount is "1 server" or "N servers".
func htmlServerCount(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}

// serverVerdict is the scan summary's verdict of one server at failOn:
// FAIL and ERROR by ExitCode (INCOMPLETE for an ERROR that is RunIncomplete), warn when the run passes with open findings
// below failOn, pass otherwise.
func serverVerdict(rep *Report, failOn packs.Severity) string {
	switch ExitCode(rep, failOn) {
	case ExitFindings:
		return "FAIL"
	case ExitHarness:
		if RunIncomplete(rep, failOn) {
			return "INCOMPLETE"
		}
		return "ERROR"
	}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if ProbeOutcome(pr, failOn) == OutcomeWarn {
				return "warn"
			}
		}
	}
	return "pass"
}

// worstOpen is the open finding of a failing probe with the highest
// severity (the first of equals), as "ID severity: first line"; "" when
// there is none.
func worstOpen(rep *Report) string {
	worst, found := "", packs.Severity(-1)
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict != packs.Failed {
				continue
			}
			for _, f := range failureFindings(pr) {
				if f.Accepted == "" && f.Severity > found {
					found = f.Severity
					worst = findingHead(pr.ID, f) + ": " + firstLine(f.Message)
				}
			}
		}
	}
	return worst
}

// htmlServerFor is one server's row and section, judged at failOn.
func htmlServerFor(rep *Report, failOn packs.Severity) htmlServer {
	s := htmlServer{Verdict: serverVerdict(rep, failOn), Time: "-"}
	s.Class = strings.ToLower(s.Verdict)
	switch {
	case rep.HarnessError != "":
		s.Worst = "harness error: " + firstLine(rep.HarnessError)
	case worstOpen(rep) != "":
		s.Worst = worstOpen(rep)
	case len(rep.StaleBaseline) > 0:
		s.Worst = "baseline: stale entry: " + firstLine(rep.StaleBaseline[0])
	case s.Verdict == "INCOMPLETE":
		s.Worst = "untested: " + UntestedChecks(rep, failOn)[0]
	case s.Verdict == "ERROR":
		s.Worst = "nothing was tested: every selected pack was not applicable"
	default:
		s.Worst = "-"
	}
	if !rep.Started.IsZero() && !rep.Finished.Before(rep.Started) {
		s.Time = rep.Finished.Sub(rep.Started).Round(100 * time.Millisecond).String()
	}
	s.Meta = htmlMeta(rep)
	s.Warnings = cleanAll(rep.Warnings)
	s.Error = indent(rep.HarnessError, "")
	s.Stale = cleanAll(rep.StaleBaseline)
	s.Cleanup = indent(rep.Sandbox.CleanupError, "")
	bar := failOn
	for _, pk := range rep.Packs {
		p := htmlPack{Name: clean(pk.Name), Doc: clean(pk.Doc)}
		if pk.Start != "" {
			p.Name += "/" + clean(pk.Start)
		}
		if pk.User {
			p.Name += " (your own probes)"
		}
		passed, na := 0, 0
		for _, pr := range pk.Probes {
			hp := htmlProbeFor(pr, bar)
			switch pr.Verdict {
			case packs.Passed:
				passed++
				p.Quiet = append(p.Quiet, hp)
			case packs.NotApplicable:
				na++
				p.Quiet = append(p.Quiet, hp)
			default:
				p.Probes = append(p.Probes, hp)
			}
		}
		p.QuietCount = fmt.Sprintf("%d pass, %d not applicable", passed, na)
		p.Incomplete = PackIncomplete(pk)
		p.None = len(pk.Probes) == 0
		s.Packs = append(s.Packs, p)
	}
	for _, nc := range rep.NotCovered {
		what := clean(nc.Pack)
		if nc.Probe != "" {
			what += "/" + clean(nc.Probe)
		}
		s.NotCovered = append(s.NotCovered, what+": "+indent(nc.Reason, ""))
	}
	for _, r := range rep.Timeline {
		s.Timeline = append(s.Timeline, clean(r.Kind)+": "+indent(r.Summary, ""))
	}
	s.Summary = htmlCounts(rep, bar)
	s.Nothing = rep.HarnessError == "" && s.Verdict == "ERROR"
	return s
}

// htmlMeta is the server's header: what ran, how it was contained, what
// it said it is.
func htmlMeta(rep *Report) []htmlField {
	var m []htmlField
	add := func(name, value string) {
		if value != "" {
			m = append(m, htmlField{name, value})
		}
	}
	if rep.Server.Command != "" {
		words := []string{word(rep.Server.Command)}
		for _, a := range rep.Server.Args {
			words = append(words, word(a))
		}
		add("command", strings.Join(words, " "))
	}
	add("url", clean(rep.Server.URL))
	var env []string
	for _, e := range rep.Server.Env {
		env = append(env, clean(e.Name)+"="+word(e.Value))
	}
	add("env", strings.Join(env, " "))
	class := clean(rep.Class)
	if len(rep.ClassReasons) > 0 {
		class += " (" + strings.Join(cleanAll(rep.ClassReasons), "; ") + ")"
	}
	add("class", class)
	sb := rep.Sandbox
	var box []string
	if sb.EnvMode != "" {
		box = append(box, "envMode="+clean(sb.EnvMode))
	}
	if len(sb.Inherited) > 0 {
		box = append(box, "inherited: "+strings.Join(cleanAll(sb.Inherited), ", "))
	}
	if sb.Isolation != "" {
		box = append(box, "isolation: "+clean(sb.Isolation))
	}
	if sb.MaxMiB > 0 {
		box = append(box, fmt.Sprintf("size limit: %d MiB", sb.MaxMiB))
	}
	if sb.Kept {
		box = append(box, "kept: "+clean(sb.Path))
	}
	add("sandbox", strings.Join(box, "; "))
	if p := rep.Protocol; p != (Protocol{}) {
		s := strings.TrimSpace(clean(p.Transport) + " " + clean(p.Era) + " " + clean(p.Version))
		if p.ServerName != "" || p.ServerVersion != "" {
			s += " (server " + strings.TrimSpace(clean(p.ServerName)+" "+clean(p.ServerVersion)) + ")"
		}
		add("protocol", strings.TrimSpace(s))
	}
	if !rep.Started.IsZero() {
		add("started", rep.Started.UTC().Format(time.RFC3339))
	}
	add("fail on", clean(rep.FailOn))
	return m
}

func htmlProbeFor(pr Probe, bar packs.Severity) htmlProbe {
	p := htmlProbe{
		Label: htmlLabel(pr, bar), Name: clean(pr.Name), ID: clean(pr.ID), Doc: clean(pr.Doc),
		Severity: pr.Severity.String(), CWE: clean(pr.CWE), Millis: pr.Millis,
		Reason: indent(pr.Reason, ""), Notes: cleanAll(pr.Notes), LeftOut: pr.ObservationsLeftOut,
	}
	p.Class = htmlClasses[p.Label]
	if p.Class == "" {
		p.Class = "other"
	}
	switch ProbeOutcome(pr, bar) {
	case OutcomeFail, OutcomeWarn:
		p.Open = true
	}
	p.Open = p.Open || pr.Verdict == packs.Errored
	var findings []packs.Finding
	if pr.Verdict == packs.Failed {
		findings = failureFindings(pr)
	} else {
		findings = pr.Findings
	}
	for _, f := range findings {
		hf := htmlFinding{
			Head: findingHead(pr.ID, f), Message: indent(f.Message, ""), CWE: clean(f.CWE),
			Accepted: indent(f.Accepted, ""), Fingerprint: clean(f.Fingerprint),
		}
		if f.Inherited != "" {
			hf.Inherited = inheritedLine(f)
		}
		for _, e := range f.Evidence {
			hf.Evidence = append(hf.Evidence, htmlField{clean(e.Observer), indent(e.Detail, "")})
		}
		p.Findings = append(p.Findings, hf)
	}
	switch {
	case len(findings) > 0:
		p.Headline = findingHead("", findings[0]) + ": " + firstLine(findings[0].Message)
		if n := len(findings) - 1; n > 0 {
			p.Headline += fmt.Sprintf(" (and %d more)", n)
		}
	case pr.Reason != "":
		p.Headline = firstLine(pr.Reason)
	}
	for _, r := range pr.Observations {
		p.Seen = append(p.Seen, clean(r.Kind)+": "+indent(r.Summary, ""))
	}
	return p
}

// htmlLabels are the probe labels of the text report: a failing probe's
// outcome at the fail bar, else its verdict.
var htmlLabels = map[packs.Verdict]string{
	packs.Passed: "PASS", packs.NotApplicable: "N/A", packs.Inconclusive: "INCONCLUSIVE", packs.Errored: "ERROR",
}

// htmlClasses are the labels' CSS classes.
var htmlClasses = map[string]string{
	"FAIL": "fail", "WARN": "warn", "ACCEPTED": "accepted", "PASS": "pass", "N/A": "na", "INCONCLUSIVE": "inconclusive", "ERROR": "error",
}

func htmlLabel(pr Probe, bar packs.Severity) string {
	switch ProbeOutcome(pr, bar) {
	case OutcomeFail:
		return "FAIL"
	case OutcomeWarn:
		return "WARN"
	case OutcomeAccepted:
		return "ACCEPTED"
	}
	if l, ok := htmlLabels[pr.Verdict]; ok {
		return l
	}
	return cmp.Or(clean(string(pr.Verdict)), "?")
}

// htmlCounts counts the server's probes by label, in a fixed order.
func htmlCounts(rep *Report, bar packs.Severity) string {
	order := []string{"PASS", "FAIL", "WARN", "ACCEPTED", "N/A", "INCONCLUSIVE", "ERROR"}
	n := map[string]int{}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			l := htmlLabel(pr, bar)
			if !slices.Contains(order, l) {
				order = append(order, l)
			}
			n[l]++
		}
	}
	var parts []string
	for _, l := range order {
		if n[l] > 0 || l == "PASS" || l == "FAIL" {
			parts = append(parts, fmt.Sprintf("%d %s", n[l], strings.ToLower(l)))
		}
	}
	return strings.Join(parts, ", ")
}

func cleanAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = indent(s, "")
	}
	return out
}
