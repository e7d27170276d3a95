package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// causeTail bounds how much of the end of a server's log the start
// failure's cause is read from: the server's own last words.
const causeTail = 16 << 10

// A logCause is a known class of start failure, recognised in the
// server's own log, with what to do about it.
type logCause struct {
	class string
	sign  *regexp.Regexp
	// words words the cause from the sign's match (the whole match first,
	// then its groups).
	words func(m []string) string
}

// causes are the known classes, most specific first: a server's log that
// shows several is named by the first.
var causes = []logCause{
	{
		class: "node-version",
		sign:  regexp.MustCompile(`(?i)requires? node(?:\.js)?(?: version)?\s*(?:v|>=\s*|version\s*)?(\d+)(?:\.\d+)*(?: or (?:later|newer|higher))?`),
		words: func(m []string) string {
			return "the server needs Node.js " + m[1] + " or later (its log: \"" + strings.TrimSpace(m[0]) + "\"): " +
				"put that Node.js first on the sandbox's PATH (see `sealmark doctor`), or pin an older release of the server"
		},
	},
	{
		class: "node-builtin",
		sign:  regexp.MustCompile(`No such built-in module: (node:\w+)`),
		words: func(m []string) string {
			return "the server needs a newer Node.js: " + m[1] + " is not built into the Node.js that ran it (node:sqlite came with Node.js 22.5): " +
				"put a current Node.js first on the sandbox's PATH (see `sealmark doctor`), or pin an older release of the server"
		},
	},
	{
		class: "native-module",
		sign:  regexp.MustCompile(`Cannot find module '([^']+\.node)'|Could not locate the bindings file|NODE_MODULE_VERSION \d+`),
		words: func(m []string) string {
			what := "a native module"
			if m[1] != "" {
				what = "its native module " + filepath.Base(m[1])
			}
			return "the server cannot load " + what + ", which is built by an install script, and the package was fetched with install scripts off: " +
				"install it yourself with its scripts (npm install PACKAGE), check what they run, and point the command at the installed server"
		},
	},
	{
		class: "module-missing",
		sign:  regexp.MustCompile(`Cannot find (?:module|package) '([^']+)' imported from`),
		words: func(m []string) string {
			return "the server's code imports a module that is not there (" + m[1] + "): the package as published does not run " +
				"with the dependencies npm resolved for it; pin another release of the server"
		},
	},
	{
		class: "oauth",
		sign:  regexp.MustCompile(`https?://[^\s"'<>]*(?:oauth|/authorize|/o/oauth2|/login/device|/auth\?)[^\s"'<>]*`),
		words: func(m []string) string {
			return "the server wants an interactive sign-in in a browser (it printed an authorization URL), which a contained run cannot complete: " +
				"sign in once outside Sealmark and stage the token file it writes (server.files), or give it a token in its env"
		},
	},
	{
		class: "api-key",
		sign: regexp.MustCompile(`(?i)invalid[ _-]?(?:api[ _-]?)?(?:key|token)|api[ _-]?key (?:is )?(?:invalid|rejected|not valid)|` +
			`\b401\b[^\n]{0,40}unauthori[sz]ed|unauthori[sz]ed[^\n]{0,40}\b401\b|status(?: code)?:? ?401\b`),
		words: func(m []string) string {
			return "the server's API key was rejected (its log: \"" + strings.TrimSpace(m[0]) + "\"): " +
				"give it a key the service accepts in its env, or test a build that starts without one"
		},
	},
	{
		class: "file-missing",
		sign: regexp.MustCompile(`ENOENT: no such file or directory, (?:open|stat|lstat|scandir|access) '([^']+)'|` +
			`(?i)[^\n]*\b(?:config|credentials?|keys?|spec)\b[^\n]{0,40}\b(?:does not exist|not found)[^\n]*`),
		words: func(m []string) string {
			what := "a file it was given"
			if m[1] != "" {
				what = m[1]
			} else {
				what = "a file it was given (its log: \"" + strings.TrimSpace(m[0]) + "\")"
			}
			return "the server could not find " + what + " at start: a file named in its args or env must be in the sandbox " +
				"(server.files stages it; with scan, --as-configured keeps the host path)"
		},
	},
	{
		class: "service",
		sign:  regexp.MustCompile(`(ECONNREFUSED|ENETUNREACH|EACCES|EPERM):? ?(?:\[?([0-9a-fA-F.:]+)\]?:(\d+))?|[Cc]onnection refused`),
		words: func(m []string) string {
			at := "a service"
			loop := true
			if m[3] != "" {
				at = "a service at " + m[2] + ":" + m[3]
				loop = strings.HasPrefix(m[2], "127.") || m[2] == "::1" || m[2] == "localhost"
			}
			switch {
			case loop && m[1] != "ECONNREFUSED" && m[1] != "":
				return "the server needs " + at + ", which is not declared, so the sandbox refused it (" + m[1] + "): " +
					"run the service and declare it (sandbox.services, --service)"
			case loop:
				return "the server needs " + at + " that is not running (connection refused): " +
					"start it and declare it (sandbox.services, --service), or point the server at one that is"
			}
			return "the server needs " + at + " off this machine, which the sandbox refuses: " +
				"test it against a local stand-in declared as a service (sandbox.services, --service)"
		},
	},
}

// undeclaredService is how refusedDest ends a loopback destination that
// is not a declared service.
const undeclaredService = ": refused (not the harness's and not a declared service)"

// refusedCause names the cause of a start from what containment refused
// when the log names none: a loopback service the server needs that is not
// declared; "" otherwise.
func refusedCause(refused []string) string {
	for _, r := range refused {
		if dest, ok := strings.CutSuffix(r, undeclaredService); ok {
			return "the server needs a service at " + strings.TrimPrefix(dest, "connect ") + ", which is not declared, so the sandbox refused it: " +
				"run the service and declare it (sandbox.services, --service)"
		}
	}
	return ""
}

// logCauseOf names the known cause of a failed start from the server's own
// log, with its remedy; "" when the log shows none. command is the
// server's program: a Node.js package's `engines` field, found above it,
// is compared with the Node.js that ran it when the log names one.
func logCauseOf(log, command string) string {
	if len(log) > causeTail {
		log = log[len(log)-causeTail:]
	}
	for _, c := range causes {
		if m := c.sign.FindStringSubmatch(log); m != nil {
			return c.words(m)
		}
	}
	if need, ran := enginesNode(command), ranNode(log); need > 0 && ran > 0 && ran < need {
		return fmt.Sprintf("the server needs Node.js %d or later (its package's engines field) and ran on Node.js %d: "+
			"put that Node.js first on the sandbox's PATH (see `sealmark doctor`), or pin an older release of the server", need, ran)
	}
	return ""
}

// causeOf is logCauseOf for this run's server, masked: the log line it
// quotes may hold a secret.
func (e *Engine) causeOf(log string) string {
	return e.redactor.String(logCauseOf(log, e.cfg.Command))
}

// ranNodeSign is the line Node.js ends an uncaught error with.
var ranNodeSign = regexp.MustCompile(`(?m)^Node\.js v(\d+)\.`)

// ranNode is the major version of the Node.js that printed log's last
// uncaught error; 0 when it printed none.
func ranNode(log string) int {
	all := ranNodeSign.FindAllStringSubmatch(log, -1)
	if len(all) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(all[len(all)-1][1])
	return n
}

// enginesMajor reads the least major version of a package.json's
// engines.node (">=22", "^20.19.0 || >=22.12.0", "22.x").
var enginesMajor = regexp.MustCompile(`(\d+)`)

// enginesNode is the least Node.js major version the package that holds
// command asks for in its package.json's engines field; 0 when there is no
// such package or field. It looks at most eight directories up from the
// command's real path (an npm bin link points into the package).
func enginesNode(command string) int {
	if command == "" || !filepath.IsAbs(command) {
		return 0
	}
	p, err := filepath.EvalSymlinks(command)
	if err != nil {
		return 0
	}
	dir := filepath.Dir(p)
	for range 8 {
		if b, err := os.ReadFile(filepath.Join(dir, "package.json")); err == nil {
			var pkg struct {
				Engines struct {
					Node string `json:"node"`
				} `json:"engines"`
			}
			if json.Unmarshal(b, &pkg) == nil && pkg.Engines.Node != "" {
				least := 0
				for _, alt := range strings.Split(pkg.Engines.Node, "||") {
					if m := enginesMajor.FindString(alt); m != "" {
						if n, _ := strconv.Atoi(m); least == 0 || n < least {
							least = n
						}
					}
				}
				return least
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			break
		}
		dir = up
	}
	return 0
}

// downloadSigns are what a launcher prints when it fetches a package
// (matched without regard to case): npm's and uv's errors, and a
// package registry named.
var downloadSigns = []string{"npm err!", "npm error", "npm warn exec", "registry", "pypi.org", "files.pythonhosted.org"}

// launchers are the programs that fetch a package before they run it.
var launchers = []string{"npx", "pnpx", "bunx", "uvx", "pipx"}

// downloadAttempted reports whether the start tried to fetch a package:
// the command is a launcher, or the log shows one fetching.
func downloadAttempted(command, log string) bool {
	base := strings.TrimSuffix(filepath.Base(command), ".cmd")
	for _, l := range launchers {
		if base == l {
			return true
		}
	}
	lower := strings.ToLower(log)
	for _, s := range downloadSigns {
		if strings.Contains(lower, s) {
			return true
		}
	}
	return false
}
