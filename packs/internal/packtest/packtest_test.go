package packtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// recorder is a testing.TB that keeps what Expect says instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Logf(string, ...any) {}
func (r *recorder) FailNow()            { panic("FailNow") }

func finding(sev packs.Severity, msg string) packs.Finding {
	return packs.Finding{Severity: sev, Message: msg}
}

func sample() *report.Report {
	return &report.Report{Packs: []report.Pack{{Name: "fs", Probes: []report.Probe{
		{ID: "A", Verdict: packs.Failed, Token: "tok123", Findings: []packs.Finding{finding(packs.High, `read_file(path="x-tok123") returned the canary`)}},
		{ID: "B", Verdict: packs.Passed},
		{ID: "C", Verdict: packs.NotApplicable, Reason: "no tool takes a path"},
		{ID: "D", Verdict: packs.Inconclusive, Reason: "no answer"},
	}}}}
}

// errsOf runs Expect on a recorder and returns what it reported.
func errsOf(rep *report.Report, want Want, opts ...Option) (errs []string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil && p != "FailNow" {
			panic(p)
		}
		errs = r.errs
	}()
	Expect(r, rep, want, opts...)
	return r.errs
}

// TestExpectBothWays proves the checker fails on a missing finding as it
// does on an unexpected one, and passes a report that is as wanted.
func TestExpectBothWays(t *testing.T) {
	rep := sample()
	rep.Packs[0].Probes[3].Verdict = packs.Passed
	cases := []struct {
		name string
		rep  *report.Report
		want Want
		opts []Option
		errs []string // each must be in one reported error; none means no error
	}{
		{"as wanted", rep, Want{"A": {`read_file(path="x-{token}")`}}, nil, nil},
		{"severity as wanted", rep, Want{"A": {`high: read_file(`}}, []Option{WithSeverity()}, nil},
		{"unexpected fail", rep, nil, nil, []string{"A: unexpected fail"}},
		{"missing finding", rep, Want{"A": {"returned the canary", "listed root-evil"}}, nil, []string{`A: findings`, `want one containing "listed root-evil"`}},
		{"wanted probe passes", rep, Want{"A": nil, "B": {"anything"}}, nil, []string{"B: verdict pass"}},
		{"wanted probe never ran", rep, Want{"A": nil, "Z": {"x"}}, nil, []string{"Z: probe did not run"}},
		{"ran", rep, Want{"A": nil}, []Option{Ran("Y")}, []string{"Y: probe did not run"}},
		{"wrong severity", rep, Want{"A": {`critical: read_file(`}}, []Option{WithSeverity()}, []string{"want a critical one containing"}},
		{"absent text present", rep, Want{"A": nil}, []Option{Absent(Want{"A": {"the canary"}})}, []string{"A: unexpected finding"}},
		{"not applicable refused", rep, Want{"A": nil}, []Option{OnlyNotApplicable()}, []string{"C: verdict not-applicable"}},
		{"not applicable allowed", rep, Want{"A": nil}, []Option{OnlyNotApplicable("C")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := errsOf(c.rep, c.want, c.opts...)
			if len(c.errs) == 0 && len(got) > 0 {
				t.Errorf("Expect reported %q, want nothing", got)
			}
			if len(c.errs) > 0 && len(got) == 0 {
				t.Errorf("Expect reported nothing, want %q", c.errs)
			}
			for _, e := range c.errs {
				if !strings.Contains(strings.Join(got, "\n"), e) {
					t.Errorf("Expect reported %q, want one containing %q", got, e)
				}
			}
		})
	}
}

// TestExpectInconclusive: a probe neither wanted nor passing nor not
// applicable is an error.
func TestExpectInconclusive(t *testing.T) {
	got := errsOf(sample(), Want{"A": nil})
	if len(got) != 1 || !strings.Contains(got[0], "D: verdict inconclusive (no answer), want pass") {
		t.Errorf("Expect reported %q, want D's inconclusive verdict", got)
	}
}

func TestTwinName(t *testing.T) {
	if got := (Twin{}).TestName(); got != "correct" {
		t.Errorf("Twin{}.TestName() = %q, want correct", got)
	}
	if got := (Twin{Flaws: "prefix-check"}).TestName(); got != "prefix-check" {
		t.Errorf("TestName() = %q, want prefix-check", got)
	}
}
