package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// WriteText writes rep the way a person reads it at a glance in a
// terminal: the header, then the probes that need a look (FAIL, then WARN,
// ACCEPTED, then INCONCLUSIVE, ERROR), then one line per reason a probe or
// a pack did not apply, with how many, then the summary:
//
//	sealmark dev — STANDARD
//	server:  node {cwd}/index.js {sandbox}
//	         env: API_KEY=<redacted> MODE=fast
//	sandbox: envMode=scrubbed inherited: PATH (system part), LANG
//	protocol: legacy 2025-11-25 (server example-notes 1.0.0)
//	warning: server.args[1] (/data) points at a real path on this machine; valid calls may read or write it
//
//	  FAIL  core/secret-echo  CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed in the response of tool debug_info
//	          evidence: response: tools/call debug_info result contains <canary>
//
//	not covered:
//	  11 probes: an HTTP transport check; this server speaks stdio
//	  1 probe (core/tool-sweep): no read-only tool
//	  1 pack (fs): not applicable: no path-taking tool
//	summary: 7 pass, 1 fail (1 critical), 12 not applicable, 0 inconclusive, 0 error, 1 pack not applicable
//
// WriteTextWith with TextOptions.Verbose lists every probe instead, pack by
// pack, passing ones with their notes. Every line that is not a probe or a
// detail under one starts with a fixed word and a colon, so the report
// greps well. Text that came from the server (messages, evidence) has
// control characters escaped, so it cannot move the cursor or recolor the
// terminal, and its extra lines are indented under the line they belong
// to.
func WriteText(w io.Writer, rep *Report) error {
	return WriteTextWith(w, rep, TextOptions{})
}

// WriteTextWith writes rep as WriteText does, verbose (every probe, pack
// by pack) or coloured as opts say.
func WriteTextWith(w io.Writer, rep *Report, opts TextOptions) error {
	var b strings.Builder
	p := painter(opts.Color)
	writeHeader(&b, rep)
	if opts.Verbose {
		writePacks(&b, rep, p)
	} else {
		writeProblems(&b, rep, p)
	}
	writeFooter(&b, rep, opts.Verbose, p)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("report: write text: %w", err)
	}
	return nil
}

const cont = "         " // continuation indent under "server:  " and "sandbox: "

func writeHeader(b *strings.Builder, rep *Report) {
	name := rep.Tool.Name
	if name == "" {
		name = "sealmark"
	}
	title := strings.TrimSpace(clean(name) + " " + clean(rep.Tool.Version))
	if rep.Class != "" {
		title += " — " + clean(rep.Class)
	}
	b.WriteString(title + "\n")
	for _, reason := range rep.ClassReasons {
		line(b, "custom: ", reason)
	}

	srv := rep.Server
	var first []string
	if srv.Command != "" {
		first = append(first, word(srv.Command))
		for _, a := range srv.Args {
			first = append(first, word(a))
		}
	}
	var more []string
	switch {
	case len(first) == 0 && srv.URL != "":
		first = []string{word(srv.URL)}
	case srv.URL != "":
		more = append(more, "url: "+word(srv.URL))
	}
	if len(srv.Env) > 0 {
		vars := make([]string, len(srv.Env))
		for i, e := range srv.Env {
			vars[i] = clean(e.Name) + "=" + word(e.Value)
		}
		more = append(more, "env: "+strings.Join(vars, " "))
	}
	if len(first) > 0 || len(more) > 0 {
		b.WriteString("server:  " + strings.Join(first, " ") + "\n")
		for _, m := range more {
			b.WriteString(cont + m + "\n")
		}
	}

	sb := rep.Sandbox
	if sb.EnvMode != "" || len(sb.Inherited) > 0 || sb.Isolation != "" || sb.Kept || sb.MaxMiB > 0 {
		s := "sandbox: envMode=" + clean(sb.EnvMode)
		if sb.EnvMode == "" {
			s = "sandbox: envMode=none"
		}
		if len(sb.Inherited) > 0 {
			s += " inherited: " + clean(strings.Join(sb.Inherited, ", "))
		}
		b.WriteString(s + "\n")
		if sb.Isolation != "" {
			b.WriteString(cont + "isolation: " + clean(sb.Isolation) + "\n")
		}
		if sb.MaxMiB > 0 {
			fmt.Fprintf(b, "%ssize limit: %d MiB\n", cont, sb.MaxMiB)
		}
		if sb.Kept {
			b.WriteString(cont + "kept: " + clean(sb.Path) + "\n")
		}
	}

	if p := rep.Protocol; p != (Protocol{}) {
		s := strings.TrimSpace(clean(p.Era) + " " + clean(p.Version))
		if p.ServerName != "" || p.ServerVersion != "" {
			s += " (server " + strings.TrimSpace(clean(p.ServerName)+" "+clean(p.ServerVersion)) + ")"
		}
		b.WriteString("protocol: " + strings.TrimSpace(s) + "\n")
	}
	if !rep.Started.IsZero() {
		s := rep.Started.UTC().Format(time.RFC3339)
		if !rep.Finished.IsZero() {
			s += ", took " + rep.Finished.Sub(rep.Started).Round(time.Millisecond).String()
		}
		b.WriteString("started: " + s + "\n")
	}
	for _, w := range rep.Warnings {
		line(b, "warning: ", w)
	}
}

func writeFooter(b *strings.Builder, rep *Report, verbose bool, p painter) {
	if len(rep.Timeline) > 0 {
		b.WriteString("\ntimeline (seen outside any probe):\n")
		for _, r := range rep.Timeline {
			line(b, "  "+clean(r.Kind)+": ", r.Summary)
		}
	}
	writeNotCovered(b, rep, verbose)
	if rep.Sandbox.CleanupError != "" || rep.HarnessError != "" || len(rep.StaleBaseline) > 0 {
		b.WriteString("\n")
	}
	for _, e := range rep.StaleBaseline {
		line(b, "baseline: stale entry (no finding matches it any more; remove it): ", e)
	}
	if rep.Sandbox.CleanupError != "" {
		line(b, "sandbox: could not delete ", rep.Sandbox.CleanupError)
	}
	if rep.HarnessError != "" {
		line(b, "error: ", rep.HarnessError)
	}
	b.WriteString("summary: " + summaryLine(rep, p) + "\n")
	if s := rep.Summary; s.Verdicts != nil && s.NothingTested && rep.HarnessError == "" {
		b.WriteString("nothing was tested: no probe passed or failed (every selected pack or probe was not applicable or inconclusive; see Not covered)\n")
	} else if RunIncomplete(rep, rep.FailBar()) {
		b.WriteString("incomplete: a check at or above fail_on, or a whole pack, ended inconclusive; the run is no pass (exit 3; --allow-inconclusive accepts it)\n")
	}
}

// summaryLine reads rep.Summary, or counts afresh when Finalize did not run
// (or the report predates the outcome counts). "fail" counts the probes
// that fail the run at its fail bar, "warn" those whose open findings are
// all below it, "accepted" those whose every finding the baseline accepts;
// each names the severities of its open findings.
func summaryLine(rep *Report, p painter) string {
	s := rep.Summary
	if s.Verdicts == nil || s.Outcomes == nil {
		s = summarize(rep)
	}
	bar := rep.FailBar()
	bySev := map[Outcome]map[packs.Severity]int{OutcomeFail: {}, OutcomeWarn: {}}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			o := ProbeOutcome(pr, bar)
			if bySev[o] == nil {
				continue
			}
			for _, f := range failureFindings(pr) {
				if f.Accepted == "" {
					bySev[o][f.Severity]++
				}
			}
		}
	}
	// nonzero colours a count that needs a look; zero stays plain.
	nonzero := func(n int, what, sgr string) string {
		out := fmt.Sprintf("%d %s", n, what)
		if n == 0 {
			return out
		}
		return p.paint(sgr, out)
	}
	counted := func(n int, what string, o Outcome) string {
		out := nonzero(n, what, labelColors[outcomeLabels[o]])
		var sevs []string
		for _, sev := range severities {
			if k := bySev[o][sev]; k > 0 {
				sevs = append(sevs, p.paint(severityColors[sev], fmt.Sprintf("%d %s", k, sev)))
			}
		}
		if len(sevs) > 0 {
			out += " (" + strings.Join(sevs, ", ") + ")"
		}
		return out
	}
	parts := []string{
		fmt.Sprintf("%d pass", s.Verdicts[packs.Passed]),
		counted(s.Outcomes[OutcomeFail], "fail", OutcomeFail),
	}
	if n := s.Outcomes[OutcomeWarn]; n > 0 {
		parts = append(parts, counted(n, "warn", OutcomeWarn))
	}
	if n := s.Outcomes[OutcomeAccepted]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d accepted by the baseline", n))
	}
	parts = append(parts,
		fmt.Sprintf("%d not applicable", s.Verdicts[packs.NotApplicable]),
		nonzero(s.Verdicts[packs.Inconclusive], "inconclusive", sgrMagenta),
		nonzero(s.Verdicts[packs.Errored], "error", sgrMagenta),
	)
	other := 0
	for v, n := range s.Verdicts {
		if _, known := verdictLabels[v]; !known {
			other += n
		}
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d other", other))
	}
	if s.PacksIncomplete > 0 {
		parts = append(parts, fmt.Sprintf("%d pack%s INCOMPLETE", s.PacksIncomplete, map[bool]string{true: "s"}[s.PacksIncomplete > 1]))
	}
	if s.PacksNotApplicable > 0 {
		parts = append(parts, fmt.Sprintf("%d pack%s not applicable", s.PacksNotApplicable, map[bool]string{true: "s"}[s.PacksNotApplicable > 1]))
	}
	return strings.Join(parts, ", ")
}

var verdictLabels = map[packs.Verdict]string{
	packs.Passed:        "PASS",
	packs.Failed:        "FAIL",
	packs.NotApplicable: "N/A",
	packs.Inconclusive:  "INCONCLUSIVE",
	packs.Errored:       "ERROR",
}

// outcomeLabels are the labels of a failing probe, by its outcome.
var outcomeLabels = map[Outcome]string{
	OutcomeFail:     "FAIL",
	OutcomeWarn:     "WARN",
	OutcomeAccepted: "ACCEPTED",
}

// outcomeLabel is the probe's column in the probe table: its outcome at the
// fail bar when it failed (FAIL, WARN, ACCEPTED), its verdict's label
// otherwise.
func outcomeLabel(pr Probe, bar packs.Severity) string {
	if l, ok := outcomeLabels[ProbeOutcome(pr, bar)]; ok {
		return l
	}
	return verdictLabel(pr.Verdict)
}

// verdictLabel is the verdict's column in the probe table; an unknown
// verdict shows as written.
func verdictLabel(v packs.Verdict) string {
	if l, ok := verdictLabels[v]; ok {
		return l
	}
	if v == "" {
		return "?"
	}
	return clean(string(v))
}

// line writes prefix and text, text's extra lines indented under prefix.
func line(b *strings.Builder, prefix, text string) {
	pad := strings.Repeat(" ", len(prefix)-len(strings.TrimLeft(prefix, " "))+2)
	b.WriteString(prefix + indent(text, pad) + "\n")
}
