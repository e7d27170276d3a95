package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// T is the part of testing.T the run loop needs: one step of a run (the
// run, a pack, a start of a pack that asks for several, a probe) as a front
// end shows it. sealmarktest runs every step as a subtest, so go test -run
// selects packs and probes; Run (the CLI) runs every step in order.
type T interface {
	// Run runs f as the step name and returns when f has returned. A front
	// end may decline to run a step (go test -run); the loop goes on.
	Run(name string, f func(T)) bool
	// Log shows a line that judges nothing.
	Log(msg string)
	// Error shows a failing line and marks the step failed; the step goes
	// on. pos is the probe's own source position ("symlink.go:12"), or ""
	// for the harness's own lines.
	Error(pos, msg string)
	// Skip marks the step skipped with why. It may end the step at once
	// (testing.T.SkipNow): the loop does nothing in the step after it.
	Skip(why string)
}

// Hooks let a front end follow a run (progress lines, for instance).
type Hooks struct {
	Pack  func(name string)
	Probe func(pack string, res report.Probe)
}

// Run runs every selected pack, in order, and returns the finalized report
// (the baseline applied). The sandbox is gone when it returns (unless kept).
func (e *Engine) Run(ctx context.Context, h Hooks) *report.Report {
	return e.RunT(ctx, inOrder{}, h)
}

// RunT is the one run loop, behind both front doors. It opens the sandbox,
// runs each selected pack as a step of t (each start of a pack that asks
// for several as a step of the pack's, each probe as a step of its start's),
// runs a pack's restarted probes (core's drift check) on a start of their
// own after its others, closes the run and applies the baseline. A server that does not start fails the step of the pack that
// tried and skips every later pack ("server did not start (see core)"); a
// pack that does not apply is skipped with why, and recorded as not
// covered. ctx cancels the run: the steps after it do not run and the
// report says it was interrupted.
func (e *Engine) RunT(ctx context.Context, t T, h Hooks) *report.Report {
	defer e.Close()
	ctx, cancel := context.WithTimeoutCause(ctx, e.cfg.RunTimeout, fmt.Errorf("the run's deadline passed (timeouts.run %s)", e.cfg.RunTimeout))
	defer cancel()
	if err := e.open(); err != nil {
		t.Error("", "sealmark: "+e.Redact(err.Error()))
		return e.finish(t)
	}
	defer context.AfterFunc(ctx, e.abandon)() // abandon.go
	par := e.newParts(ctx, t, h)              // parallel.go
	h = par.hooks(h)
	all := e.Packs()
	cur := 0
	if par != nil {
		// The packs after the first start's own begin beside it, not
		// after its pack.
		e.firstStarted = func() { par.handOff(all[cur+1:]) }
	}
	for i, pk := range all {
		if ctx.Err() != nil {
			e.interrupted(ctx, t)
			break
		}
		cur = i
		if par.handOff(all[i:]) == pk.Name {
			continue
		}
		t.Run(pk.Name, func(t T) {
			if h.Pack != nil {
				h.Pack(pk.Name)
			}
			e.runPack(ctx, t, pk, h)
		})
	}
	e.dropHeld()
	par.wait()
	return e.finish(t)
}

// interrupted records that ctx ended the run early.
func (e *Engine) interrupted(ctx context.Context, t T) {
	why := "the run was interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		why += " (its deadline passed)"
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.DeadlineExceeded) {
			why = c.Error()
		}
	}
	e.mu.Lock()
	again := e.stopped
	e.stopped, e.hurry = true, true
	e.mu.Unlock()
	e.harnessError(errors.New(why))
	if again {
		return
	}
	t.Error("", "sealmark: "+why+"; the packs after it did not run")
}

// finish closes the run, applies the baseline and shows what fails the
// run outside any probe: a stale baseline entry, a sandbox left behind.
func (e *Engine) finish(t T) *report.Report {
	rep := e.Close()
	if e.cfg.Baseline != nil && !e.baselined {
		e.baselined = true
		report.ApplyBaseline(rep, e.cfg.Baseline)
		if len(rep.StaleBaseline) > 0 {
			t.Error("", "sealmark: baseline entries that match no finding (remove them): "+strings.Join(rep.StaleBaseline, ", "))
		}
	}
	if rep.Sandbox.CleanupError != "" {
		t.Error("", "sealmark: could not delete "+rep.Sandbox.CleanupError)
	}
	return rep
}

// runPack runs one pack: its one start, or each start it asks for.
func (e *Engine) runPack(ctx context.Context, t T, pk packs.Pack, h Hooks) {
	if e.skipUnstarted(t, pk) {
		return
	}
	if s := e.firstSurface(); s != nil && pk.Applies != nil {
		// The run's surface is known: a pack that does not apply costs no start.
		if ok, why := pk.Applies(s); !ok {
			e.notCovered(pk.Name, "not applicable: "+why)
			t.Skip("not applicable: " + e.Redact(why))
			return
		}
	}
	if !e.shares(pk) {
		e.dropHeld() // before the git layout is staged, as with no start held
	}
	if pk.GitLayout {
		e.stageGit()
	}
	starts := []packs.Start{{}}
	if pk.Starts != nil {
		var err error
		starts, err = pk.Starts(&packs.Setup{Ctx: ctx, Vars: maps.Clone(e.vars), Hints: e.cfg.Hints[pk.Name]})
		closers := make([]func(), len(starts))
		for i, st := range starts {
			closers[i] = sync.OnceFunc(func() {
				if st.Close != nil {
					st.Close()
				}
			})
			starts[i].Close = closers[i]
		}
		defer func() {
			for _, c := range closers {
				c()
			}
		}()
		if err == nil {
			err = checkStarts(starts)
		}
		switch {
		case errors.Is(err, packs.ErrNotApplicable):
			e.notCovered(pk.Name, err.Error())
			t.Skip(e.Redact(err.Error()))
			return
		case err != nil:
			err = e.harnessError(fmt.Errorf("pack %s: preparing its starts: %v", pk.Name, err))
			t.Error("", "sealmark: "+e.Redact(err.Error()))
			return
		case len(starts) == 0:
			e.notCovered(pk.Name, "not applicable: the pack asked for no start")
			t.Skip("not applicable: the pack asked for no start")
			return
		}
	}
	if len(starts) == 1 && starts[0].Name == "" {
		e.runStart(ctx, t, pk, starts[0], h)
		return
	}
	for _, st := range starts {
		if ctx.Err() != nil {
			e.interrupted(ctx, t)
			return
		}
		t.Run(st.Name, func(t T) { e.runStart(ctx, t, pk, st, h) })
	}
}

// checkStarts refuses start names that cannot be -run segments or repeat.
func checkStarts(starts []packs.Start) error {
	seen := map[string]bool{}
	for _, st := range starts {
		if len(starts) > 1 && !packs.ValidName(st.Name) {
			return fmt.Errorf("start name %q is not kebab-case", st.Name)
		}
		if seen[st.Name] {
			return fmt.Errorf("two starts named %q", st.Name)
		}
		seen[st.Name] = true
	}
	return nil
}

// runStart starts the server for one start of pk and runs pk's probes on
// it; then its Restarted probes (core's drift check) on a start of their
// own.
func (e *Engine) runStart(ctx context.Context, t T, pk packs.Pack, st packs.Start, h Hooks) {
	if st.Close != nil {
		defer st.Close()
	}
	if e.skipUnstarted(t, pk) {
		return
	}
	pr := e.takeHeld(pk) // share.go
	var err error
	if pr == nil {
		pr, err = e.startPack(ctx, pk, st, -1)
	}
	if err != nil {
		if e.firstSurface() == nil {
			e.mu.Lock()
			e.unstarted = pk.Name
			e.mu.Unlock()
		}
		t.Error("", fmt.Sprintf("sealmark: pack %s: the server did not start: %s", pk.Name, e.Redact(err.Error())))
		return
	}
	defer e.hold(pr, pk.SharesStart)
	if ok, why := pr.applies(); !ok {
		pr.packNotApplicable(why)
		t.Skip("not applicable: " + e.Redact(why))
		return
	}
	impossible := map[string][]string{} // why → the probes it ruled out, in order
	var whys []string
	var results []report.Probe // this start's verdicts, for an INCOMPLETE pack
	defer func() {
		name := pk.Name
		if st.Name != "" {
			name += "/" + st.Name
		}
		if line := e.untestedPack(name, results); line != "" {
			t.Error("", line)
		}
	}()
	defer func() {
		for _, why := range whys {
			t.Log(fmt.Sprintf("not applicable by construction, not run (%s): %s", e.Redact(why), strings.Join(impossible[why], ", ")))
		}
	}()
	for _, probe := range pk.Probes {
		if ctx.Err() != nil {
			e.interrupted(ctx, t)
			return
		}
		if why := pr.cannotApply(probe); why != "" {
			// No step: the report records the verdict, and one line per
			// reason says which probes it ruled out.
			res := pr.notApplicable(probe, why)
			results = append(results, res)
			if h.Probe != nil {
				h.Probe(pk.Name, res)
			}
			if impossible[why] == nil {
				whys = append(whys, why)
			}
			impossible[why] = append(impossible[why], probe.Name)
			continue
		}
		e.relaunchExited(ctx, pr)
		t.Run(probe.Name, func(t T) {
			res := pr.runProbe(ctx, probe)
			results = append(results, res)
			if h.Probe != nil {
				h.Probe(pk.Name, res)
			}
			e.show(t, probe, res)
		})
	}
	if len(pk.Restarted) == 0 || ctx.Err() != nil {
		return
	}
	pr.Close() // the restarted probes' start is the only server running
	e.runRestarted(ctx, t, pk, pr.idx, h)
}

// skipUnstarted skips pk when an earlier start of the run failed before any
// start succeeded: the server cannot start, and saying so once is enough.
func (e *Engine) skipUnstarted(t T, pk packs.Pack) bool {
	e.mu.Lock()
	failed := e.unstarted
	e.mu.Unlock()
	if failed == "" {
		return false
	}
	why := "server did not start (see " + failed + ")"
	e.notCovered(pk.Name, why)
	t.Skip(why)
	return true
}

// firstSurface is the surface of the run's first start, nil before it.
func (e *Engine) firstSurface() *packs.Surface {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.surface
}

// notCovered records a whole pack that did not run, once.
func (e *Engine) notCovered(pack, reason string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, nc := range e.rep.NotCovered {
		if nc.Pack == pack && nc.Probe == "" && nc.Reason == reason {
			return
		}
	}
	e.rep.NotCovered = append(e.rep.NotCovered, report.NotCovered{Pack: pack, Reason: reason})
}

// show maps one probe's result onto its step: not applicable and
// inconclusive skip it (an inconclusive probe at or above the fail bar
// fails it unless Config.AllowInconclusive: untestedProbe), a harness error fails it, a finding at or above the
// fail bar fails it (unless the baseline accepts it), a lower one is logged
// (report.Outcome: the same rule as every report and the exit code).
// Every finding is shown once, at the line of the Reportf that recorded it
// (a table row's: its file and name; one the engine added: the probe's Run).
func (e *Engine) show(t T, probe packs.Probe, res report.Probe) {
	for _, n := range res.Notes {
		t.Log(e.Redact(n))
	}
	switch res.Verdict {
	case packs.NotApplicable:
		t.Skip("not applicable: " + e.Redact(res.Reason))
		return
	case packs.Inconclusive:
		if line := e.untestedProbe(res); line != "" {
			t.Error(probePosition(probe), line)
			return
		}
		t.Skip("inconclusive: " + e.Redact(res.Reason))
		return
	case packs.Errored:
		t.Error("", "sealmark harness error in "+res.ID+": "+e.Redact(res.Reason))
		return
	}
	pos := probePosition(probe)
	findings := res.Findings
	if res.Verdict == packs.Failed && len(findings) == 0 {
		// Failed without a finding: shown as one at the probe's severity,
		// as every report counts it.
		why := res.Reason
		if why == "" {
			why = "probe " + res.Name + " failed without reporting a finding"
		}
		findings = []packs.Finding{{Severity: res.Severity, Message: why}}
	}
	for _, f := range findings {
		at := pos
		if q := res.Positions[f.Message]; q != "" && probe.Source == "" {
			at = q // the Reportf that recorded it
		}
		f.Message = e.Redact(f.Message)
		f.Evidence = slices.Clone(f.Evidence)
		for i := range f.Evidence {
			f.Evidence[i].Detail = e.Redact(f.Evidence[i].Detail)
		}
		f.Accepted = e.cfg.Baseline.Accepts(res.ID, f.Fingerprint)
		text := report.FindingText(res.ID, f, "    ")
		if report.FindingFails(f, e.FailOn()) {
			t.Error(at, text)
		} else {
			t.Log(at + ": " + text)
		}
	}
}

// probePosition is where go test shows what a probe reports: its Source
// when it is made from data (a table row), else its Run function's line.
func probePosition(probe packs.Probe) string {
	if probe.Source != "" {
		return probe.Source
	}
	return Position(probe.Run)
}

// Position is the source position of a probe's Run function, "file.go:12"
// (the base name, as go test prints it), or "" when unknown.
func Position(run func(*packs.Pass)) string {
	if run == nil {
		return ""
	}
	fn := runtime.FuncForPC(reflect.ValueOf(run).Pointer())
	if fn == nil {
		return ""
	}
	file, line := fn.FileLine(fn.Entry())
	return fmt.Sprintf("%s:%d", filepath.Base(file), line)
}

// inOrder is the CLI's T: every step runs, in order; what a step shows is
// in the report already.
type inOrder struct{}

func (inOrder) Run(_ string, f func(T)) bool { f(inOrder{}); return true }
func (inOrder) Log(string)                   {}
func (inOrder) Error(string, string)         {}
func (inOrder) Skip(string)                  {}
