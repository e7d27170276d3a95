package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// WriteJUnit writes rep as JUnit XML for CI: a <testsuites> root holding one
// <testsuite name="sealmark/<pack>"> per pack and one <testcase
// classname="<pack>" name="<probe name>" time="<seconds>"> per probe:
//   - fail, by the probe's Outcome at the report's fail bar: a probe that
//     fails the run gets <failure message="ID severity: first failing
//     finding's message" type="severity"> with every finding and its
//     evidence as text (a probe that failed without a finding is described
//     by its reason), a finding the baseline accepts saying so; a warning
//     (every open finding below the bar) is a passed testcase with its
//     findings in <system-out>; a probe whose every finding is accepted
//     gets <skipped message="ID accepted by the baseline: justification"/>,
//     its findings in <system-out>. Neither fails the run, so neither
//     fails the CI job;
//   - not-applicable: <skipped message="reason"/>; inconclusive: <skipped
//     message="inconclusive: reason"/>;
//   - error, or a verdict this writer does not know: <error message=...>;
//   - pass: an empty testcase.
//
// A probe's notes go to its <system-out>. Each suite and the root count
// tests, failures, errors and skipped; each suite carries the run's class
// and its warnings (paths scan replaced, files staged or withheld, ...) as
// properties. When HarnessError is set, a last suite "sealmark" holds
// one testcase "run" in error, so CI never reads the run as clean.
//
// Text from the server is cleaned as in WriteText, so the document holds
// only characters XML 1.0 allows, whatever the server wrote.
func WriteJUnit(w io.Writer, rep *Report) error {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(junitFor(rep)); err != nil {
		return fmt.Errorf("report: encode JUnit: %w", err)
	}
	buf.WriteString("\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write JUnit: %w", err)
	}
	return nil
}

func junitFor(rep *Report) junitSuites {
	root := junitSuites{Name: "sealmark"}
	props := junitRunProperties(rep)
	var stamp string
	if !rep.Started.IsZero() {
		stamp = rep.Started.UTC().Format("2006-01-02T15:04:05")
	}
	var total time.Duration
	for _, pk := range rep.Packs {
		s := junitSuite{Name: xmlText(clean("sealmark/" + pk.Name)), Timestamp: stamp, Properties: props}
		var d time.Duration
		for _, pr := range pk.Probes {
			c := junitCaseFor(pk, pr, rep.FailBar(), rep.Untested(pk, pr, rep.FailBar()))
			s.count(c)
			d += time.Duration(pr.Millis) * time.Millisecond
		}
		s.Time = seconds(d)
		total += d
		root.add(s)
	}
	if rep.HarnessError != "" {
		s := junitSuite{Name: "sealmark", Timestamp: stamp, Properties: props, Time: seconds(0)}
		s.count(junitCase{
			Classname: "sealmark",
			Name:      "run",
			Time:      seconds(0),
			Error: &junitProblem{
				Message: xmlText(firstLine(rep.HarnessError)),
				Type:    "harness",
				Text:    xmlText(indent(rep.HarnessError, "")),
			},
		})
		root.add(s)
	}
	root.Time = seconds(total)
	return root
}

// junitRunProperties are the properties every suite carries: the class and
// the reasons for it, the harness version, and the run's warnings.
func junitRunProperties(rep *Report) *junitProperties {
	var ps []junitProperty
	if rep.Class != "" {
		ps = append(ps, junitProperty{Name: "class", Value: xmlText(clean(rep.Class))})
	}
	for _, r := range rep.ClassReasons {
		ps = append(ps, junitProperty{Name: "class.reason", Value: xmlText(clean(r))})
	}
	if rep.Tool.Version != "" {
		ps = append(ps, junitProperty{Name: "sealmark.version", Value: xmlText(clean(rep.Tool.Version))})
	}
	for _, w := range rep.Warnings { // paths replaced, files staged or withheld, ...
		ps = append(ps, junitProperty{Name: "warning", Value: xmlText(clean(w))})
	}
	if len(ps) == 0 {
		return nil
	}
	return &junitProperties{Properties: ps}
}

// junitCaseFor is pr's testcase; untested (Report.Untested) makes an
// inconclusive probe an error rather than a skip, since it keeps the run
// from passing.
func junitCaseFor(pk Pack, pr Probe, bar packs.Severity, untested bool) junitCase {
	c := junitCase{
		Classname: xmlText(clean(pk.Name)),
		Name:      xmlText(clean(pr.Name)),
		Time:      seconds(time.Duration(pr.Millis) * time.Millisecond),
	}
	id := clean(pr.ID)
	switch pr.Verdict {
	case packs.Passed:
	case packs.Failed:
		fs := failureFindings(pr)
		var text []string
		for _, f := range fs {
			text = append(text, FindingText(pr.ID, f, "  "))
		}
		if pr.Reason != "" && len(pr.Findings) > 0 {
			text = append(text, "reason: "+indent(pr.Reason, "  "))
		}
		switch ProbeOutcome(pr, bar) {
		case OutcomeAccepted:
			// Every finding accepted: it does not fail the run, so it
			// does not fail the CI job either; the findings stay in view.
			c.Skipped = &junitSkipped{Message: xmlText(id + " accepted by the baseline: " + firstLine(pr.Findings[0].Accepted))}
			c.SystemOut = xmlText(strings.Join(text, "\n"))
		case OutcomeWarn:
			// Below the fail bar: a warning, a passed testcase with the
			// findings in its output, as go test logs them.
			c.SystemOut = xmlText("warning: below fail_on " + bar.String() + "\n" + strings.Join(text, "\n"))
		default:
			first := fs[slices.IndexFunc(fs, func(f packs.Finding) bool { return FindingFails(f, bar) })]
			c.Failure = &junitProblem{
				Message: xmlText(id + " " + first.Severity.String() + ": " + firstLine(first.Message)),
				Type:    first.Severity.String(),
				Text:    xmlText(strings.Join(text, "\n")),
			}
		}
	case packs.NotApplicable:
		c.Skipped = &junitSkipped{Message: xmlText(firstLine(pr.Reason))}
	case packs.Inconclusive:
		if !untested {
			c.Skipped = &junitSkipped{Message: xmlText("inconclusive: " + firstLine(pr.Reason))}
			break
		}
		msg := id + " inconclusive"
		if PackIncomplete(pk) {
			msg = id + " inconclusive (pack " + clean(pk.Name) + " INCOMPLETE)"
		}
		if pr.Reason != "" {
			msg += ": " + firstLine(pr.Reason)
		}
		c.Error = &junitProblem{Message: xmlText(msg), Type: "inconclusive", Text: xmlText(indent(pr.Reason, ""))}
	default:
		msg := "the harness broke"
		if pr.Verdict != packs.Errored {
			msg = "unknown verdict " + word(string(pr.Verdict))
		}
		if pr.Reason != "" {
			msg += ": " + firstLine(pr.Reason)
		}
		c.Error = &junitProblem{Message: xmlText(id + " " + msg), Type: "error", Text: xmlText(indent(pr.Reason, ""))}
	}
	if len(pr.Notes) > 0 {
		notes := make([]string, len(pr.Notes))
		for i, n := range pr.Notes {
			notes[i] = "note: " + indent(n, "  ")
		}
		if c.SystemOut != "" {
			notes = append([]string{c.SystemOut}, notes...)
		}
		c.SystemOut = xmlText(strings.Join(notes, "\n"))
	}
	return c
}

// seconds is a JUnit time attribute: seconds with three decimals.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

// xmlText makes text that clean or indent already made safe for a terminal
// safe for XML 1.0 too: the only characters left that XML forbids are the
// noncharacters U+FFFE and U+FFFF, written as escapes like clean's.
func xmlText(s string) string {
	return xmlNonchars.Replace(s)
}

var xmlNonchars = strings.NewReplacer("\ufffe", `\ufffe`, "\uffff", `\uffff`)

func (s *junitSuite) count(c junitCase) {
	s.Tests++
	switch {
	case c.Failure != nil:
		s.Failures++
	case c.Error != nil:
		s.Errors++
	case c.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, c)
}

func (r *junitSuites) add(s junitSuite) {
	r.Tests += s.Tests
	r.Failures += s.Failures
	r.Errors += s.Errors
	r.Skipped += s.Skipped
	r.Suites = append(r.Suites, s)
}

// The JUnit XML elements WriteJUnit writes, in the shape Jenkins, GitLab and
// GitHub test reporters read.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string           `xml:"name,attr"`
		Tests      int              `xml:"tests,attr"`
		Failures   int              `xml:"failures,attr"`
		Errors     int              `xml:"errors,attr"`
		Skipped    int              `xml:"skipped,attr"`
		Time       string           `xml:"time,attr"`
		Timestamp  string           `xml:"timestamp,attr,omitempty"`
		Properties *junitProperties `xml:"properties,omitempty"`
		Cases      []junitCase      `xml:"testcase"`
	}
	junitProperties struct {
		Properties []junitProperty `xml:"property"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Classname string        `xml:"classname,attr"`
		Name      string        `xml:"name,attr"`
		Time      string        `xml:"time,attr"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)
