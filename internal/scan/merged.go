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
	var b strings.Builder
	rows := [][]string{{"SERVER", "LAUNCHER", "VERDICT", "WORST FINDING", "TIME"}}
	counts := map[string]int{}
	for _, r := range reps {
		v := verdict(r.Report, failOn)
		counts[v]++
		rows = append(rows, []string{r.Name, launcherOf(r.Report), v, worstFinding(r.Report), runTime(r.Report)})
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, row := range rows {
		for i, c := range row {
			if i == len(row)-1 {
				b.WriteString(c)
				break
			}
			fmt.Fprintf(&b, "%-*s  ", widths[i], c)
		}
		b.WriteString("\n")
	}
	for _, r := range reps {
		lines := problems(r.Report, failOn)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", r.Name)
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	incomplete := ""
	if n := counts["INCOMPLETE"]; n > 0 {
		incomplete = fmt.Sprintf(", %d incomplete", n)
	}
	fmt.Fprintf(&b, "\nscan: %s: %d pass, %d warn, %d fail%s, %d error\n", Servers(len(reps)), counts["pass"], counts["warn"], counts["FAIL"], incomplete, counts["ERROR"])
	_, err := io.WriteString(w, b.String())
	return err
}

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

// failing lists the counted findings of failing probes, worst first.
func failing(rep *report.Report) []string {
	type f struct {
		sev  packs.Severity
		text string
	}
	var fs []f
	for _, pk := range rep.Packs {
		for _, pr := range pk.Probes {
			if pr.Verdict != packs.Failed {
				continue
			}
			if len(pr.Findings) == 0 {
				fs = append(fs, f{pr.Severity, fmt.Sprintf("%s %s: %s", pr.ID, pr.Severity, firstLine(pr.Reason))})
			}
			for _, fd := range pr.Findings {
				if fd.Accepted == "" {
					fs = append(fs, f{fd.Severity, fmt.Sprintf("%s %s: %s", pr.ID, fd.Severity, firstLine(fd.Message))})
				}
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b f) int { return int(b.sev) - int(a.sev) })
	out := make([]string, len(fs))
	for i, x := range fs {
		out[i] = x.text
	}
	return out
}

func worstFinding(rep *report.Report) string {
	if fs := failing(rep); len(fs) > 0 {
		id, _, _ := strings.Cut(fs[0], ":")
		return id
	}
	return "-"
}

func problems(rep *report.Report, failOn packs.Severity) []string {
	if rep.HarnessError != "" {
		return []string{"harness error: " + firstLine(rep.HarnessError)}
	}
	if report.RunIncomplete(rep, failOn) {
		return append(report.UntestedChecks(rep, failOn), failing(rep)...)
	}
	if report.ExitCode(rep, failOn) == report.ExitHarness {
		return []string{"nothing was tested: every selected pack was not applicable"}
	}
	return failing(rep)
}

func runTime(rep *report.Report) string {
	if rep.Started.IsZero() || rep.Finished.Before(rep.Started) {
		return "-"
	}
	return rep.Finished.Sub(rep.Started).Round(100 * time.Millisecond).String()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
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
