package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// NamedReport is one server's report in a merged report (sealmark scan,
// sealmark merge), named by the server.
type NamedReport struct {
	Name   string
	Report *Report
}

// WriteJSONNamed writes a merged report: WriteJSONSet's object of reports
// keyed by server name.
func WriteJSONNamed(w io.Writer, reps []NamedReport) error {
	set := make(map[string]*Report, len(reps))
	for _, r := range reps {
		set[r.Name] = r.Report
	}
	return WriteJSONSet(w, set)
}

// ReadJSONSet reads a merged report (WriteJSONSet, WriteJSONNamed): each
// report read as ReadJSON reads one, in name order. It refuses input
// larger than MaxJSONBytes and an empty set.
func ReadJSONSet(r io.Reader) ([]NamedReport, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: read JSON: %w", err)
	}
	if len(data) > MaxJSONBytes {
		return nil, fmt.Errorf("report: read JSON: larger than %d MiB", MaxJSONBytes>>20)
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("report: read JSON: %w", err)
	}
	if len(set) == 0 {
		return nil, errors.New("report: read JSON: no reports in the set")
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]NamedReport, 0, len(names))
	for _, n := range names {
		rep, err := ReadJSON(bytes.NewReader(set[n]))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", n, err)
		}
		out = append(out, NamedReport{Name: n, Report: rep})
	}
	return out, nil
}

// WriteSARIFSet writes one SARIF 2.1.0 log with one run per server, each
// as WriteSARIF writes it, told apart by automationDetails.id
// "<category>/<name>/" (SetCategory; opts.Category, default "sealmark"):
// code scanning takes the id up to its last "/" as the run's category, so
// each server's alerts stay its own and one upload holds every server.
// Each server's results name its own opts.Servers entry's file, when it
// has one.
func WriteSARIFSet(w io.Writer, reps []NamedReport, opts SARIFOptions) error {
	log := sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{}}
	for _, r := range reps {
		o := opts
		if own, ok := opts.Servers[r.Name]; ok {
			o.ArtifactURI, o.NoArtifact = own.ArtifactURI, own.NoArtifact
		}
		o.Category = SetCategory(opts.Category, r.Name)
		log.Runs = append(log.Runs, sarifFor(r.Report, o).Runs...)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return fmt.Errorf("report: encode SARIF: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write SARIF: %w", err)
	}
	return nil
}

// SetCategory is the category of a merged report's run for the server
// name under the category prefix (empty: "sealmark"): "<prefix>/<name>",
// a "/" in the name written "-".
func SetCategory(prefix, name string) string {
	prefix = strings.Trim(clean(strings.TrimSpace(prefix)), "/")
	if prefix == "" {
		prefix = "sealmark"
	}
	return prefix + "/" + strings.ReplaceAll(clean(name), "/", "-")
}

// WriteJUnitSet writes JUnit XML with one <testsuite> per server, named
// by the server, holding the testcases WriteJUnit writes for its report
// (classname "<server>/<pack>"), a harness error included.
func WriteJUnitSet(w io.Writer, reps []NamedReport) error {
	root := junitSuites{Name: "sealmark"}
	var total time.Duration
	for _, r := range reps {
		one := junitFor(r.Report)
		s := junitSuite{Name: xmlText(clean(r.Name))}
		for _, in := range one.Suites {
			if s.Timestamp == "" {
				s.Timestamp, s.Properties = in.Timestamp, in.Properties
			}
			for _, c := range in.Cases {
				c.Classname = xmlText(clean(r.Name)) + "/" + c.Classname
				s.count(c)
			}
		}
		d := r.Report.Finished.Sub(r.Report.Started)
		if d < 0 || r.Report.Started.IsZero() {
			d = 0
		}
		s.Time = seconds(d)
		total += d
		root.add(s)
	}
	root.Time = seconds(total)
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("report: encode JUnit: %w", err)
	}
	buf.WriteString("\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write JUnit: %w", err)
	}
	return nil
}
