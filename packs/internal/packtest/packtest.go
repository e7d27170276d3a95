// Package packtest runs a pack against fixture servers in its tests and
// checks each report against the findings every probe must give: the
// missing findings fail as loudly as the unexpected ones (what
// analysistest does for diagnostics).
//
//	func TestTwins(t *testing.T) {
//		self := packtest.Self(t)
//		twins := []packtest.Twin{
//			{}, // the correct server: no finding
//			{Flaws: "follow-links", Want: packtest.Want{"FS-READ-LINK-FILE": {`read_file(path="{sandbox}/link-file")`}}},
//		}
//		packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
//			return engine.Config{Catalog: []packs.Pack{fs.Pack}, Active: true,
//				Command: self, Args: []string{fsserver.Verb, "-flaws=" + tw.Flaws, "{sandbox}"}}
//		}, func(t *testing.T, tw packtest.Twin, r packtest.Result) { packtest.Expect(t, r.Report, tw.Want) })
//	}
package packtest

import (
	"context"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// Timeout bounds one test run of a pack (times slowtest's factor). It is
// a bound for hangs, never reached by a run that works.
const Timeout = 3 * time.Minute

// Parallel is how many runs RunAll has going at once: the runs wait on
// their servers, the file events and the call timeouts more than they
// compute, so four at a time finish sooner than go test's two.
const Parallel = 4

// Self is the test binary, which serves as the fixture servers and the
// sm-* programs.
func Self(t testing.TB) string {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	return self
}

// Config fills in what every pack test run shares: the sandbox under dir,
// every shipped pack (catalogue.All) when cfg gives no catalog, the pack
// named by the catalog's only pack, and the waits (a 20 s start,
// a 5 s call, 1 s for stdin and SIGTERM) where cfg leaves them zero; the
// start's bound and the run's grow on a busy machine (slowtest.Scale).
func Config(dir string, cfg engine.Config) engine.Config {
	cfg.SandboxDir = dir
	if cfg.Catalog == nil {
		cfg.Catalog = catalogue.All
	}
	if len(cfg.Packs) == 0 && len(cfg.Catalog) == 1 {
		cfg.Packs = []string{cfg.Catalog[0].Name}
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = slowtest.Scale(20 * time.Second)
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 5 * time.Second
	}
	if cfg.StdinGrace == 0 {
		cfg.StdinGrace = time.Second
	}
	if cfg.TermGrace == 0 {
		cfg.TermGrace = time.Second
	}
	return cfg
}

// Run runs the engine with Config(dir, cfg) and returns its report; it is
// safe to call from any goroutine.
func Run(dir string, cfg engine.Config) (*report.Report, error) {
	e, err := engine.New(Config(dir, cfg))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(Timeout))
	defer cancel()
	return e.Run(ctx, engine.Hooks{}), nil
}

// MustRun is Run in a fresh directory of the test's, failing the test when
// the run could not be made or the harness itself failed.
func MustRun(t testing.TB, cfg engine.Config) *report.Report {
	t.Helper()
	rep, err := Run(t.TempDir(), cfg)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	return rep
}

// Result is one run of RunAll: its sandbox directory, its report, and the
// error that kept it from running.
type Result struct {
	Dir    string
	Report *report.Report
	Err    error
}

// RunAll makes one run per case, Parallel at a time, each in a directory
// of its own, then checks each as a subtest named by the case (a case
// that is a Twin, or has a Name method), after requiring that the run
// worked and the harness did not fail.
func RunAll[C any](t *testing.T, cases []C, cfg func(C) engine.Config, check func(t *testing.T, c C, r Result)) {
	t.Helper()
	results := make([]Result, len(cases))
	sem := make(chan struct{}, Parallel)
	var wg sync.WaitGroup
	for i, c := range cases {
		results[i].Dir = t.TempDir()
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i].Report, results[i].Err = Run(results[i].Dir, cfg(c))
		})
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(nameOf(c, i), func(t *testing.T) {
			require.NoError(t, results[i].Err)
			require.Empty(t, results[i].Report.HarnessError)
			check(t, c, results[i])
		})
	}
}

// Short is cases as they are, or under go test -short only those whose
// names (their TestName, "correct" for the correct twin) are in keep: each
// case left out gets a subtest that skips saying why, so -v lists it. A
// table's keep is its correct twin and a flawed twin or two, enough to show
// the pack finds what it must and nothing else; go test without -short
// runs every case.
func Short[C interface{ TestName() string }](t *testing.T, cases []C, why string, keep ...string) []C {
	t.Helper()
	if !testing.Short() {
		return cases
	}
	var kept []C
	for _, c := range cases {
		if slices.Contains(keep, c.TestName()) {
			kept = append(kept, c)
			continue
		}
		t.Run(c.TestName(), func(t *testing.T) { t.Skip("-short: " + why) })
	}
	require.Len(t, kept, len(keep), "packtest.Short keeps %q", keep)
	return kept
}

func nameOf(c any, i int) string {
	if n, ok := c.(interface{ TestName() string }); ok {
		return n.TestName()
	}
	return "case-" + strconv.Itoa(i)
}

// Twin is one fixture server of a twin table: the flaws it is started
// with (none for the correct server) and what its report must show.
type Twin struct {
	Flaws string
	Want  Want
	// Not are, per probe, texts no finding may contain.
	Not Want
}

// TestName is the twin's subtest name: its flaws, or "correct".
func (tw Twin) TestName() string {
	if tw.Flaws == "" {
		return "correct"
	}
	return tw.Flaws
}

// Want is, per probe, the texts its findings must contain, one finding per
// text: the probe must fail. A probe is named by its id, or by
// "start/ID" in a pack of several starts (db's reader/DB-ROLE-REACH).
type Want map[string][]string

// Option changes what Expect accepts.
type Option func(*expectation)

type expectation struct {
	severity bool
	mayNA    []string
	strictNA bool
	ran      []string
	not      Want
}

// WithSeverity reads every wanted text as "SEVERITY: text": the finding
// must also have that severity ("high: fetch_url(url=...").
func WithSeverity() Option { return func(e *expectation) { e.severity = true } }

// OnlyNotApplicable makes every probe not wanted pass, except those named,
// which may also be not applicable. Without it a probe not wanted passes
// or is not applicable.
func OnlyNotApplicable(ids ...string) Option {
	return func(e *expectation) { e.strictNA, e.mayNA = true, ids }
}

// Ran names probes that must have run even when nothing is wanted of them.
func Ran(keys ...string) Option { return func(e *expectation) { e.ran = keys } }

// Absent names, per probe, texts no finding may contain.
func Absent(not Want) Option { return func(e *expectation) { e.not = not } }

// Expect checks a report against want: each wanted probe fails with a
// finding containing each of its texts ("{token}" stands for the probe's
// token); every other probe passes or is not applicable; every wanted
// probe ran. It records every mismatch and goes on.
func Expect(t testing.TB, rep *report.Report, want Want, opts ...Option) {
	t.Helper()
	var e expectation
	for _, o := range opts {
		o(&e)
	}
	require.NotEmpty(t, rep.Packs, "the report has no pack")
	seen := map[string]bool{}
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			key := p.ID
			if pk.Start != "" {
				key = pk.Start + "/" + p.ID
			}
			seen[key] = true
			e.check(t, key, p, want)
		}
	}
	for _, key := range append(slices.Sorted(maps.Keys(want)), e.ran...) {
		if !seen[key] {
			t.Errorf("%s: probe did not run", key)
		}
	}
}

func (e *expectation) check(t testing.TB, key string, p report.Probe, want Want) {
	t.Helper()
	if testing.Verbose() {
		t.Logf("%s: %s %s notes %q", key, p.Verdict, p.Reason, p.Notes)
		for _, f := range p.Findings {
			t.Logf("    FINDING %s %s", f.Severity, f.Message)
		}
	}
	texts, expected := want[key]
	if expected && p.Verdict != packs.Failed {
		t.Errorf("%s: verdict %s (%s), want fail with %q; notes %q", key, p.Verdict, p.Reason, texts, p.Notes)
		return
	}
	for _, text := range texts {
		sev := ""
		if e.severity {
			sev, text, _ = strings.Cut(text, ": ")
		}
		if !slices.ContainsFunc(p.Findings, func(f packs.Finding) bool {
			return (sev == "" || f.Severity.String() == sev) && contains(f.Message, text, p.Token)
		}) {
			what := "one"
			if sev != "" {
				what = "a " + sev + " one"
			}
			t.Errorf("%s: findings %v, want %s containing %q; reason %q, notes %q", key, p.Findings, what, text, p.Reason, p.Notes)
		}
	}
	for _, text := range e.not[key] {
		for _, f := range p.Findings {
			if contains(f.Message, text, p.Token) {
				t.Errorf("%s: unexpected finding %q", key, f.Message)
			}
		}
	}
	switch {
	case expected:
	case p.Verdict == packs.Failed:
		t.Errorf("%s: unexpected fail: %v", key, p.Findings)
	case p.Verdict == packs.Passed:
	case p.Verdict == packs.NotApplicable && (!e.strictNA || slices.Contains(e.mayNA, p.ID)):
	default:
		t.Errorf("%s: verdict %s (%s), want pass", key, p.Verdict, p.Reason)
	}
}

// contains reports whether msg contains text, with "{token}" in text
// standing for the probe's token when the message has it unredacted.
func contains(msg, text, token string) bool {
	return strings.Contains(msg, text) || token != "" && strings.Contains(msg, strings.ReplaceAll(text, "{token}", token))
}
