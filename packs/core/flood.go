package core

import (
	"fmt"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// noteCounter is a session that counts the notifications the server sent
// (both transports' sessions do), in O(1) memory however many come.
type noteCounter interface{ Notifications() []packs.NoteCount }

// A flood: at least floodCount notifications of one method, at a peak of
// floodRate or more within one second. A server's progress and log lines
// for the harness's requests come in tens, never near it.
const (
	floodCount = 1000
	floodRate  = 100
)

var notificationFlood = packs.Probe{
	ID:       "CORE-NOTIFICATION-FLOOD",
	Name:     "notification-flood",
	Severity: packs.Medium,
	CWE:      "CWE-770",
	Doc: fmt.Sprintf("a server must not flood its client with notifications: %d or more of one method at %d or more a second "+
		"(the harness asks for no log level, so every notifications/message is unasked) is past what a client can show or "+
		"a model can read, and crowds out the answers", floodCount, floodRate),
	Run: func(p *packs.Pass) {
		nc, ok := p.Server.(noteCounter)
		if !ok {
			p.NotApplicable("this session does not count the server's notifications")
			return
		}
		total := 0
		for _, n := range nc.Notifications() {
			total += n.Count
			if n.Count < floodCount || n.PeakPerSecond < floodRate {
				continue
			}
			unasked := ""
			if n.Method == "notifications/message" {
				unasked = ", unasked"
				if _, declared := p.Surface.Init.Capabilities["logging"]; !declared {
					unasked = ", unasked (the server declares no logging capability)"
				}
			}
			p.Reportf("the server floods its client with %s notifications%s", n.Method, unasked).
				Evidencef(evidenceKind(p), "%s %s in %s, up to %s within one second",
					count(n.Count), n.Method, n.Last.Sub(n.First).Round(time.Millisecond), count(n.PeakPerSecond))
		}
		p.Notef("%d notifications from the server", total)
	},
}

// count writes n with thousands separated: 20,000.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
