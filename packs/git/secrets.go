package git

import (
	"bytes"
	"strings"
	"time"

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
		var logged [][2]string // password, the call that sent it
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
			desc = strings.NewReplacer(pw, "<redacted>", "127.0.0.1:"+port, "127.0.0.1:{port}").Replace(desc) // as the report masks a URL's password
			res := r.call(t, args, desc)
			if res != nil && bytes.Contains(res.Body(), []byte(pw)) {
				p.Reportf("%s repeated the URL's password in its answer", desc).
					Evidencef("response", "the result of %s contains the password the URL carried", t.Name)
			}
			logged = append(logged, [2]string{pw, desc})
			r.judgeCreated(desc, "", false, r.records())
		}
		// The log is read as it comes: a ping, then the server idle and
		// its log drained (at most logSettle), let the last call's lines
		// arrive before the log is judged.
		_, _ = p.Request("ping", nil)
		p.WaitLog(logSettle)
		log := p.Server.Log()
		for _, l := range logged {
			if bytes.Contains(log, []byte(l[0])) {
				p.Reportf("%s wrote the URL's password to its log", l[1]).
					Evidencef("serverlog", "the server log contains the password the URL carried")
			}
		}
		r.finish()
	},
}

// logSettle bounds how long the probe waits for the server log to catch
// up: the wait ends as soon as the server is idle and its log drained.
const logSettle = 200 * time.Millisecond
