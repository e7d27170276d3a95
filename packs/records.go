package packs

import (
	"encoding/json"
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
