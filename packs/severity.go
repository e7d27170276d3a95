package packs

import (
	"fmt"
	"strings"
)

// Severity ranks how bad a finding is. The zero value is Info, which never
// fails a run on its own.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = [...]string{"info", "low", "medium", "high", "critical"}

func (s Severity) String() string {
	if s < Info || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads a severity name ("high", "CRITICAL", ...).
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(name, n) {
			return Severity(i), nil
		}
	}
	return Info, fmt.Errorf("unknown severity %q (want one of %s)", name, strings.Join(severityNames[:], ", "))
}

// FailOnValues names the severities a fail bar may be, as every message
// and usage line about fail_on and --fail-on says them.
const FailOnValues = "low, medium, high or critical"

// ParseFailOn reads a fail bar (fail_on, SEALMARK_FAIL_ON, --fail-on): a
// severity above info, its name in any case ("high", "CRITICAL"). It is the
// one parser of fail bars; a bad value is the error
// `want low, medium, high or critical, got "severe"`.
func ParseFailOn(name string) (Severity, error) {
	s, err := ParseSeverity(name)
	if err != nil || s == Info {
		return Info, fmt.Errorf("want %s, got %q", FailOnValues, name)
	}
	return s, nil
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Confidence says how sure a finding is, kept apart from its severity.
type Confidence int

// Confidences, lowest first. The zero value is High: most probes judge by an
// effect the harness observed.
const (
	ConfidenceHigh Confidence = iota
	ConfidenceMedium
	ConfidenceLow
)

func (c Confidence) String() string {
	switch c {
	case ConfidenceHigh:
		return "high"
	case ConfidenceMedium:
		return "medium"
	case ConfidenceLow:
		return "low"
	}
	return fmt.Sprintf("confidence(%d)", int(c))
}

// MarshalText writes the confidence's name.
func (c Confidence) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a confidence's name.
func (c *Confidence) UnmarshalText(b []byte) error {
	for _, v := range []Confidence{ConfidenceHigh, ConfidenceMedium, ConfidenceLow} {
		if v.String() == string(b) {
			*c = v
			return nil
		}
	}
	return fmt.Errorf("unknown confidence %q", b)
}

// Verdict is the outcome of one probe.
type Verdict string

// The five verdicts. A probe that reported nothing passes.
const (
	Passed        Verdict = "pass"
	Failed        Verdict = "fail"
	NotApplicable Verdict = "not-applicable"
	Inconclusive  Verdict = "inconclusive"
	Errored       Verdict = "error" // the harness itself broke
)

// Evidence names which observer saw what. Detail never quotes a secret: the
// report masks every secret value the harness knows, and probes describe a
// canary echo by variable and place, not by the text around it.
type Evidence struct {
	Observer string `json:"observer"` // "response", "stdout", "serverlog", "tools/list", "process", ...
	Detail   string `json:"detail"`
}

// Finding is one problem a probe found.
type Finding struct {
	Severity   Severity   `json:"severity"`
	Confidence Confidence `json:"confidence"`
	Message    string     `json:"message"`
	CWE        string     `json:"cwe,omitempty"`
	Evidence   []Evidence `json:"evidence,omitempty"`
	// Fingerprint is stable across runs of the same server: it hashes the
	// probe id and the message after tokens and paths were replaced by
	// their stable names and what varies between runs (line numbers,
	// times, sizes, ports, pids, random names) by fixed words
	// (report.StableMessage); the evidence keeps the detail.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Inherited names the SDK whose own behaviour the finding matches,
	// "mcp-go v1.2.1", when the server is built on a known SDK and the
	// SDK behaves so by itself (packs/inherit); the finding still counts,
	// but its fix belongs upstream. The engine sets it; probes leave it
	// empty.
	Inherited string `json:"inherited,omitempty"`
	// Accepted holds the baseline's written justification when the
	// finding is accepted; an accepted finding stays in the report but does
	// not fail the run.
	Accepted string `json:"accepted,omitempty"`
}

// String renders a finding the way go test and the text report print it.
func (f Finding) String() string {
	var b strings.Builder
	b.WriteString(f.Message)
	for _, e := range f.Evidence {
		fmt.Fprintf(&b, "\n    evidence: %s: %s", e.Observer, e.Detail)
	}
	return b.String()
}
