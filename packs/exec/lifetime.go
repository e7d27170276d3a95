package exec

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// started remembers, across the probes of one start, the sm-sleep
// arguments the lifetime probes asked for and which form each was, so
// outlives-server can name the form a survivor came from, and knows
// whether anything was started in the background of the server now
// running (a server started afresh after a tool killed it has started
// nothing yet).
const startedKey = "exec/started"

type startedOn struct {
	server packs.Server
	args   map[string]string
}

func (r *run) remember(arg, what string) {
	m, _ := r.p.Shared[startedKey].(*startedOn)
	if m == nil || m.server != r.p.Server {
		m = &startedOn{server: r.p.Server, args: map[string]string{}}
		r.p.Shared[startedKey] = m
	}
	m.args[arg] = what
}

// startedHere returns what the lifetime probes started on the server now
// running.
func startedHere(p *packs.Pass) map[string]string {
	if m, _ := p.Shared[startedKey].(*startedOn); m != nil && m.server == p.Server {
		return m.args
	}
	return nil
}

// detaching are the forms that start sm-sleep so it outlives the call.
var detaching = []struct{ key, what, line string }{
	{"background", "a trailing &", "sm-sleep {s} &"},
	{"nohup", "nohup and &", "nohup sm-sleep {s} >/dev/null 2>&1 &"},
	{"setsid", "setsid -f", "setsid -f sm-sleep {s}"},
	{"double-fork", "a double fork", "(sm-sleep {s} &)"},
	{"background-quiet", "& with its output closed", "sm-sleep {s} >/dev/null 2>&1 </dev/null &"},
}

func background(hints []Hint) packs.Probe {
	return packs.Probe{
		ID: "EXEC-BACKGROUND-HANG", Name: "background-hang", Severity: packs.Medium, CWE: "CWE-833", Active: true,
		Doc: "a child left running in the background (&, nohup, setsid, a double fork) must not make the call hang until the caller gives up",
		Run: func(p *packs.Pass) {
			r := start(p, hints)
			if r == nil {
				return
			}
			noted := 0
			for _, t := range r.running() {
				if pl, took, hung := r.detach(t, "background-hang", &noted); hung {
					p.Reportf("%s did not return within the call timeout (%s): the server waits on a child it left in the background (%s)", describe(t, pl.payload), p.CallTimeout, pl.what).
						Evidencef("process", "sm-sleep %s was started with %s and the call got no answer for %s (its bound: the timeout asked for and %d times the %s sm-echo took through %s just before)", pl.arg, pl.what, took.Round(100*time.Millisecond), hangFactor, pl.pace.Round(time.Millisecond), t.Name)
				}
				if r.dead {
					break
				}
			}
			r.settle()
			for _, s := range r.alive("sm-sleep") {
				p.Notef("outlived its call (judged by outlives-server): %s", s.Data[observers.KeyArgv])
			}
			r.finish()
		},
	}
}

// detachLife and timeoutLife are the seconds sm-sleep lives when detach
// and timeout start it.
const (
	detachLife  = 600
	timeoutLife = 3600
)

// detached is one call of detach: the payload, its form and its sm-sleep
// argument.
type detached struct {
	payload
	what, arg string
	pace      time.Duration // what sm-echo took through the tool just before
}

// detach runs every detaching form through t, each started sm-sleep
// remembered for outlives-server as started by probe. It stops at the
// first call that gets no answer (every later form would cost the call
// timeout again) and returns it with hung set: the hang is
// background-hang's finding, not a reason to doubt the probe.
func (r *run) detach(t Tool, probe string, noted *int) (last detached, took time.Duration, hung bool) {
	pace := r.pace(t)
	if pace == 0 {
		return last, 0, false // no answer to sm-echo: nothing to judge a wait by
	}
	for i, d := range detaching {
		arg := r.sleepArg(detachLife, i)
		last = detached{payload: payload{line: strings.ReplaceAll(d.line, "{s}", arg), life: detachLife * time.Second}, what: d.what, arg: arg}
		r.remember(arg, fmt.Sprintf("%s by %s (%s)", describe(t, last.payload), probe, d.what))
		var res *packs.Response
		last.pace = pace
		res, took = r.call(t, last.payload, describe(t, last.payload))
		r.noteExecuted(noted)
		if r.dead {
			return last, took, false
		}
		if res == nil {
			r.unanswered = r.unanswered[:len(r.unanswered)-1]
			return last, took, true
		}
	}
	return last, took, false
}

func timeout(hints []Hint) packs.Probe {
	return packs.Probe{
		ID: "EXEC-TIMEOUT", Name: "timeout", Severity: packs.Medium, CWE: "CWE-400", Active: true,
		Doc: "a tool that takes a timeout must return when it passes: sm-sleep 3600 with a 1 s timeout may not hold the call",
		Run: func(p *packs.Pass) {
			r := start(p, hints)
			if r == nil {
				return
			}
			var tools []Tool
			for _, t := range r.running() {
				if t.Timeout != "" {
					tools = append(tools, t)
				}
			}
			if len(tools) == 0 && len(r.failed) == 0 {
				p.NotApplicable("no command tool takes a timeout argument")
				return
			}
			noted := 0
			for i, t := range tools {
				pace := r.pace(t)
				if r.dead {
					break
				}
				if pace == 0 {
					continue // no answer to sm-echo: nothing to judge a wait by
				}
				arg := r.sleepArg(timeoutLife, i)
				pl := payload{line: "sm-sleep " + arg, timeout: time.Second, life: timeoutLife * time.Second}
				r.remember(arg, describe(t, pl)+" by timeout, with a 1 s "+t.Timeout)
				res, took := r.call(t, pl, describe(t, pl))
				r.noteExecuted(&noted)
				if r.dead {
					break
				}
				if res == nil {
					r.unanswered = r.unanswered[:len(r.unanswered)-1]
					p.Reportf("%s with %s of 1 s did not return within the call timeout (%s)", describe(t, pl), t.Timeout, p.CallTimeout).
						Evidencef("process", "sm-sleep %s ran and the call got no answer for %s (its bound: the 1 s asked for and %d times the %s sm-echo took through %s just before)", arg, took.Round(100*time.Millisecond), hangFactor, pace.Round(time.Millisecond), t.Name)
					continue
				}
				r.settle()
				if alive := r.alive(arg); len(alive) > 0 {
					p.Notef("the call returned after %s and the child is still running (judged by outlives-server): %s", took.Round(100*time.Millisecond), alive[0].Data[observers.KeyArgv])
				} else {
					p.Notef("the call returned after %s and the child is gone", took.Round(100*time.Millisecond))
				}
			}
			r.finish()
		},
	}
}

// observedProg reports whether an sm-* program ran during the probe.
func (r *run) observedProg(prog string) bool {
	for _, rec := range r.observed() {
		if rec.Observer == "process" && rec.Data[observers.KeyProg] == prog {
			return true
		}
	}
	return false
}

// exitSettle bounds how long outlives-server gives what the server's exit
// stops to die before it lists what outlived the server.
const exitSettle = 200 * time.Millisecond

// exitPoll is how often afterExit looks for what is left.
const exitPoll = 10 * time.Millisecond

// afterExit lists what outlived the server once what its exit stops has
// gone, at most ceiling after it (exitSettle, stretched by the tool's pace), and at once when only the probes' own sm-sleep children are left: as soon as nothing is left (only a
// live process starts another), or as soon as the run's tree is idle
// (Pass.WaitIdle's barrier: every process left asleep in a wait for an
// outside event or a timer past exitSettle, none starting, running or
// exiting), for what is left then is not on its way out: a child dying of
// the end of its pipe or of a signal runs, or exits, until it is gone; one
// that checks on its parent wakes within the ceiling. A run without the
// barrier waits the whole ceiling unless nothing is left.
func afterExit(p *packs.Pass, ceiling time.Duration, started map[string]string) []observers.Record {
	survivors := p.Observed.Survivors()
	if len(survivors) == 0 || !transient(survivors, started) {
		return survivors
	}
	ctx, cancel := context.WithTimeout(p.Ctx, ceiling)
	defer cancel()
	idle := make(chan bool, 1)
	if i, ok := p.Observed.(packs.Idler); ok {
		go func() { idle <- i.Idle(ctx, ceiling) }()
	}
	tick := time.NewTicker(exitPoll)
	defer tick.Stop()
	for {
		select {
		case ok := <-idle:
			if ok {
				return p.Observed.Survivors()
			}
		case <-tick.C:
			if survivors = p.Observed.Survivors(); len(survivors) == 0 || !transient(survivors, started) {
				return survivors
			}
		case <-ctx.Done():
			return p.Observed.Survivors()
		}
	}
}

// ExitGrace bounds how long outlives-server waits for the server to exit
// once its stdin is closed.
var ExitGrace = 5 * time.Second

// TermGrace bounds how long outlives-server waits for a server that
// ignored the end of its stdin to exit after SIGTERM, before SIGKILL.
var TermGrace = 2 * time.Second

func outlivesServer(hints []Hint) packs.Probe {
	return packs.Probe{
		ID: "EXEC-OUTLIVES-SERVER", Name: "outlives-server", Severity: packs.High, CWE: "CWE-404", Active: true,
		Doc: "nothing a command tool started (in the background, past its timeout) may outlive the server: it comes last, starts children in the background when no earlier probe did on this server, stops the server as a client does (stdin closed, then SIGTERM, then SIGKILL) and lists what is left",
		Run: func(p *packs.Pass) {
			if p.Observed == nil {
				p.NotApplicable("no process observer on this run")
				return
			}
			if p.Server.Transport() != "stdio" {
				p.NotApplicable("an HTTP server outlives each pack's session; what outlives it is swept and recorded when the run ends")
				return
			}
			if len(startedHere(p)) == 0 && p.Server.Alive() {
				// No earlier probe started anything on this server (it may
				// be a fresh start after a tool killed the last one): start
				// the background children here, through every tool that
				// runs its control.
				r := start(p, hints)
				if r == nil {
					return
				}
				noted := 0
				for _, t := range r.running() {
					if _, _, hung := r.detach(t, "outlives-server", &noted); hung {
						p.Notef("%s got no answer with a child in the background (judged by background-hang)", t.Name)
					}
					if r.dead {
						break
					}
				}
				r.settle()
				if len(startedHere(p)) == 0 {
					why := "no command tool ran its control"
					if len(r.failed) > 0 {
						why = "control failed: " + strings.Join(r.failed, "; ")
					}
					p.Inconclusive("nothing was started in the background, so nothing could outlive the server: %s", why)
					return
				}
			}
			if len(startedHere(p)) == 0 {
				p.Inconclusive("the server exited (%s) before any child was started in the background, so what outlives it cannot be told", p.Server.ExitStatus())
				return
			}
			// The server's own pace (the last measured on it) stretches
			// each wait: a starved server takes as many times longer to
			// notice its stdin closed, to handle SIGTERM, and its children
			// to notice their reader gone.
			slow := hangFactor * serverPace(p)
			exitGrace, termGrace, settle := max(ExitGrace, slow), max(TermGrace, slow), max(exitSettle, slow)
			killed := false
			if p.Server.Alive() {
				if err := p.Server.CloseStdin(); err != nil {
					p.Inconclusive("could not close the server's stdin: %v", err)
					return
				}
				if !p.Server.WaitExit(exitGrace) {
					// A client stops such a server with signals; what it
					// started is then left as the client would leave it.
					sent := p.Server.Terminate(termGrace)
					p.Notef("the server was still running %s after its stdin closed (core's exits-on-stdin-close judges that): stopped with %s", ExitGrace, strings.Join(sent, ", then "))
					killed = slices.Contains(sent, "SIGKILL")
				}
			}
			// What the server's exit stops dies now: its children are given
			// settle (stretched by the tool's pace) to go, and no longer
			// once the tree left is idle or only the sm-sleep children the
			// probes started are left (their life ends them).
			started := startedHere(p)
			survivors := afterExit(p, settle, started)
			if len(survivors) == 0 && killed {
				// SIGKILL of the server's process (with namespaces, the
				// sandbox's shim) may end everything it started with it.
				p.Inconclusive("the server ignored SIGTERM too and was killed; nothing of it is left, which SIGKILL may have brought about (it ends the sandbox's pid namespace)")
				return
			}
			for _, s := range survivors {
				from := ""
				for arg, what := range started {
					if strings.Contains(s.Data[observers.KeyArgv], arg) {
						from = ", started by " + stable(what)
					}
				}
				p.Reportf("a child outlived the server: %s%s", stable(s.Data[observers.KeyArgv]), from).Evidencef("process", "%s", s.Summary)
			}
		},
	}
}

// transient reports whether a survivor is not one of the sm-sleep
// children the probes started (by their arguments, started's keys).
func transient(survivors []observers.Record, started map[string]string) bool {
	for _, s := range survivors {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(started)), func(arg string) bool {
			return strings.Contains(s.Data[observers.KeyArgv], arg)
		}) {
			return true
		}
	}
	return false
}

// stable is a survivor's argv for a message, without the sm-sleep
// fraction that differs between runs.
func stable(argv string) string {
	if i := strings.Index(argv, ".00"); i > 0 && strings.Contains(argv, "sm-sleep") {
		j := i + 3
		for j < len(argv) && argv[j] >= '0' && argv[j] <= '9' {
			j++
		}
		return argv[:i] + argv[j:]
	}
	return argv
}
