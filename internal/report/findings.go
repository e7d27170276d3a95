package report

import (
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// failureFindings returns what a failing probe found, for the formats that
// list findings (SARIF, JUnit): its findings, or, for a probe that failed
// without one, a single finding at the probe's severity whose message is the
// probe's reason (or says it failed without a finding), so that no failure
// is lost. Findings without a Fingerprint (Finalize did not run) get
// Fingerprint(probe ID, message). The probe is not modified.
func failureFindings(pr Probe) []packs.Finding {
	if len(pr.Findings) == 0 {
		msg := pr.Reason
		if msg == "" {
			msg = "probe " + pr.Name + " failed without reporting a finding"
		}
		return []packs.Finding{{Severity: pr.Severity, Message: msg, Fingerprint: Fingerprint(pr.ID, msg)}}
	}
	fs := make([]packs.Finding, len(pr.Findings))
	for i, f := range pr.Findings {
		if f.Fingerprint == "" {
			f.Fingerprint = Fingerprint(pr.ID, f.Message)
		}
		fs[i] = f
	}
	return fs
}

// findingText is a finding's message followed by one line per piece of
// evidence, "evidence: observer: detail", each line after the first
// starting with pad. Text from the server is cleaned line by line (see
// indent), so the result holds no control character but newlines.
func findingText(f packs.Finding, pad string) string {
	var b strings.Builder
	b.WriteString(indent(f.Message, pad))
	for _, e := range f.Evidence {
		b.WriteString("\n" + pad + "evidence: " + clean(e.Observer) + ": " + indent(e.Detail, pad+"  "))
	}
	if f.Inherited != "" {
		b.WriteString("\n" + pad + inheritedLine(f))
	}
	return b.String()
}

// inheritedLine is "inherited from SDK VERSION: ...", the line every
// output adds to a finding that matches its SDK's own behaviour.
func inheritedLine(f packs.Finding) string {
	return "inherited from " + clean(f.Inherited) + ": the SDK behaves so by itself; the fix belongs upstream or in the server's SDK settings"
}

// firstLine is s's first line, cleaned, with " …" when more lines follow.
func firstLine(s string) string {
	s = strings.TrimRight(s, "\r\n")
	head, _, more := strings.Cut(s, "\n")
	head = clean(strings.TrimSuffix(head, "\r"))
	if more {
		head += " …"
	}
	return head
}

// FindingText is the one way every output shows a finding: "ID severity
// (medium confidence): message [CWE-22]" (the confidence only when not
// high, the CWE only when named), then one "evidence: observer: detail"
// line per piece of evidence, an "inherited from SDK VERSION: ..." line when
// the finding matches its SDK's own behaviour and an "accepted by the
// baseline: why" line when accepted, each starting with pad. go test prints it at the probe's
// source position (pad "    "); the text, JUnit and diff writers print the
// same lines. Text from the server is cleaned (see indent).
func FindingText(id string, f packs.Finding, pad string) string {
	var b strings.Builder
	b.WriteString(findingHead(id, f) + ": " + indent(f.Message, pad))
	if f.CWE != "" {
		b.WriteString(" [" + clean(f.CWE) + "]")
	}
	for _, e := range f.Evidence {
		b.WriteString("\n" + pad + "evidence: " + clean(e.Observer) + ": " + indent(e.Detail, pad+"  "))
	}
	if f.Inherited != "" {
		b.WriteString("\n" + pad + inheritedLine(f))
	}
	if f.Accepted != "" {
		b.WriteString("\n" + pad + "accepted by the baseline: " + indent(f.Accepted, pad+"  "))
	}
	return b.String()
}

// findingHead is "ID severity", with " (medium confidence)" when the
// confidence is not high.
func findingHead(id string, f packs.Finding) string {
	head := f.Severity.String()
	if id != "" {
		head = clean(id) + " " + head
	}
	if f.Confidence != packs.ConfidenceHigh {
		head += " (" + f.Confidence.String() + " confidence)"
	}
	return head
}
