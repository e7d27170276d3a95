package effects

import (
	"regexp"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// target is a tool and the arguments through which it can be pointed at
// a place on the network.
type target struct {
	tool  packs.Tool
	urls  []string // string arguments taking a URL, URI or endpoint
	hosts []string // string arguments taking a host name or address
	ports []string // integer arguments taking a port, set with a host
}

var (
	// urlName matches argument names that take a URL: url, uri, href,
	// link, endpoint, webhook, callback, proxy, and names ending in them
	// (imageUrl, data_uri, webhook_endpoint).
	urlName = regexp.MustCompile(`(?i)(url|uri|href|link|endpoint|webhook|callback|proxy)s?$`)
	// urlWords in an argument's description say it takes a URL.
	urlWords = regexp.MustCompile(`\b(URL|URI|url|uri|http://|https://)\b`)
	// hostName matches argument names that take a host.
	hostName = regexp.MustCompile(`(?i)^(host|hostname|host_name|ip|ip_address|addr|target_host|server_host|remote_host)$`)
	portName = regexp.MustCompile(`(?i)^(port|target_port|remote_port)$`)
)

// targets returns the tools that take a URL or a host, in surface order.
func targets(s *packs.Surface) []target {
	var out []target
	for _, t := range s.Tools {
		tg := target{tool: t}
		for _, p := range packs.Props(t.InputSchema) {
			name, typ := p.Name, p.Type
			switch {
			case typ == "string" && (urlName.MatchString(name) || p.Format == "uri" || p.Format == "url" || p.Format == "iri" || urlWords.MatchString(p.Description)):
				tg.urls = append(tg.urls, name)
			case typ == "string" && hostName.MatchString(name):
				tg.hosts = append(tg.hosts, name)
			case (typ == "integer" || typ == "number") && portName.MatchString(name):
				tg.ports = append(tg.ports, name)
			}
		}
		if len(tg.urls) > 0 || len(tg.hosts) > 0 {
			out = append(out, tg)
		}
	}
	return out
}

// callable splits targets into those the run may call (read-only tools;
// every tool on an active run) and the names of those it may not.
func callable(p *packs.Pass, ts []target) (ok []target, skipped []string) {
	for _, t := range ts {
		if p.Active || t.tool.ReadOnly() {
			ok = append(ok, t)
		} else {
			skipped = append(skipped, t.tool.Name)
		}
	}
	return ok, skipped
}

// execWords mark a tool whose job is to run programs.
var execWords = regexp.MustCompile(`(?i)\b(exec|execute|run|shell|command|cmd|bash|terminal|spawn|process|script|eval|invoke)`)

// runsPrograms reports whether running a program is the tool's job: its
// name or description says so, or it takes a command.
func runsPrograms(t packs.Tool) bool {
	if execWords.MatchString(strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(t.Name)) || execWords.MatchString(t.Description) {
		return true
	}
	for _, p := range packs.Props(t.InputSchema) {
		switch strings.ToLower(p.Name) {
		case "command", "cmd", "script", "program", "args", "argv":
			return true
		}
	}
	return false
}

// names says which program a tool names: its base name appears in the
// tool's name or description ("git" in git_status). A name of three
// letters or fewer (sh, ps, cat) must be a whole word there: "sh" is not
// named by "Show the status".
func names(t packs.Tool, program string) bool {
	program = strings.ToLower(program)
	if program == "" {
		return false
	}
	if len(program) <= 3 {
		return slices.Contains(packs.Words(t.Name+" "+t.Description), program)
	}
	return strings.Contains(strings.ToLower(t.Name), program) || strings.Contains(strings.ToLower(t.Description), program)
}

// durationName matches number arguments that set how long a tool runs.
var durationName = regexp.MustCompile(`(?i)(duration|delay|sleep|wait|seconds|secs|millis|ms$|timeout)`)

// durations lists a tool's number arguments that set how long it runs.
func durations(t packs.Tool) []string {
	var out []string
	for _, p := range packs.Props(t.InputSchema) {
		if p.Number() && durationName.MatchString(p.Name) {
			out = append(out, p.Name)
		}
	}
	return out
}
