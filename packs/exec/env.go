package exec

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// envCommands make a child show its environment: through printenv and
// env, and through a shell's expansion into sm-echo's arguments.
var envCommands = []payload{
	{line: "printenv SEALMARK_FAKE_API_KEY"},
	{line: "printenv SEALMARK_CANARY"},
	{line: "sm-echo $SEALMARK_CANARY ${SEALMARK_FAKE_API_KEY}"},
	{line: "env"},
}

func envInheritance(hints []Hint) packs.Probe {
	return packs.Probe{
		ID: "EXEC-ENV-INHERITANCE", Name: "env-inheritance", Severity: packs.Critical, CWE: "CWE-526", Active: true,
		Doc: "the programs a server runs must not inherit its secrets: no canary from the server's environment may reach a child (and through it the caller)",
		Run: func(p *packs.Pass) {
			if len(p.Canaries) == 0 {
				p.NotApplicable("this start got no canary secrets, so there is nothing a child could inherit")
				return
			}
			r := start(p, hints)
			if r == nil {
				return
			}
			noted, shown, found := 0, false, false
			for _, t := range r.running() {
				// The server's timer must outlast the child's printing.
				if r.pace(t) == 0 {
					continue
				}
				for _, pl := range envCommands {
					res, _ := r.call(t, pl, describe(t, pl))
					r.noteExecuted(&noted)
					if r.dead {
						break
					}
					shown = shown || res != nil && !res.Refused()
					leaked := r.leaked(res)
					if len(leaked) == 0 {
						continue
					}
					found = true
					// The message names the tool and the leak, not the form:
					// which form answers first depends on the server's timing
					// (a command tool that answers before its child has
					// printed), and a finding's fingerprint must not move
					// with it. The form is the evidence's.
					prog, _, _ := strings.Cut(pl.line, " ")
					f := p.Reportf("%s passes the server's environment to the programs it runs: a child printed a canary secret into the result", t.Name)
					f.Evidencef("request", "%s revealed %s from the server's environment through its child %s", describe(t, pl), strings.Join(leaked, ", "), prog)
					for _, name := range leaked {
						f.Evidencef("response", "the result of %s contains the value of %s, printed by the child %s", t.Name, name, prog)
					}
					break // one command per tool says it
				}
				if r.dead {
					break
				}
			}
			for _, ev := range r.childArgs() {
				found = true
				p.Reportf("a child of the server got a canary secret in its arguments: %s", ev).Evidencef("process", "sm-echo ran with a canary value in its argv: %s", ev)
				break
			}
			if !shown && !found {
				r.failed = append(r.failed, "every command that shows a child's environment (printenv, env, sm-echo with $NAME) was refused, so no child's environment was seen")
			}
			r.finish()
		},
	}
}

// leaked names the canaries whose values a response carries.
func (r *run) leaked(res *packs.Response) []string {
	var out []string
	b := res.Body()
	for _, c := range r.p.Canaries {
		if c.Value != "" && bytes.Contains(b, []byte(c.Value)) {
			out = append(out, c.Name)
		}
	}
	return out
}

// childArgs is the argv of each sm-echo run of this probe that carried a
// canary (masked in the record): the child got the secret even when the
// server kept its output to itself.
func (r *run) childArgs() []string {
	var out []string
	for _, rec := range r.observed() {
		if rec.Observer != "process" || rec.Data[observers.KeyProg] != "sm-echo" || rec.Token != r.p.Token {
			continue
		}
		if strings.Contains(rec.Data[observers.KeyArgv], redact.MaskCanary) || r.hasCanary(rec.Data[observers.KeyArgv]) {
			out = append(out, shellLine(packs.Argv(rec)))
		}
	}
	return out
}

func (r *run) hasCanary(s string) bool {
	for _, c := range r.p.Canaries {
		if c.Value != "" && strings.Contains(s, c.Value) {
			return true
		}
	}
	return false
}

// sleepArg is sm-sleep's argument for one form of a probe: seconds, then
// a fraction that carries the probe's token and the form's index, so the
// process is recognised among the survivors (sm-sleep takes one argument,
// so its argv cannot carry the token itself).
func (r *run) sleepArg(seconds, idx int) string {
	var n uint64
	for _, c := range strings.TrimPrefix(r.p.Token, "smtok-") {
		n = n*31 + uint64(c)
	}
	return fmt.Sprintf("%d.00%010d%d", seconds, n%1e10, idx)
}
