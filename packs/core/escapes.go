package core

import (
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

var escapeAttempts = packs.Probe{
	ID:       "CORE-ESCAPE-ATTEMPTS",
	Name:     "escape-attempts",
	Severity: packs.Medium,
	CWE:      "CWE-693",
	Doc: "a contained server must not try to get out of its sandbox: a connection to a unix socket outside it (a host service: " +
		"docker, dbus, an agent), refused by containment, is an attempt on record (medium), whatever the server started or any probe asked; " +
		"its use of the network (an API it serves, telemetry) is no attempt to get out: effects/network lists it",
	Run: func(p *packs.Pass) {
		if p.Observed == nil {
			p.NotApplicable("no observers on this run")
			return
		}
		counts := map[string]int{}
		var order []string
		first := map[string]observers.Record{}
		egress := false
		for _, r := range p.Observed.Pack() {
			if r.Observer == "egress" {
				egress = true
			}
			what, ok := escapeAttempt(r)
			if !ok {
				continue
			}
			if counts[what] == 0 {
				order = append(order, what)
				first[what] = r
			}
			counts[what]++
		}
		if !egress && len(order) == 0 {
			p.NotApplicable("the egress observer (the seccomp layer) did not watch this start, so no attempt is seen")
			return
		}
		for _, what := range order {
			p.Reportf("the server tried to %s; containment refused it", what).
				Evidencef("egress", "%s (%s)", first[what].Summary, times(counts[what]))
		}
		p.Notef("%d refused attempts to get out", len(order))
	},
}

// escapeAttempt describes a refused attempt to get out of the sandbox:
// "connect to the unix socket /run/docker.sock outside its sandbox"; false
// for anything else. A refused address, off this machine or an undeclared
// loopback port, is the server's use of the network, not a way out: an
// API client reaching its API (mcp-gdrive and googleapis.com) or a
// telemetry ping would make this finding on most real servers, and
// effects/network lists those.
func escapeAttempt(r observers.Record) (string, bool) {
	if r.Kind != observers.KindSocket || r.Observer != "egress" || r.Data[observers.KeyVerdict] != "deny" {
		return "", false
	}
	addr := r.Data[observers.KeyAddr]
	if r.Data[observers.KeyFamily] != "unix" || addr == "" {
		return "", false
	}
	if strings.HasPrefix(addr, "@") {
		return "connect to the abstract unix socket " + addr + " of the host's network namespace", true
	}
	return "connect to the unix socket " + addr + " outside its sandbox", true
}
