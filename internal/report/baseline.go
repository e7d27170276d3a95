package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// Baseline is a file of accepted findings, each with a written reason:
//
//	{"accepted": [
//	  {"probe": "CORE-TOOLS-LIST", "fingerprint": "3f1c0e9a7b2d4c51",
//	   "severity": "medium", "message": "two tools are named read_note",
//	   "justification": "the duplicate tool name is kept for old clients until v3"}
//	]}
//
// Accepted findings stay in the report, marked; they do not fail the run.
// An entry whose probe ran (passed or failed) and matched no finding of it
// is stale and fails the run; an entry of a probe that did not run (its
// pack not selected, not applicable, inconclusive) is left alone.
type Baseline struct {
	Accepted []BaselineEntry `json:"accepted"`
	// oldFormat describes the entries LoadBaseline found with the
	// fingerprint of an older Sealmark and moved to the current one.
	oldFormat []string
}

// BaselineEntry accepts one finding. Probe and Fingerprint match it;
// Severity and Message say what it was when the entry was written, so a
// reviewer can tell two entries apart (they are not matched on).
type BaselineEntry struct {
	Probe         string `json:"probe"`
	Fingerprint   string `json:"fingerprint"`
	Severity      string `json:"severity,omitempty"`
	Message       string `json:"message,omitempty"`
	Justification string `json:"justification"`
}

// maxBaselineBytes bounds a baseline file.
const maxBaselineBytes = 4 << 20

// LoadBaseline reads and checks a baseline file: every entry needs a probe
// id, a fingerprint and a justification.
func LoadBaseline(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBaselineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %v", path, err)
	}
	if len(data) > maxBaselineBytes {
		return nil, fmt.Errorf("baseline %s: larger than %d bytes", path, maxBaselineBytes)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline %s: %v", path, err)
	}
	var errs []string
	for i, e := range b.Accepted {
		switch {
		case e.Probe == "":
			errs = append(errs, fmt.Sprintf("entry %d: no probe id", i))
		case e.Fingerprint == "":
			errs = append(errs, fmt.Sprintf("entry %d (%s): no fingerprint", i, e.Probe))
		case strings.TrimSpace(e.Justification) == "":
			errs = append(errs, fmt.Sprintf("entry %d (%s %s): no justification: say why the finding is accepted", i, e.Probe, e.Fingerprint))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("baseline %s: %s", path, strings.Join(errs, "; "))
	}
	b.upgrade()
	return &b, nil
}

// upgrade moves every entry whose fingerprint an older Sealmark computed
// (on the message with its line numbers, temp names, ports and times) to
// the current fingerprint of its message, so the entry keeps matching its
// finding, and remembers it for OldFormatWarning.
func (b *Baseline) upgrade() {
	for i := range b.Accepted {
		e := &b.Accepted[i]
		if fp, up := CurrentFingerprint(e.Probe, e.Message, e.Fingerprint); up {
			b.oldFormat = append(b.oldFormat, e.Probe+" "+e.Fingerprint)
			e.Fingerprint = fp
		}
	}
}

// OldFormatWarning is a sentence for the report's warnings when the
// baseline held fingerprints of an older Sealmark, "" otherwise (or when b
// is nil).
func (b *Baseline) OldFormatWarning() string {
	if b == nil || len(b.oldFormat) == 0 {
		return ""
	}
	return fmt.Sprintf("baseline: %d entr%s (%s) carry the fingerprint of an older Sealmark, which hashed line numbers, temp names, ports and times; they were matched by their message instead: rewrite the baseline with sealmark baseline write to keep it current",
		len(b.oldFormat), plural(len(b.oldFormat), "y", "ies"), strings.Join(b.oldFormat, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Accepts returns the justification of the entry that accepts the finding
// of probe with fingerprint, or "" when none does (or b is nil).
func (b *Baseline) Accepts(probe, fingerprint string) string {
	if b == nil {
		return ""
	}
	for _, e := range b.Accepted {
		if e.Probe == probe && e.Fingerprint == fingerprint {
			return e.Justification
		}
	}
	return ""
}

// ApplyBaseline marks the findings the baseline accepts, records its
// stale entries (those whose probe ran, passed or failed, and matched no
// finding) in rep.StaleBaseline and counts the summary afresh. Call it
// after Finalize, which sets the fingerprints.
func ApplyBaseline(rep *Report, b *Baseline) {
	if b == nil {
		return
	}
	if w := b.OldFormatWarning(); w != "" && !slices.Contains(rep.Warnings, w) {
		rep.Warnings = append(rep.Warnings, w)
	}
	used := make([]bool, len(b.Accepted))
	judged := map[string]bool{} // probe ids that passed or failed
	for pi := range rep.Packs {
		for qi := range rep.Packs[pi].Probes {
			pr := &rep.Packs[pi].Probes[qi]
			if pr.Verdict == packs.Passed || pr.Verdict == packs.Failed {
				judged[pr.ID] = true
			}
			for fi := range pr.Findings {
				f := &pr.Findings[fi]
				for i, e := range b.Accepted {
					if e.Probe == pr.ID && e.Fingerprint == f.Fingerprint {
						f.Accepted, used[i] = e.Justification, true
					}
				}
			}
		}
	}
	for i, e := range b.Accepted {
		if !used[i] && judged[e.Probe] {
			rep.StaleBaseline = append(rep.StaleBaseline, e.describe())
		}
	}
	rep.Summary = summarize(rep)
}

// describe is "PROBE-ID fingerprint (severity: message)", the parenthesis
// only as far as the entry says.
func (e BaselineEntry) describe() string {
	s := e.Probe + " " + e.Fingerprint
	switch {
	case e.Severity != "" && e.Message != "":
		s += " (" + e.Severity + ": " + firstLine(e.Message) + ")"
	case e.Message != "":
		s += " (" + firstLine(e.Message) + ")"
	case e.Severity != "":
		s += " (" + e.Severity + ")"
	}
	return s
}

// BaselineFrom makes a baseline that accepts every finding of rep's failing
// probes, in report order, once each. A finding the report already marks
// accepted keeps its justification; the others get justification, which may
// be empty: LoadBaseline refuses an entry without one, so a baseline written
// without a reason must be edited before it is used.
func BaselineFrom(rep *Report, justification string) *Baseline {
	b := &Baseline{Accepted: []BaselineEntry{}}
	seen := map[[2]string]bool{}
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict != packs.Failed {
				continue
			}
			for _, f := range pr.Findings {
				fp := f.Fingerprint
				if fp == "" {
					fp = Fingerprint(pr.ID, f.Message)
				} else {
					fp, _ = CurrentFingerprint(pr.ID, f.Message, fp)
				}
				if pr.ID == "" || seen[[2]string{pr.ID, fp}] {
					continue // a probe without an ID cannot be matched by a baseline
				}
				seen[[2]string{pr.ID, fp}] = true
				why := justification
				if f.Accepted != "" {
					why = f.Accepted
				}
				b.Accepted = append(b.Accepted, BaselineEntry{Probe: pr.ID, Fingerprint: fp, Severity: f.Severity.String(), Message: f.Message, Justification: why})
			}
		}
	}
	return b
}

// WriteBaseline writes b as indented JSON, the form LoadBaseline reads.
func WriteBaseline(w io.Writer, b *Baseline) error {
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("report: encode baseline: %w", err)
	}
	if _, err := w.Write(append(data, '\n')); err != nil {
		return fmt.Errorf("report: write baseline: %w", err)
	}
	return nil
}
