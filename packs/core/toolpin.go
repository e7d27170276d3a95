package core

import (
	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/packs"
)

// toolPin compares the tool list with the lock sealmark pin wrote: a
// server whose tool descriptions change between releases (a rug pull)
// passes the run-level drift check, which compares two starts of one run,
// and is caught here across runs.
var toolPin = packs.Probe{
	ID:       "CORE-TOOL-PIN",
	Name:     "tool-pin",
	Severity: packs.High,
	CWE:      "CWE-494",
	Doc: "every tool's description, input schema and annotations must equal the lock's (sealmark pin): " +
		"a changed tool is high, an added one medium, a removed one low; not applicable without a lock",
	Run: func(p *packs.Pass) {
		if p.Lock == nil {
			p.NotApplicable("no lock file (sealmark pin writes %s; lock: or --lock names one)", pin.DefaultFile)
			return
		}
		if p.Surface.ToolsError != "" {
			p.Inconclusive("the tool list was not read completely, so it cannot be compared with the lock: %s", p.Surface.ToolsError)
			return
		}
		cur := p.Surface.Lock(p.Redact)
		changes := pin.Compare(*p.Lock, cur)
		for _, c := range changes {
			f := p.Reportf("%s (sealmark pin --update accepts it)", c.Summary())
			f.Severity = pinSeverity[c.Kind]
			for _, line := range c.Diff {
				f.Evidencef("tools/list", "%s", line)
			}
		}
		where := p.Lock.Path
		if where == "" {
			where = "the lock"
		}
		p.Notef("compared %d tools with the %d of %s: %d changed", len(cur.Tools), len(p.Lock.Tools), where, len(changes))
		if old, now := p.Lock.Server, cur.Server; old != now {
			p.Notef("the server was %s %s when pinned, is %s %s now", old.Name, old.Version, now.Name, now.Version)
		}
	},
}

// pinSeverity is the severity of each kind of change: a changed tool is
// the rug-pull class (what the user approved now does something else), an
// added tool is new surface nobody reviewed, a removed one only narrows it.
var pinSeverity = map[pin.Kind]packs.Severity{pin.Changed: packs.High, pin.Added: packs.Medium, pin.Removed: packs.Low}
