package core

import (
	"net"
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
		"docker, dbus, an agent) or to an address off this machine (name lookups aside), each refused by containment before it left, is an attempt " +
		"on record (medium), whatever the server started or any probe asked",
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
// "connect to the host unix socket /run/docker.sock" or "reach
// 192.0.2.1:80, off this machine"; false for anything else (a refused
// loopback port is an undeclared service, a query to a name server a
// lookup, not a way out).
func escapeAttempt(r observers.Record) (string, bool) {
	if r.Kind != observers.KindSocket || r.Observer != "egress" || r.Data[observers.KeyVerdict] != "deny" {
		return "", false
	}
	addr := r.Data[observers.KeyAddr]
	switch r.Data[observers.KeyFamily] {
	case "unix":
		if addr == "" {
			return "", false
		}
		if strings.HasPrefix(addr, "@") {
			return "connect to the abstract unix socket " + addr + " of the host's network namespace", true
		}
		return "connect to the unix socket " + addr + " outside its sandbox", true
	case "inet", "inet6":
		ip := net.ParseIP(strings.Trim(addr, "[]"))
		if ip == nil || ip.IsLoopback() || ip.IsUnspecified() {
			return "", false
		}
		if r.Data[observers.KeyPort] == "53" {
			return "", false // a name lookup: effects' network lists it
		}
		return "reach " + net.JoinHostPort(ip.String(), r.Data[observers.KeyPort]) + ", off this machine", true
	}
	return "", false
}
