package packs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sealmark/sealmark/observers"
)

// Argv reads a process record's argv (a JSON array in Data); nil when it
// has none or it cannot be read.
func Argv(r observers.Record) []string {
	var a []string
	_ = json.Unmarshal([]byte(r.Data[observers.KeyArgv]), &a)
	return a
}

// Settle ends a probe whose calls did not all give an answer to judge: it
// marks the probe inconclusive with every reason that holds — the server
// exited during it (with how), the reasons given (a failed control, tools
// left unprobed), and the calls that got no answer — and does nothing when
// none does.
func (p *Pass) Settle(dead bool, reasons, unanswered []string) {
	var why []string
	if dead {
		why = append(why, "the server exited ("+p.Server.ExitStatus()+")")
	}
	why = append(why, reasons...)
	if len(unanswered) > 0 {
		why = append(why, "no answer to "+strings.Join(unanswered, ", "))
	}
	if len(why) > 0 {
		p.Inconclusive("%s", strings.Join(why, "; "))
	}
}

// LimitFinding is the finding for a limits record (observers.KindLimit):
// forks refused at the process limit are a fork bomb, high; a process
// killed for going past the memory limit is a runaway allocation, medium;
// both CWE-770. where says when the server met the limit ("during probe
// NAME", "while no probe ran"). The message names the limit but not how
// often it was met, which varies from run to run, so that its fingerprint
// (and a baseline that accepts it) is the same in every run; the record's
// summary, with the count, is the evidence. ok is false for a record of
// another kind or limit.
//
// The engine judges the records of every probe with it, in the probe where
// they happen; core's resource-limits judges the records no probe owned.
func LimitFinding(r observers.Record, where string) (f Finding, ok bool) {
	if r.Kind != observers.KindLimit {
		return Finding{}, false
	}
	limit := r.Data[observers.KeyLimit]
	switch limit {
	case "procs":
		f.Severity = High
		f.Message = fmt.Sprintf("the server met its procs limit %s: forks were refused at its process limit (%s tasks)", where, r.Data[observers.KeyMax])
	case "memory":
		f.Severity = Medium
		mib := r.Data[observers.KeyMax]
		if n, err := strconv.ParseInt(mib, 10, 64); err == nil {
			mib = strconv.FormatInt(n>>20, 10)
		}
		f.Message = fmt.Sprintf("the server met its memory limit %s: a process was killed for going past its memory limit (%s MiB)", where, mib)
	default:
		return Finding{}, false
	}
	f.CWE = "CWE-770"
	f.Evidence = []Evidence{{Observer: "limits", Detail: r.Summary}}
	return f, true
}
