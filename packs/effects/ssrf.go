package effects

import (
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/loopback"
	"github.com/sealmark/sealmark/packs"
)

// form is one way of naming the loopback listener that an SSRF filter
// must catch.
type form struct {
	name, id, doc string
	cwe           string
	// url is the URL a URL argument gets, and how a message shows it; ok
	// false when the run cannot make this form.
	url func(e endpoints) (value, shown string, ok bool)
	// host is what a host argument gets with port; "" when the form has
	// no host-only variant.
	host func(e endpoints) (host, shown string, port int)
}

// endpoints are the harness's listener and upstream as a probe reaches them.
type endpoints struct {
	token       string
	mark        string   // the tool being called, as its name goes in a URL path
	listener    *url.URL // http://127.0.0.1:P
	listener6   *url.URL // http://[::1]:P6, nil without IPv6 loopback
	upstream    *url.URL
	canaryFile  string // absolute path of a canary file
	canaryShown string
}

// port is the listener's port.
func (e endpoints) port() int { p, _ := strconv.Atoi(e.listener.Port()); return p }

// path is what every SSRF URL asks for: it carries the probe's token and
// the tool's name, so a connection tells which call made it.
func (e endpoints) path() string { return "/sealmark-ssrf/" + e.token + "/" + e.mark }

// hostForm is a form whose URL is http://HOST:P/path for a host form.
func hostForm(host string) func(e endpoints) (string, string, bool) {
	return func(e endpoints) (string, string, bool) {
		h := host
		if strings.Contains(h, ":") {
			h = "[" + h + "]"
		}
		return "http://" + h + ":" + e.listener.Port() + e.path(), "http://" + h + ":{listener_port}" + e.path(), true
	}
}

func hostOnly(host string) func(e endpoints) (string, string, int) {
	return func(e endpoints) (string, string, int) { return host, host + "\x00{listener_port}", e.port() }
}

var forms = []form{
	{name: "loopback", id: "LOOPBACK", doc: "http://127.0.0.1:P/", url: hostForm("127.0.0.1"), host: hostOnly("127.0.0.1")},
	{name: "ipv6-loopback", id: "IPV6-LOOPBACK", doc: "http://[::1]:P/",
		url: func(e endpoints) (string, string, bool) {
			if e.listener6 == nil {
				return "", "", false
			}
			return e.listener6.String() + e.path(), "http://[::1]:{listener6_port}" + e.path(), true
		},
		host: func(e endpoints) (string, string, int) {
			if e.listener6 == nil {
				return "", "", 0
			}
			p, _ := strconv.Atoi(e.listener6.Port())
			return "::1", "::1\x00{listener6_port}", p
		}},
	{name: "localhost", id: "LOCALHOST", doc: "http://localhost:P/", url: hostForm("localhost"), host: hostOnly("localhost")},
	{name: "decimal-ipv4", id: "DECIMAL-IPV4", doc: "http://2130706433:P/ (127.0.0.1 as one decimal number)", url: hostForm("2130706433"), host: hostOnly("2130706433")},
	{name: "hex-ipv4", id: "HEX-IPV4", doc: "http://0x7f000001:P/ (127.0.0.1 as one hexadecimal number)", url: hostForm("0x7f000001"), host: hostOnly("0x7f000001")},
	{name: "ipv4-mapped-ipv6", id: "IPV4-MAPPED", doc: "http://[::ffff:127.0.0.1]:P/ (an IPv4-mapped IPv6 address)", url: hostForm("::ffff:127.0.0.1"), host: hostOnly("::ffff:127.0.0.1")},
	{name: "redirect", id: "REDIRECT", doc: "{upstream}/redirect, which answers 302 to the listener",
		url: func(e endpoints) (string, string, bool) {
			return e.upstream.String() + "/redirect?sealmark=" + e.token, "{upstream}/redirect?sealmark=" + e.token, true
		}},
	{name: "file-uri", id: "FILE-URI", doc: "file:// naming a canary file", cwe: "CWE-73",
		url: func(e endpoints) (string, string, bool) {
			if e.canaryFile == "" {
				return "", "", false
			}
			return (&url.URL{Scheme: "file", Path: filepath.ToSlash(e.canaryFile)}).String(), "file://{sandbox_top}/" + e.canaryShown, true
		}},
	{name: "gopher", id: "GOPHER", doc: "gopher://127.0.0.1:P/_TOKEN (raw bytes to the listener)",
		url: func(e endpoints) (string, string, bool) {
			return "gopher://127.0.0.1:" + e.listener.Port() + "/_" + e.path()[1:], "gopher://127.0.0.1:{listener_port}/_" + e.path()[1:], true
		}},
}

// ssrfProbe is the SSRF probe of one form.
func ssrfProbe(f form) packs.Probe {
	return packs.Probe{
		ID:       "EFFECTS-SSRF-" + f.id,
		Name:     "ssrf-" + f.name,
		Severity: packs.High,
		CWE:      cmpOr(f.cwe, "CWE-918"),
		Doc:      "a tool taking a URL or host must not reach the harness's loopback listener when given " + f.doc + " (critical when what it fetched comes back)",
		Run:      func(p *packs.Pass) { runSSRF(p, f) },
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// reach is an SSRF run: the calls of one form on every target.
type reach struct {
	p  *packs.Pass
	ep endpoints
	cl *caller
}

// start prepares an SSRF run, or marks the probe not applicable and
// returns nil.
func start(p *packs.Pass) (*reach, []target) {
	if p.Observed == nil || p.Vars["listener"] == "" {
		p.NotApplicable("the run has no loopback listener (no sandbox), so a fetch cannot be seen")
		return nil, nil
	}
	all := targets(p.Surface)
	if len(all) == 0 {
		p.NotApplicable("no tool takes a URL, URI, endpoint or host argument (by name, format uri, or a description naming a URL)")
		return nil, nil
	}
	ts, skipped := callable(p, all)
	if len(ts) == 0 {
		p.NotApplicable("%s take a URL or host but may change state: runs with --active", strings.Join(skipped, ", "))
		return nil, nil
	}
	if len(skipped) > 0 {
		p.Notef("not called (may change state, runs with --active): %s", strings.Join(skipped, ", "))
	}
	ep := endpoints{token: p.Token}
	ep.listener, _ = url.Parse(p.Vars["listener"])
	ep.upstream, _ = url.Parse(p.Vars["upstream"])
	if p.Listener6 != "" {
		ep.listener6, _ = url.Parse(p.Listener6)
	}
	if p.Sandbox != nil && len(p.Sandbox.Files) > 0 {
		f := p.Sandbox.Files[0]
		ep.canaryFile, ep.canaryShown = filepath.Join(p.Sandbox.Top, filepath.FromSlash(f.Name)), f.Name
	}
	return &reach{p: p, ep: ep, cl: newCaller(p, false)}, ts
}

// runSSRF calls every target once with the form and judges what reached
// the listener and what came back.
func runSSRF(p *packs.Pass, f form) {
	r, ts := start(p)
	if r == nil {
		return
	}
	var calls []*call
	var marks []string
	for _, t := range ts {
		if c, ok := r.call(t, f); ok {
			calls = append(calls, c)
			marks = append(marks, r.ep.token+"/"+r.ep.mark)
		}
	}
	r.cl.finish(settle, marks, false)
	for _, c := range calls {
		r.judge(c, f)
	}
	if len(calls) == 0 {
		p.NotApplicable("the %s form cannot be given to %s (no URL argument, or this run cannot make the form)", f.name, toolNames(ts))
	}
}

// call gives the form to every URL (or host and port) argument of one
// tool; false when the tool takes none the form fits.
func (r *reach) call(t target, f form) (*call, bool) {
	r.ep.mark = url.PathEscape(t.tool.Name)
	fill := map[string]any{}
	var shown []string
	if value, show, ok := f.url(r.ep); ok {
		for _, a := range t.urls {
			fill[a] = value
			shown = append(shown, a, show)
		}
	}
	if f.host != nil {
		if host, show, port := f.host(r.ep); host != "" && len(t.urls) == 0 {
			show, showPort, _ := strings.Cut(show, "\x00")
			for _, a := range t.hosts {
				fill[a] = host
				shown = append(shown, a, show)
			}
			for _, a := range t.ports {
				fill[a] = port
				shown = append(shown, a, showPort)
			}
		}
	}
	if len(fill) == 0 {
		return nil, false
	}
	return r.cl.do(t.tool, fill, shown), true
}

// judge reports what one call reached and what came back.
func (r *reach) judge(c *call, f form) {
	p := r.p
	var hits []observers.Record
	for _, rec := range c.recs {
		if rec.Kind == observers.KindConnection && rec.Observer == "loopback" {
			hits = append(hits, rec)
		}
	}
	text := c.text()
	var leaked []string
	if p.Sandbox != nil {
		for _, s := range p.Sandbox.Files {
			if s.Value != "" && strings.Contains(text, s.Value) {
				leaked = append(leaked, s.Name)
			}
		}
	}
	switch {
	case len(leaked) > 0:
		fd := p.Reportf("%s returned the content of %s", c.shown, strings.Join(leaked, ", "))
		fd.Severity = packs.Critical
		fd.Evidencef("response", "the response to tools/call %s holds the secret of %s", c.tool, strings.Join(leaked, ", "))
	case len(hits) > 0:
		fd := p.Reportf("%s reached the loopback listener: %s", c.shown, request(hits[0]))
		if strings.Contains(text, strings.TrimSpace(loopback.Body)) {
			fd.Severity = packs.Critical
			fd.Message += "; the listener's answer came back in the response"
			fd.Evidencef("response", "the response to tools/call %s holds the listener's body", c.tool)
		}
		for _, h := range hits {
			if h.Data[observers.KeyTokenFound] != "true" {
				fd.Confidence = packs.ConfidenceMedium // attributed by time, within the call
			}
			fd.Evidencef("loopback", "%s", h.Summary)
		}
	}
}

// request is "GET /path" for an HTTP connection record, else its summary.
func request(r observers.Record) string {
	if r.Data[observers.KeyMethod] == "" {
		return strings.TrimSuffix(strings.SplitN(r.Summary, " from ", 2)[0], ",")
	}
	return r.Data[observers.KeyMethod] + " " + r.Data[observers.KeyTarget]
}

// credentialsProbe follows the upstream's redirect to the listener and
// looks for credentials that went along.
var credentialsProbe = packs.Probe{
	ID:       "EFFECTS-REDIRECT-CREDENTIALS",
	Name:     "redirect-credentials",
	Severity: packs.Critical,
	CWE:      "CWE-522",
	Doc:      "a server that follows a redirect to another origin must not send its credentials (an Authorization, Cookie or API-key header, or a secret query parameter) along",
	Run: func(p *packs.Pass) {
		r, ts := start(p)
		if r == nil {
			return
		}
		var redirect form
		for _, f := range forms {
			if f.name == "redirect" {
				redirect = f
			}
		}
		var calls []*call
		for _, t := range ts {
			if c, ok := r.call(t, redirect); ok {
				calls = append(calls, c)
			}
		}
		r.cl.finish(settle, nil, false)
		followed := 0
		for _, c := range calls {
			for _, rec := range c.recs {
				if rec.Kind != observers.KindConnection || !strings.HasPrefix(rec.Data[observers.KeyTarget], "/redirected") {
					continue
				}
				followed++
				if creds := credentials(rec); len(creds) > 0 {
					p.Reportf("%s followed the redirect from {upstream} to {listener} and sent %s to the new origin", c.shown, strings.Join(creds, ", ")).
						Evidencef("loopback", "%s; headers %s", rec.Summary, rec.Data[observers.KeyHeaders])
				}
			}
		}
		if followed == 0 {
			p.NotApplicable("no tool followed {upstream}'s redirect to the listener, so whether credentials go along could not be seen")
		}
	},
}

// credentials lists where a listener record carried something secret:
// header names and query parameters that look like credentials.
func credentials(r observers.Record) []string {
	var out []string
	for h := range strings.SplitSeq(r.Data[observers.KeyHeaders], ",") {
		if h != "" && redact.SecretName(h) {
			out = append(out, "header "+h)
		}
	}
	if u, err := url.Parse(r.Data[observers.KeyTarget]); err == nil {
		for name := range u.Query() {
			if redact.SecretName(name) {
				out = append(out, "query parameter "+name)
			}
		}
	}
	return out
}

func toolNames(ts []target) string {
	var n []string
	for _, t := range ts {
		n = append(n, t.tool.Name)
	}
	return strings.Join(n, ", ")
}
