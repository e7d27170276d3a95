package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// Named is one server's report in a merged report.
type Named = report.NamedReport

// Names are the results as named reports, in order.
func Names(results []Result) []Named {
	out := make([]Named, len(results))
	for i, r := range results {
		out[i] = Named{Name: r.Name, Report: r.Report}
	}
	return out
}

// ExitCode is the exit code over all servers, each judged by
// report.ExitCode: ExitHarness when any server's run could not run (or
// tested nothing), else ExitFindings when any has a finding at or above
// failOn, else ExitClean. No servers at all is ExitHarness.
func ExitCode(reps []Named, failOn packs.Severity) int {
	if len(reps) == 0 {
		return report.ExitHarness
	}
	worst := report.ExitClean
	for _, r := range reps {
		switch report.ExitCode(r.Report, failOn) {
		case report.ExitHarness:
			return report.ExitHarness
		case report.ExitFindings:
			worst = report.ExitFindings
		}
	}
	return worst
}

// WriteSummary writes the table of servers: name, launcher, verdict (pass;
// warn: findings below failOn only; FAIL; INCOMPLETE: tested, but a check
// went untested, see report.RunIncomplete; ERROR; by report.ExitCode at failOn), the worst finding and the
// run's time; then, for each server that did not pass, its failing
// findings or its harness error; then the count.
func WriteSummary(w io.Writer, reps []Named, failOn packs.Severity) error {
	return WriteSummaryWith(w, reps, failOn, report.TextOptions{})
}

// WriteSummaryWith writes the table as WriteSummary does; with
// opts.Color, the verdicts, the severities of the failing findings and
// the count's failing numbers are coloured as the text report colours
// them (report.Paint). Text from a server or a configuration is cleaned
// (report.CleanLine), so only those colours reach the terminal.
func WriteSummaryWith(w io.Writer, reps []Named, failOn packs.Severity, opts report.TextOptions) error {
	var b strings.Builder
	rows := [][]string{{"SERVER", "LAUNCHER", "VERDICT", "WORST FINDING", "TIME"}}
	counts := map[string]int{}
	for _, r := range reps {
		v := verdict(r.Report, failOn)
		counts[v]++
		rows = append(rows, []string{report.CleanLine(r.Name), report.CleanLine(launcherOf(r.Report)), v, report.CleanLine(worstFinding(r.Report)), runTime(r.Report)})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for n, row := range rows {
		for i, c := range row {
			if i == len(row)-1 {
				b.WriteString(c)
				break
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2)
			if i == 2 && n > 0 {
				c = report.Paint(opts.Color, verdictLabel[c], c)
			}
			b.WriteString(c + pad)
		}
		b.WriteString("\n")
	}
	for _, r := range reps {
		lines := problems(r.Report, failOn)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", report.CleanLine(r.Name))
		for _, l := range lines {
			b.WriteString("  " + l.show(opts.Color) + "\n")
		}
	}
	count := func(n int, what, label string) string {
		s := fmt.Sprintf("%d %s", n, what)
		if n == 0 {
			return s
		}
		return report.Paint(opts.Color, label, s)
	}
	incomplete := ""
	if n := counts["INCOMPLETE"]; n > 0 {
		incomplete = ", " + count(n, "incomplete", "INCONCLUSIVE")
	}
	fmt.Fprintf(&b, "\nscan: %s: %d pass, %s, %s%s, %s\n", Servers(len(reps)), counts["pass"],
		count(counts["warn"], "warn", "WARN"), count(counts["FAIL"], "fail", "FAIL"), incomplete, count(counts["ERROR"], "error", "ERROR"))
	_, err := io.WriteString(w, b.String())
	return err
}

// verdictLabel is the text report's label each verdict of the table is
// coloured as.
var verdictLabel = map[string]string{"pass": "PASS", "warn": "WARN", "FAIL": "FAIL", "ERROR": "ERROR"}

// Servers is "1 server" or "N servers".
func Servers(n int) string {
	if n == 1 {
		return "1 server"
	}
	return fmt.Sprintf("%d servers", n)
}

func verdict(rep *report.Report, failOn packs.Severity) string {
	switch report.ExitCode(rep, failOn) {
	case report.ExitClean:
		if len(failing(rep)) > 0 {
			return "warn" // open findings below failOn only
		}
		return "pass"
	case report.ExitFindings:
		return "FAIL"
	}
	if report.RunIncomplete(rep, failOn) {
		return "INCOMPLETE" // tested, but a check it had to make went untested
	}
	return "ERROR"
}

// launcherOf reads the launcher from the scan's first note; "-" for a
// report scan did not write.
func launcherOf(rep *report.Report) string {
	for _, w := range rep.Warnings {
		if rest, ok := strings.CutPrefix(w, "scan: "); ok {
			if i := strings.LastIndex(rest, ", launcher "); i >= 0 {
				return rest[i+len(", launcher "):]
			}
		}
	}
	return "-"
}

// problem is one line under a server that did not pass: a failing
// finding ("ID severity: message", its severity coloured when asked) or
// what kept the server from being tested.
type problem struct {
	id   string
	sev  packs.Severity
	text string // the message, or the whole line when id is ""
}

func (p problem) show(color bool) string {
	if p.id == "" {
		return p.text
	}
	return p.id + " " + report.PaintSeverity(color, p.sev) + ": " + p.text
}

// failing lists the counted findings of failing probes, worst first.
func failing(rep *report.Report) []problem {
	var fs []problem
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict != packs.Failed {
				continue
			}
			if len(pr.Findings) == 0 {
				fs = append(fs, problem{report.CleanLine(pr.ID), pr.Severity, report.CleanLine(pr.Reason)})
			}
			for _, fd := range pr.Findings {
				if fd.Accepted == "" {
					fs = append(fs, problem{report.CleanLine(pr.ID), fd.Severity, report.CleanLine(fd.Message)})
				}
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b problem) int { return int(b.sev) - int(a.sev) })
	return fs
}

func worstFinding(rep *report.Report) string {
	if fs := failing(rep); len(fs) > 0 {
		return fs[0].id + " " + fs[0].sev.String()
	}
	return "-"
}

func problems(rep *report.Report, failOn packs.Severity) []problem {
	if rep.HarnessError != "" {
		return []problem{{text: "harness error: " + report.CleanLine(rep.HarnessError)}}
	}
	if report.RunIncomplete(rep, failOn) {
		var ps []problem
		for _, u := range report.UntestedChecks(rep, failOn) {
			ps = append(ps, problem{text: report.CleanLine(u)})
		}
		return append(ps, failing(rep)...)
	}
	if report.ExitCode(rep, failOn) == report.ExitHarness {
		return []problem{{text: "nothing was tested: every selected pack was not applicable"}}
	}
	return failing(rep)
}

func runTime(rep *report.Report) string {
	if rep.Started.IsZero() || rep.Finished.Before(rep.Started) {
		return "-"
	}
	return rep.Finished.Sub(rep.Started).Round(100 * time.Millisecond).String()
}

// ReadReports reads JSON reports for a merge: a merged report (an object
// of reports by name) gives each of its reports, a single report is named
// by its file name without .json. A name met twice is an error.
func ReadReports(paths []string) ([]Named, error) {
	var out []Named
	for _, path := range paths {
		reps, err := readOne(path)
		if err != nil {
			return nil, err
		}
		for _, r := range reps {
			if slices.ContainsFunc(out, func(o Named) bool { return o.Name == r.Name }) {
				return nil, fmt.Errorf("%s: a server named %q is already in an earlier report", path, r.Name)
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func readOne(path string) ([]Named, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, report.MaxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(data) > report.MaxJSONBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB", path, report.MaxJSONBytes>>20)
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if head.Schema != nil {
		rep, err := report.ReadJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		return []Named{{Name: strings.TrimSuffix(filepath.Base(path), ".json"), Report: rep}}, nil
	}
	set, err := report.ReadJSONSet(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return set, nil
}
