package engine

import (
	"net/url"
	"strconv"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/observers/egress"
)

// contain wraps a server's start in the containment shim: Landlock (writes
// only inside the sandbox, TCP connects only to the harness's own loopback
// ports), no_new_privs, a per-file size cap and Pdeathsig, each where this
// machine allows it. Without a sandbox nothing is contained. When the shim
// cannot be used (a binary that does not call contain.Dispatch) the server
// starts uncontained and the report's isolation line says why.
func (e *Engine) contain(spec launch.Spec) (launch.Spec, *contain.Handoff, []int) {
	if e.sb == nil {
		return spec, nil, nil
	}
	o := contain.Options{SandboxTop: e.sb.Top, MaxFileBytes: 2 * int64(e.cfg.MaxMiB) << 20, Landlock: true, Egress: true}
	for _, name := range []string{"listener", "upstream", "port"} {
		v := e.vars[name]
		if u, err := url.Parse(v); err == nil && u.Port() != "" {
			v = u.Port()
		}
		if p, err := strconv.Atoi(v); err == nil {
			o.AllowPorts = append(o.AllowPorts, p)
		}
	}
	if e.watch != nil && e.watch.loopback != nil {
		if u, err := url.Parse(e.watch.loopback.URL6()); err == nil && u.Port() != "" {
			if p, err := strconv.Atoi(u.Port()); err == nil {
				o.AllowPorts = append(o.AllowPorts, p)
			}
		}
	}
	wrapped, hand, err := contain.WrapEgress(spec, o)
	e.mu.Lock()
	defer e.mu.Unlock()
	observed := ""
	if e.watch != nil {
		observed = "; " + e.watch.line
	}
	if err != nil {
		e.rep.Sandbox.Isolation = "procs=pgid; not contained: " + err.Error() + observed
		return spec, nil, nil
	}
	e.rep.Sandbox.Isolation = contain.Probe().For(o).Line() + observed
	return wrapped, hand, o.AllowPorts
}

// observeEgress completes the seccomp hand-off of a started server: from
// now on every destination it tries is recorded, and all but the harness's
// own ports are refused. The egress observer joins the run's observers.
func (e *Engine) observeEgress(hand *contain.Handoff, pid int, ports []int) error {
	if hand == nil {
		return nil
	}
	obs, err := hand.Complete(pid, egress.Ports(ports...))
	if err != nil || obs == nil {
		return err
	}
	if e.watch != nil {
		e.mu.Lock()
		e.watch.all = append(e.watch.all, obs)
		e.watch.egress = true
		e.mu.Unlock()
	}
	return nil
}
