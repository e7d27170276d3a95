package engine

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// A run with Config.Jobs above 1 runs packs at once. Its first start (the
// first pack's, core's in the shipped catalogue) comes alone, as without
// jobs: a server that cannot start is said once. Once it has answered
// tools/list, while its pack goes on, each later pack
// that would start the server afresh anyway, and applies to the first
// start's surface, runs as a run of its own (a part): a sandbox, canaries,
// observers and server starts of its own, with the same configuration,
// while the run goes on with the others. A pack that shares a start
// (packs.Pack.SharesStart) stays in the run, on the start it would share.
// At most Jobs packs run at once, the run's own included. Each part's
// report entries join the run's in pack order before it closes: its pack,
// what it did not cover, its timeline, its new warnings, its harness error
// and its sandbox's cleanup error.
//
// Parts run only for the CLI's Run (the go test door runs steps in
// order) and only where servers running at once cannot see each other: a
// stdio server in a scrubbed sandbox that is not kept, and no host
// service (sandbox.services) or staged host file that two would share.

// parts runs the packs the run hands off and merges their reports.
type parts struct {
	e      *Engine
	ctx    context.Context
	h      Hooks
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	done   []*Engine
	order  map[string]int  // pack name → its place in the run
	handed map[string]bool // the packs that run as parts
	kept   map[string]bool // the packs that run in the run
}

// newParts is the run's parts, or nil when its packs run one after
// another: Jobs is 1, t is not the CLI's, or the run is of a kind that
// cannot be split (see above).
func (e *Engine) newParts(ctx context.Context, t T, h Hooks) *parts {
	c := e.cfg
	if _, cli := t.(inOrder); !cli || c.Jobs < 2 || c.Command == "" || c.URL != "" || c.NoSandbox || c.InheritEnv ||
		c.KeepSandbox || len(c.Services) > 0 || len(c.Staged) > 0 || e.sb == nil {
		return nil
	}
	p := &parts{e: e, ctx: ctx, sem: make(chan struct{}, e.cfg.Jobs-1), order: map[string]int{},
		handed: map[string]bool{}, kept: map[string]bool{}}
	var mu sync.Mutex // the front end's hooks see one pack or probe at a time
	if h.Pack != nil {
		p.h.Pack = func(name string) { mu.Lock(); defer mu.Unlock(); h.Pack(name) }
	}
	if h.Probe != nil {
		p.h.Probe = func(pack string, res report.Probe) { mu.Lock(); defer mu.Unlock(); h.Probe(pack, res) }
	}
	for i, pk := range e.Packs() {
		p.order[pk.Name] = i
	}
	return p
}

// hooks are the hooks the run's own packs use: the same locks as its parts'.
func (p *parts) hooks(h Hooks) Hooks {
	if p == nil {
		return h
	}
	return p.h
}

// handOff runs as a part each of pks not handed off yet that can be,
// and returns the name of the first of pks when it is a part (else "").
// A pack runs in the run when the first start has not succeeded, when it
// shares a start, or when it does not apply to the first start's surface
// (the run skips it for nothing).
func (p *parts) handOff(pks []packs.Pack) string {
	if p == nil || len(pks) == 0 {
		return ""
	}
	e := p.e
	e.mu.Lock()
	s, failed := e.surface, e.unstarted
	e.mu.Unlock()
	if s != nil && failed == "" {
		for _, pk := range pks {
			if !p.handed[pk.Name] && p.hands(pk, s) {
				p.handed[pk.Name] = true
			}
		}
	}
	if p.handed[pks[0].Name] {
		return pks[0].Name
	}
	return ""
}

// hands starts pk as a part and reports true, or reports false when it
// runs in the run.
func (p *parts) hands(pk packs.Pack, s *packs.Surface) bool {
	if pk.SharesStart || p.kept[pk.Name] {
		return false
	}
	if pk.Applies != nil {
		if ok, _ := pk.Applies(s); !ok {
			p.kept[pk.Name] = true
			return false
		}
	}
	sub, err := New(p.e.part(pk.Name))
	if err != nil {
		// The run's own configuration passed, so a part's fails only
		// where the run's would: pk runs in the run and says so.
		p.kept[pk.Name] = true
		return false
	}
	sub.partOf = len(sub.rep.Warnings)
	p.wg.Go(func() {
		p.sem <- struct{}{}
		defer func() { <-p.sem }()
		if p.ctx.Err() != nil {
			return // the run was interrupted: its report says so
		}
		if p.h.Pack != nil {
			p.h.Pack(pk.Name)
		}
		sub.RunT(p.ctx, inOrder{}, Hooks{Probe: p.h.Probe})
		p.mu.Lock()
		p.done = append(p.done, sub)
		p.mu.Unlock()
	})
	return true
}

// part is the configuration of a run of pk alone, as a part of e: e's
// configuration as given, one job, no baseline (e applies it), no log of
// its own (e shows its new warnings) and no sweep (e did it).
func (e *Engine) part(pk string) Config {
	sub := e.given
	sub.Catalog = slices.Clone(sub.Catalog)
	sub.Packs = []string{pk}
	sub.Jobs = 1
	sub.Baseline = nil
	sub.Log = io.Discard
	sub.SweepLog = io.Discard
	sub.noSweep = true
	return sub
}

// wait waits for every part and merges its report into the run's, in
// pack order.
func (p *parts) wait() {
	if p == nil {
		return
	}
	p.wg.Wait()
	e := p.e
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, sub := range p.done {
		rep := &sub.rep
		e.starts += sub.starts
		e.rep.Packs = append(e.rep.Packs, rep.Packs...)
		e.rep.NotCovered = append(e.rep.NotCovered, rep.NotCovered...)
		e.rep.Timeline = append(e.rep.Timeline, rep.Timeline...)
		for _, w := range rep.Warnings[min(sub.partOf, len(rep.Warnings)):] {
			if !slices.Contains(e.rep.Warnings, w) {
				e.rep.Warnings = append(e.rep.Warnings, w)
				fmt.Fprintf(e.cfg.Log, "sealmark: warning: %s\n", w)
			}
		}
		if rep.HarnessError != "" && rep.HarnessError != neverStarted && e.rep.HarnessError == "" {
			e.rep.HarnessError = rep.HarnessError
		}
		if c := rep.Sandbox.CleanupError; c != "" {
			e.rep.Sandbox.CleanupError = strings.TrimPrefix(e.rep.Sandbox.CleanupError+"; "+c, "; ")
		}
		if sub.stopped {
			e.stopped = true
		}
	}
	place := func(name string) int {
		if i, ok := p.order[name]; ok {
			return i
		}
		return len(p.order)
	}
	slices.SortStableFunc(e.rep.Packs, func(a, b report.Pack) int { return place(a.Name) - place(b.Name) })
	slices.SortStableFunc(e.rep.NotCovered, func(a, b report.NotCovered) int { return place(a.Pack) - place(b.Pack) })
	slices.SortStableFunc(e.rep.Timeline, func(a, b observers.Record) int { return a.Time.Compare(b.Time) })
}
