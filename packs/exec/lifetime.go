package exec

import (
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// started remembers, across the probes of one start, the sm-sleep
// arguments the lifetime probes asked for and which form each was, so
// outlives-server can name the form a survivor came from.
const startedKey = "exec/started"

func (r *run) remember(arg, what string) {
	m, _ := r.p.Shared[startedKey].(map[string]string)
	if m == nil {
		m = map[string]string{}
		r.p.Shared[startedKey] = m
	}
	m[arg] = what
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
				for i, d := range detaching {
					arg := r.sleepArg(600, i)
					pl := payload{line: strings.ReplaceAll(d.line, "{s}", arg)}
					r.remember(arg, fmt.Sprintf("%s by background-hang (%s)", describe(t, pl), d.what))
					res, took := r.call(t, pl, describe(t, pl))
					r.noteExecuted(&noted)
					if r.dead {
						break
					}
					if res == nil {
						// The unanswered call is this probe's finding, not a
						// reason to doubt it.
						r.unanswered = r.unanswered[:len(r.unanswered)-1]
						p.Reportf("%s did not return within the call timeout (%s): the server waits on a child it left in the background (%s)", describe(t, pl), p.CallTimeout, d.what).
							Evidencef("process", "sm-sleep %s was started with %s and the call got no answer for %s", arg, d.what, took.Round(100*time.Millisecond))
						break // every later form would cost the call timeout again
					}
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
				arg := r.sleepArg(3600, i)
				pl := payload{line: "sm-sleep " + arg, timeout: time.Second}
				r.remember(arg, describe(t, pl)+" by timeout, with a 1 s "+t.Timeout)
				res, took := r.call(t, pl, describe(t, pl))
				r.noteExecuted(&noted)
				if r.dead {
					break
				}
				if res == nil {
					r.unanswered = r.unanswered[:len(r.unanswered)-1]
					p.Reportf("%s with %s of 1 s did not return within the call timeout (%s)", describe(t, pl), t.Timeout, p.CallTimeout).
						Evidencef("process", "sm-sleep %s ran and the call got no answer for %s", arg, took.Round(100*time.Millisecond))
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

// exitSettle is how long outlives-server gives what the server's exit
// stops to die before it lists what outlived the server.
const exitSettle = 200 * time.Millisecond

// ExitGrace bounds how long outlives-server waits for the server to exit
// once its stdin is closed.
var ExitGrace = 5 * time.Second

var outlivesServer = packs.Probe{
	ID: "EXEC-OUTLIVES-SERVER", Name: "outlives-server", Severity: packs.High, CWE: "CWE-404", Active: true,
	Doc: "nothing a command tool started (in the background, past its timeout) may outlive the server: it comes last, closes the server's stdin and lists what is left",
	Run: func(p *packs.Pass) {
		if p.Observed == nil {
			p.NotApplicable("no process observer on this run")
			return
		}
		if p.Server.Transport() != "stdio" {
			p.NotApplicable("an HTTP server outlives each pack's session; what outlives it is swept and recorded when the run ends")
			return
		}
		if p.Server.Alive() {
			if err := p.Server.CloseStdin(); err != nil {
				p.Inconclusive("could not close the server's stdin: %v", err)
				return
			}
			if !p.Server.WaitExit(ExitGrace) {
				p.Inconclusive("the server was still running %s after its stdin closed, so what outlives it cannot be told (core's exits-on-stdin-close judges that)", ExitGrace)
				return
			}
		}
		// What the server's exit stops dies now: its children are given
		// exitSettle to go. With none left there is nothing to wait for
		// (only a live process starts another).
		survivors := p.Observed.Survivors()
		for deadline := time.Now().Add(exitSettle); len(survivors) > 0 && time.Now().Before(deadline) && p.Ctx.Err() == nil; {
			time.Sleep(20 * time.Millisecond)
			survivors = p.Observed.Survivors()
		}
		started, _ := p.Shared[startedKey].(map[string]string)
		for _, s := range survivors {
			from := ""
			for arg, what := range started {
				if strings.Contains(s.Data[observers.KeyArgv], arg) {
					from = ", started by " + what
				}
			}
			p.Reportf("a child outlived the server: %s%s", stable(s.Data[observers.KeyArgv]), from).Evidencef("process", "%s", s.Summary)
		}
	},
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
