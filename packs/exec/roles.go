package exec

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"

	"github.com/sealmark/sealmark/packs"
)

// Tool is one command-running tool as the pack probes it: the argument
// that carries the command line, and the optional arguments the probes
// fill. Other required arguments are synthesized from the input schema.
type Tool struct {
	Name    string
	Command string // the argument carrying the command line (or a terminal's input text)
	Args    string // an array of strings carrying the program's arguments, or ""
	Cwd     string // the working-directory argument, or ""
	Timeout string // the timeout argument, or ""
	// TimeoutMillis is true when Timeout counts milliseconds (its name
	// says ms or millis), false for seconds.
	TimeoutMillis bool
	Schema        json.RawMessage
}

// Hint overrides the guess for one tool: which arguments carry the command
// line, the program's arguments, the working directory and the timeout.
// A hint with no Command leaves its tool unprobed.
type Hint struct {
	Tool    string
	Command string
	Args    string
	Cwd     string
	Timeout string
}

// Argument names, normalized (lower case, without _ - . and spaces).
var (
	commandNames = []string{"command", "cmd", "commandline", "cmdline", "shellcommand", "script", "program", "executable", "exec", "run"}
	inputNames   = []string{"input", "text", "keys", "line", "data"} // a terminal's input text
	argsNames    = []string{"args", "argv", "arguments", "params", "parameters"}
	cwdNames     = []string{"cwd", "workdir", "workingdir", "workingdirectory", "dir", "directory", "cwdpath", "path"}
	// sessionNames are required arguments the pack cannot fill: a tool that
	// needs a running session or process is not probed on its own.
	sessionNames = []string{"pid", "sessionid", "session", "processid", "terminalid", "terminal", "shellid", "id"}
	// terminalWords in a tool's name make its input text a command line.
	terminalWords = []string{"terminal", "shell", "console", "tty", "pty", "repl", "exec", "execute", "command", "bash", "sh", "zsh", "powershell"}
	// runWords in a tool's name make its script argument a command line
	// (run_script), where alone it may be JavaScript to evaluate.
	runWords = append([]string{"run", "script", "cmd"}, terminalWords...)
)

// kind is what the roles make of a property's type: "string" (or
// untyped), "array" (of strings), "number", or "" for anything else.
func kind(p packs.Prop) string {
	switch {
	case p.Text():
		return "string"
	case p.Number():
		return "number"
	case p.TextList():
		return "array"
	}
	return ""
}

// pick returns the first property of type typ whose normalized name is in
// names (in the order of names).
func pick(props []packs.Prop, typ string, names []string) string {
	for _, n := range names {
		for _, p := range props {
			if kind(p) == typ && p.Norm == n {
				return p.Name
			}
		}
	}
	return ""
}

// Tools finds the command-running tools of a surface: a hint decides for
// the tool it names; otherwise a string argument named like command, cmd,
// script or program (or a terminal tool's input text) makes a tool one.
// A tool that needs a running session (a required pid or session id) is
// left out: the pack cannot fill it.
func Tools(s *packs.Surface, hints []Hint) []Tool {
	var out []Tool
	for _, t := range s.Tools {
		props := packs.Props(t.InputSchema)
		et := Tool{Name: t.Name, Schema: t.InputSchema}
		if i := slices.IndexFunc(hints, func(h Hint) bool { return h.Tool == t.Name }); i >= 0 {
			h := hints[i]
			if h.Command == "" {
				continue
			}
			et.Command, et.Args, et.Cwd, et.Timeout = h.Command, h.Args, h.Cwd, h.Timeout
			out = append(out, complete(et, props))
			continue
		}
		et.Command = pick(props, "string", commandNames)
		if packs.NormalizeName(et.Command) == "script" && !nameHas(t.Name, runWords) {
			et.Command = "" // a script to evaluate (JavaScript in a page), not a command line
		}
		if et.Command == "" && nameHas(t.Name, terminalWords) {
			et.Command = pick(props, "string", inputNames)
		}
		if et.Command == "" || needsSession(props) {
			continue
		}
		out = append(out, complete(et, props))
	}
	return out
}

// complete fills the optional arguments the hint or the guess left empty.
func complete(et Tool, props []packs.Prop) Tool {
	if et.Args == "" {
		et.Args = pick(props, "array", argsNames)
	}
	if et.Cwd == "" {
		et.Cwd = pick(props, "string", cwdNames)
	}
	if et.Timeout == "" {
		for _, p := range props {
			if kind(p) == "number" && strings.Contains(p.Norm, "timeout") {
				et.Timeout = p.Name
				break
			}
		}
	}
	n := packs.NormalizeName(et.Timeout)
	et.TimeoutMillis = strings.HasSuffix(n, "ms") || strings.Contains(n, "milli")
	return et
}

// nameHas reports whether a word of the tool's name (split at _ - .
// spaces and camelCase) is one of words.
func nameHas(name string, of []string) bool {
	var words []string
	var cur []rune
	rs := []rune(name)
	for i, r := range rs {
		boundary := r == '_' || r == '-' || r == '.' || unicode.IsSpace(r)
		if boundary || unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]) {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
		if !boundary {
			cur = append(cur, r)
		}
	}
	words = append(words, strings.ToLower(string(cur)))
	return slices.ContainsFunc(words, func(w string) bool { return slices.Contains(of, w) })
}

func needsSession(props []packs.Prop) bool {
	for _, p := range props {
		if p.Required && slices.Contains(sessionNames, p.Norm) {
			return true
		}
	}
	return false
}
