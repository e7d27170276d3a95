package core

import (
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// toolDrift is the run-level drift check, core's last step (a Restarted
// probe): on a start of its own, made after core's other probes and
// without the canaries, it compares the tool list with the first start's,
// so a server that changes its tools after it was approved (a rug pull)
// is caught, whichever packs run.
var toolDrift = packs.Probe{
	ID:       "CORE-DRIFT",
	Name:     "tool-drift",
	Severity: packs.High,
	CWE:      "CWE-494",
	Doc:      "the tool list (names, descriptions, schemas) of a later start must equal the first start's; values computed at start (times, ids, nonces) aside",
	Run: func(p *packs.Pass) {
		if p.First == nil || p.First == p.Surface {
			p.NotApplicable("no first start to compare with")
			return
		}
		changes, ignored := packs.ToolChanges(p.First.Tools, p.Surface.Tools, time.Now())
		for _, d := range changes {
			p.Reportf("the tool list changed since the first start: %s", d).Evidencef("tools/list", "%s", d)
		}
		if len(ignored) > 0 {
			shown := ignored[:min(len(ignored), maxIgnoredShown)]
			more := ""
			if len(ignored) > len(shown) {
				more = fmt.Sprintf("; and %d more", len(ignored)-len(shown))
			}
			p.Notef("values that differ between the starts but are computed at start (a time, an epoch near now, a uuid or random id, a hex nonce) are no change and were ignored: %s%s", strings.Join(shown, "; "), more)
		}
	},
}

// maxIgnoredShown bounds how many ignored values the drift note names.
const maxIgnoredShown = 10
