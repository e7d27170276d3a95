package report

import (
	"fmt"
	"strings"
)

// InformationURI is where SARIF readers learn about the tool.
const InformationURI = "https://github.com/sealmark/sealmark"

// The MCP specification's sections the protocol-hygiene rules cite: the
// legacy era's (2025-11-25) for most, the modern era's (2026-07-28) for the
// rules only it has.
const (
	specLegacy = "https://modelcontextprotocol.io/specification/2025-11-25"
	specModern = "https://modelcontextprotocol.io/specification/2026-07-28"
)

// specSections maps a core probe ID to the specification section its rule
// comes from (relative to the era's root). IDs not listed fall back to
// their CWE, or to the specification's base protocol page.
var specSections = map[string]string{
	"CORE-INITIALIZE":                 "/basic/lifecycle",
	"CORE-VERSION-NEGOTIATION":        "/basic/lifecycle",
	"CORE-CAPABILITIES-SERVED":        "/basic/lifecycle",
	"CORE-CLIENT-CAPABILITIES":        "/basic/lifecycle",
	"CORE-NOTIFICATION-FLOOD":         "/server/utilities/logging",
	"CORE-EXIT-ON-STDIN-CLOSE":        "/basic/lifecycle",
	"CORE-PING":                       "/basic/utilities/ping",
	"CORE-TOOLS-LIST":                 "/server/tools",
	"CORE-TOOL-METADATA":              "/server/tools",
	"CORE-TOOLS-RUG-PULL":             "/server/tools",
	"CORE-TOOL-SWEEP":                 "/server/tools",
	"CORE-UNKNOWN-TOOL":               "/server/tools",
	"CORE-BAD-ARGUMENTS":              "/server/tools",
	"CORE-LARGE-ARGUMENT":             "/server/tools",
	"CORE-BOGUS-CURSOR":               "/server/utilities/pagination",
	"CORE-UNKNOWN-METHOD":             "/basic",
	"CORE-MALFORMED-INPUT":            "/basic",
	"CORE-REQUEST-IDS":                "/basic",
	"CORE-PARSE-ERROR":                "/basic",
	"CORE-INVALID-REQUEST":            "/basic",
	"CORE-BATCH":                      "/basic",
	"CORE-INVALID-PARAMS":             "/basic",
	"CORE-WIRE-MESSAGES":              "/basic",
	"CORE-RESOURCES":                  "/server/resources",
	"CORE-PROMPTS":                    "/server/prompts",
	"CORE-LOGGING-SET-LEVEL":          "/server/utilities/logging",
	"CORE-PROGRESS":                   "/basic/utilities/progress",
	"CORE-CANCELLATION":               "/basic/utilities/cancellation",
	"CORE-CANCEL-UNKNOWN":             "/basic/utilities/cancellation",
	"CORE-STDOUT-JSONRPC":             "/basic/transports",
	"CORE-HTTP-ORIGIN":                "/basic/transports",
	"CORE-HTTP-HOST":                  "/basic/transports",
	"CORE-HTTP-UNKNOWN-SESSION":       "/basic/transports",
	"CORE-HTTP-DELETED-SESSION":       "/basic/transports",
	"CORE-HTTP-SESSION-ID":            "/basic/transports",
	"CORE-HTTP-NOTIFICATION-202":      "/basic/transports",
	"CORE-HTTP-PROTOCOL-VERSION":      "/basic/transports",
	"CORE-HTTP-LOOPBACK-ONLY":         "/basic/transports",
	"CORE-HTTP-CORS":                  "/basic/security_best_practices",
	"CORE-DISCOVER":                   "modern:/basic/lifecycle",
	"CORE-MODERN-META":                "modern:/basic",
	"CORE-MODERN-UNSUPPORTED-VERSION": "modern:/basic/lifecycle",
	"CORE-MODERN-REMOVED-METHODS":     "modern:/basic/lifecycle",
	"CORE-MODERN-LEGACY-INITIALIZE":   "modern:/basic/lifecycle",
	"CORE-MODERN-HTTP-HEADERS":        "modern:/basic/transports",
	"CORE-MODERN-HTTP-NO-SESSIONS":    "modern:/basic/transports",
	"CORE-MODERN-NO-STDOUT-REQUESTS":  "modern:/basic/transports",
	"CORE-MODERN-NO-UNREQUESTED-LOG":  "modern:/server/utilities/logging",
	"CORE-MODERN-RESULT-SHAPE":        "modern:/basic",
	"CORE-MODERN-ERROR-CODES":         "modern:/basic",
}

// specURI is the specification section of a probe's rule, "" when none is
// listed.
func specURI(id string) string {
	sec, ok := specSections[id]
	if !ok {
		return ""
	}
	if rest, modern := strings.CutPrefix(sec, "modern:"); modern {
		return specModern + rest
	}
	return specLegacy + sec
}

// weakness is what the help of a security rule says about its CWE: the
// weakness's name, why it matters for an MCP server, and how to fix it.
type weakness struct{ name, why, fix string }

// weaknesses covers every CWE a built-in probe declares; another CWE gets
// its number and link only.
var weaknesses = map[string]weakness{
	"20":   {"Improper Input Validation", "A model sends whatever arguments it was talked into; a server that does not check them crashes or does what no one asked.", "Validate every argument against the tool's inputSchema and answer a bad one with an error result, not a crash."},
	"22":   {"Path Traversal", "A model can be steered by any text it reads into asking for `../`, absolute or encoded paths; a server that resolves them outside its root hands over or overwrites the user's files.", "Resolve every path (links included) to its real location and refuse it unless it stays inside the configured roots."},
	"59":   {"Link Following", "A link inside the allowed root can point anywhere; following it reads or writes outside the root.", "Resolve links before the containment check (realpath), or refuse to follow links, for reads, writes and creation alike."},
	"73":   {"External Control of File Name or Path", "A file name from the caller decides where data is read or written, outside what the server meant to expose.", "Do not let a tool argument name a file outside the server's own directory; check the resolved path against an allowlist."},
	"78":   {"OS Command Injection", "Text a model passes into a command line runs as a program with the server's rights.", "Run programs from an argv list without a shell, and check the program against an allowlist."},
	"88":   {"Argument Injection", "An argument that starts with `-` becomes an option of the program the server runs, some of which run other programs or write files.", "Put `--` before caller-supplied arguments and refuse ones that start with `-`."},
	"89":   {"SQL Injection", "A read-only database tool that can be talked into writing, or into other statements, gives a model the database.", "Run read-only tools in a read-only transaction or role the statement cannot leave, and run one statement per call."},
	"158":  {"Improper Neutralization of Null Byte", "A NUL byte can cut a path short after the containment check ran on the whole string.", "Refuse paths that contain NUL."},
	"177":  {"Improper Handling of URL Encoding", "Percent-encoded dots decoded after the check let `..` through.", "Decode once, then check the decoded path."},
	"184":  {"Incomplete List of Disallowed Inputs", "A denylist of programs misses the other ways to run one (a path, env, sh -c, quoting).", "Use an allowlist of programs, matched on the resolved executable."},
	"200":  {"Exposure of Sensitive Information", "Secrets in the server's environment (API keys, tokens) reach the model and, through it, anyone who can prompt it.", "Never return environment variables, configuration values or credentials in tool results, errors or descriptions."},
	"209":  {"Information Exposure Through an Error Message", "Error text that carries a connection string or password shows it to the model.", "Log details on the server side and return a generic error to the caller."},
	"250":  {"Execution with Unnecessary Privileges", "A server that connects as a more powerful role than it needs gives every caller that power.", "Connect as a role with only the rights the tools need."},
	"276":  {"Incorrect Default Permissions", "Files the server creates readable or writable by others leak or can be changed by other users.", "Create files with a restrictive mode (0600/0700) in a private directory."},
	"285":  {"Improper Authorization", "A server that asks the client for what it did not declare (sampling, elicitation, roots) acts beyond the permission it was given.", "Only send requests for capabilities the client declared in initialize."},
	"330":  {"Use of Insufficiently Random Values", "A guessable session id lets another page or process take over the session.", "Make session ids from a cryptographically secure random source, at least 128 bits."},
	"350":  {"Reliance on Reverse DNS Resolution / DNS Rebinding", "A local HTTP server that accepts any Origin or Host can be driven by any web page the user visits (DNS rebinding).", "Check the Origin and Host headers of every request against the expected loopback names and refuse others with 403."},
	"400":  {"Uncontrolled Resource Consumption", "One call that runs unbounded (output, time, memory) stalls or starves the client and the machine.", "Bound every call's output, time and memory and stop the work at the bound."},
	"404":  {"Improper Resource Shutdown or Release", "Processes left running after the client closes keep files, ports and credentials in use with no one watching them.", "Exit when stdin closes, and stop every child process on exit (process group, kill on shutdown)."},
	"522":  {"Insufficiently Protected Credentials", "Credentials forwarded to a redirect target reach a host the user never trusted with them.", "Drop Authorization and cookies when a redirect leaves the original origin."},
	"526":  {"Exposure of Sensitive Information Through Environment Variables", "Children inherit the server's environment, secrets included, and can print it back to the caller.", "Start children with an environment built from an allowlist, without the server's secrets."},
	"532":  {"Insertion of Sensitive Information into Log File", "A credential in a URL or message ends up in logs and results that others read.", "Strip userinfo and tokens from URLs and messages before logging or returning them."},
	"552":  {"Files or Directories Accessible to External Parties", "A database tool that can attach other files reads any file the server can.", "Refuse ATTACH and other statements that open files, or open the database with an authorizer that denies them."},
	"703":  {"Improper Check or Handling of Exceptional Conditions", "A tool that crashes or hangs on an ordinary call takes the session down with it.", "Handle every error in a tool and answer it as an error result."},
	"732":  {"Incorrect Permission Assignment for Critical Resource", "Writing outside the server's own directory changes files that belong to the user or other programs.", "Write only beneath the directories the server was configured with."},
	"829":  {"Inclusion of Functionality from Untrusted Control Sphere", "Repository configuration (hooks, fsmonitor, core.sshCommand) runs programs chosen by whoever wrote the repository.", "Run git with hooks and repository-controlled commands turned off, and never write repository configuration from tool arguments."},
	"833":  {"Deadlock", "A call that waits on a background child never answers, and the client waits forever.", "Do not hold the call's output pipes open in detached children; bound the wait."},
	"918":  {"Server-Side Request Forgery", "A URL-taking tool that reaches loopback or internal addresses lets a model read internal services and cloud metadata.", "Resolve the host, refuse loopback, private and link-local addresses (in every notation), and check again after each redirect."},
	"942":  {"Permissive Cross-domain Policy", "`Access-Control-Allow-Origin: *` on a local server lets any web page read its answers.", "Send no CORS headers, or only for the origins that must reach the server."},
	"1327": {"Binding to an Unrestricted IP Address", "A listener on all interfaces exposes the server to the network.", "Listen on 127.0.0.1 (or a Unix socket) only."},
	"1427": {"Improper Neutralization of Input Used for LLM Prompting", "Tool names and descriptions go straight into the model's prompt; hidden instructions there steer it (tool poisoning).", "Keep tool metadata plain text with no instructions to the model, hidden characters or secrets."},
}

// cweNumber is n of "CWE-n", "" for anything else.
func cweNumber(cwe string) string {
	tag, ok := cweTag(cwe)
	if !ok {
		return ""
	}
	return strings.TrimPrefix(tag, "external/cwe/cwe-")
}

// cweURI is the MITRE page of CWE number n.
func cweURI(n string) string {
	return "https://cwe.mitre.org/data/definitions/" + n + ".html"
}

// ruleHelp is a rule's help for code scanning, as plain text and markdown,
// and its helpUri: the rule, why it matters, how to fix it and where it
// comes from (the specification section, the CWE). A rule with a CWE is a
// security rule; the others are protocol hygiene.
func ruleHelp(pk Pack, pr Probe, doc string) (text, markdown, uri string) {
	why := "Clients rely on every server following the protocol: a server that breaks this rule fails, hangs or misbehaves in some of them."
	fix := "Make the server follow the rule as the specification section linked here states; the finding's evidence shows what was sent and what the server did."
	var refs []string
	if u := specURI(pr.ID); u != "" {
		refs = append(refs, "[MCP specification]("+u+")")
		uri = u
	}
	if n := cweNumber(pr.CWE); n != "" {
		w, known := weaknesses[n]
		if known {
			why, fix = w.why, w.fix
			refs = append(refs, fmt.Sprintf("[CWE-%s: %s](%s)", n, w.name, cweURI(n)))
		} else {
			why = "A security rule: the finding names what the server did."
			fix = "Change the server so that it no longer does what the finding's evidence shows."
			refs = append(refs, fmt.Sprintf("[CWE-%s](%s)", n, cweURI(n)))
		}
		if uri == "" {
			uri = cweURI(n)
		}
	}
	if pk.User {
		why = "One of your own probes (a table row in your tests or sealmark.yaml)."
		fix = "Make the server meet the row's expectations, or change the row."
	}
	if uri == "" {
		uri = specLegacy + "/basic"
		if !pk.User {
			refs = append(refs, "[MCP specification]("+uri+")")
		}
	}
	refs = append(refs, "[Sealmark]("+InformationURI+")")
	md := fmt.Sprintf("**%s** (%s)\n\n%s\n\n**Why it matters.** %s\n\n**How to fix.** %s\n\n**See.** %s",
		pr.Name, pr.ID, doc, why, fix, strings.Join(refs, ", "))
	text = fmt.Sprintf("%s\n\nWhy it matters: %s\n\nHow to fix: %s\n\nSee: %s", doc, why, fix, uri)
	return text, md, uri
}
