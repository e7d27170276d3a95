package core

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// These probes judge what the observers saw while the core pack ran. They
// come after exits-on-stdin-close, so the whole start is behind them.

var noOrphans = packs.Probe{
	ID:       "CORE-NO-ORPHANS",
	Name:     "no-orphans",
	Severity: packs.High,
	CWE:      "CWE-404",
	Doc:      "nothing the server started may outlive it: no orphan, no daemon",
	Run: func(p *packs.Pass) {
		if p.Observed == nil {
			p.NotApplicable("no process observer on this run")
			return
		}
		if p.Server.Transport() != "stdio" { // http or http-sse
			p.NotApplicable("an HTTP server outlives each pack's session; what outlives the server itself is swept and recorded when the run ends")
			return
		}
		if p.Server.Alive() {
			p.Inconclusive("the server is still running, so what outlives it cannot be told yet")
			return
		}
		survivors := p.Observed.Survivors()
		if len(survivors) > 0 {
			// A child that sees its parent go (stdin closed, a parent-pid
			// check) and ends on its own after a last flush is no orphan:
			// chrome-devtools-mcp 1.11.0's telemetry watchdog sends a
			// shutdown event, bounded by 5 s, then exits. Whatever still runs
			// after orphanGrace outlived the server.
			deadline := time.Now().Add(orphanGrace)
			for len(survivors) > 0 && time.Now().Before(deadline) && p.Ctx.Err() == nil {
				time.Sleep(50 * time.Millisecond)
				left := p.Observed.Survivors()
				for _, r := range survivors {
					if !slices.ContainsFunc(left, func(l observers.Record) bool { return l.Summary == r.Summary }) {
						p.Notef("%s outlived the server, then ended on its own within %s", stableProcess(r), orphanGrace)
					}
				}
				survivors = left
			}
		}
		for _, r := range survivors {
			f := p.Reportf("a process of the server outlived it: %s", stableProcess(r))
			f.Evidencef("process", "%s", r.Summary)
			f.Evidencef("process", "still running %s after the server exited", orphanGrace)
		}
	},
}

// orphanGrace is how long what the server started may outlive it while it
// ends on its own: a client's shutdown grace, long enough for a last flush
// (a telemetry event, a log) and short of what a daemon lingers.
const orphanGrace = 5 * time.Second

var resourceLimits = packs.Probe{
	ID:       "CORE-RESOURCE-LIMITS",
	Name:     "resource-limits",
	Severity: packs.High,
	CWE:      "CWE-770",
	Doc:      "while no probe ran (its start, between probes), the server must stay within its containment's process limit (no fork bomb) and memory limit (no process killed for memory); a limit met during a probe fails that probe",
	Run: func(p *packs.Pass) {
		if p.Observed == nil {
			p.NotApplicable("no observers on this run")
			return
		}
		met, owned := false, 0
		for _, r := range p.Observed.Pack() {
			if r.Kind != observers.KindLimit {
				continue
			}
			if r.Token != "" {
				owned++ // the engine judged it in the probe where it happened
				continue
			}
			lf, ok := packs.LimitFinding(r, "while no probe ran (its start, or between probes)")
			if !ok {
				continue
			}
			met = true
			f := p.Reportf("%s", lf.Message)
			f.Severity, f.CWE, f.Evidence = lf.Severity, lf.CWE, lf.Evidence
		}
		if owned > 0 {
			p.Notef("%d limit record(s) met during probes are judged in those probes", owned)
		}
		if !met && (p.Sandbox == nil || p.Sandbox.Limits == "") {
			p.NotApplicable("no process or memory limit is enforced here (the isolation line says which cgroup controllers the leaf has)")
			return
		}
		if !met {
			p.Notef("limits enforced: %s", p.Sandbox.Limits)
		}
	},
}

// outsideRoot reports whether a file record's path is outside root/ in a
// place a server has no business writing: root-evil, canary or the sandbox
// top. home and tmp are the server's own HOME and TMPDIR.
func outsideRoot(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	switch first {
	case "root", "home", "tmp", "bin":
		return false
	}
	return true
}

var filesOutsideRoot = packs.Probe{
	ID:       "CORE-WRITES-OUTSIDE-ROOT",
	Name:     "writes-outside-root",
	Severity: packs.Critical,
	CWE:      "CWE-22",
	Doc:      "while the core probes ran, the server must not change anything outside its root (root-evil, canary, the sandbox top)",
	Run: func(p *packs.Pass) {
		if p.Observed == nil {
			p.NotApplicable("no files observer on this run")
			return
		}
		for _, r := range p.Observed.Pack() {
			if r.Kind != observers.KindFile || !outsideRoot(r.Data[observers.KeyPath]) {
				continue
			}
			p.Reportf("the server changed a file outside its root: %s", r.Summary).Evidencef("files", "%s", r.Summary)
		}
	},
}

var noListener = packs.Probe{
	ID:       "CORE-NO-LISTENER",
	Name:     "no-listening-socket",
	Severity: packs.Medium,
	CWE:      "CWE-1327",
	Doc:      "a stdio server must not open a listening socket; one on all interfaces, or serving HTTP without authentication, is worse, and both together is critical (the listener is spoken to once over loopback to say what it serves)",
	Run: func(p *packs.Pass) {
		if !stdio(p) {
			return // an HTTP server listens by design; http-loopback-only judges where
		}
		if p.Observed == nil {
			p.NotApplicable("no sockets observer on this run")
			return
		}
		for _, r := range p.Observed.Pack() {
			if r.Kind != observers.KindSocket || r.Data[observers.KeyOp] != "listen" {
				continue
			}
			// What the listener answered is in the evidence (the record's
			// summary says it), not the message: whether it answered within
			// its second depends on timing (desktop-commander's write_pdf
			// server said "HTTP without authentication" in one run and
			// nothing in two), and the message makes the fingerprint.
			f := p.Reportf("the server opened a listening socket: %s", stableSocket(p, r))
			f.Evidencef("sockets", "%s", r.Summary)
			// Open to the network, or open to anyone who asks: each is
			// worse; both is an open door.
			all, open := r.Data[observers.KeyScope] == "all-interfaces", r.Data[observers.KeyOpen] == "true"
			switch {
			case all && open:
				f.Severity = packs.Critical
			case all || open:
				f.Severity = packs.High
			}
		}
	},
}

// stableSocket describes a listening socket record without what changes
// from run to run (the pid, the inode, a port the server picked itself),
// so that the finding's message, and with it its fingerprint, is the same
// in every run; the record itself goes into the evidence.
func stableSocket(p *packs.Pass, r observers.Record) string {
	port := "a port of its own"
	if r.Data[observers.KeyPort] != "" && r.Data[observers.KeyPort] == p.Vars["port"] {
		port = "{port}"
	}
	return fmt.Sprintf("%s on %s, %s (%s)", r.Data[observers.KeyProto], r.Data[observers.KeyAddr], port, strings.ReplaceAll(r.Data[observers.KeyScope], "-", " "))
}

// stableProcess describes a process record by its command line, without
// its pid.
func stableProcess(r observers.Record) string {
	if argv := packs.Argv(r); len(argv) > 0 {
		return strings.Join(argv, " ")
	}
	return "[" + r.Data[observers.KeyComm] + "]"
}
