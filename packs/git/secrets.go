package git

import (
	"bytes"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

var urlCredentials = packs.Probe{
	ID:       "GIT-URL-CREDENTIALS",
	Name:     "url-credentials",
	Severity: packs.High,
	CWE:      "CWE-532",
	Active:   true,
	Doc:      "a git tool given a URL with a password (https://user:secret@host/...) must not repeat the password in its answer or its log (CWE-532 class)",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var tools []Tool
		for _, t := range r.tools(Clone, Remote) {
			if t.URL != "" {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("no git tool takes a URL")
			return
		}
		port := p.Vars["port"] // a free loopback port: nothing answers there
		if port == "" {
			port = "9"
		}
		for _, t := range tools {
			if r.dead || !r.answerControl(t) {
				continue
			}
			pw := "smpw" + r.name("pw")
			url := "http://sealmark:" + pw + "@127.0.0.1:" + port + "/sealmark-" + p.Token + ".git"
			fill := map[string]any{t.URL: url}
			if t.Dest != "" {
				fill[t.Dest] = r.expand("{sandbox}/{new}", r.name("clone"))
			}
			args := r.args(t, fill)
			desc := r.describe(t, args, t.URL)
			desc = strings.NewReplacer(pw, "{password}", "127.0.0.1:"+port, "127.0.0.1:{port}").Replace(desc)
			res := r.call(t, args, desc)
			if res != nil && bytes.Contains(body(res), []byte(pw)) {
				p.Reportf("%s repeated the URL's password in its answer", desc).
					Evidencef("response", "the result of %s contains the password the URL carried", t.Name)
			}
			if bytes.Contains(p.Server.Log(), []byte(pw)) {
				p.Reportf("%s wrote the URL's password to its log", desc).
					Evidencef("serverlog", "the server log contains the password the URL carried")
			}
			r.judgeCreated(desc, "", false, r.records())
		}
		r.finish()
	},
}
