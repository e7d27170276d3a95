package table

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/packs"
)

// placeholder is the one form of placeholder ({name}, lowercase letters
// and underscores), as server.args writes it.
var placeholder = environ.Placeholder

// Placeholders lists every placeholder a row may use, in its arguments and
// in the text of its expectations, with what it stands for. Pack rejects
// any other {name}.
var Placeholders = map[string]string{
	// The run's values (packs.Pass.Vars and the probe's token).
	"sandbox":      "the sandbox root, the server's working directory",
	"sandbox_home": "the server's HOME inside the sandbox",
	"cwd":          "the directory the harness was started from",
	"port":         "a free loopback port",
	"listener":     "the URL of the harness's loopback listener (http://127.0.0.1:PORT)",
	"upstream":     "the URL of the harness's upstream stub",
	"token":        "the row's fresh random token",
	// The sandbox's fixtures.
	"canary_file": "the canary file outside the root: {sandbox}/../canary/secret.txt",
	"canary_dir":  "the canary directory outside the root: {sandbox}/../canary",
	"root_evil":   "the sibling directory whose name starts like the root's: {sandbox}/../root-evil",
	"link_file":   "a link in the root to the canary file: {sandbox}/link-file",
	"link_dir":    "a link in the root to the canary directory: {sandbox}/link-dir",
	"ok_file":     "a readable file in the root: {sandbox}/ok.txt",
	"ok_token":    "the content of ok.txt, for a control row",
}

// knownPlaceholders is the sorted list for error messages.
func knownPlaceholders() string {
	names := make([]string, 0, len(Placeholders))
	for n := range Placeholders {
		names = append(names, n)
	}
	slices.Sort(names)
	return "{" + strings.Join(names, "} {") + "}"
}

// unknownPlaceholder returns the first {name} in s that is not a known
// placeholder, or "".
func unknownPlaceholder(s string) string {
	for _, m := range placeholder.FindAllString(s, -1) {
		if _, ok := Placeholders[m[1:len(m)-1]]; !ok {
			return m
		}
	}
	return ""
}

// values are the placeholders' values on one run. A known placeholder the
// run has no value for (no sandbox, no listener) is absent.
func values(p *packs.Pass) map[string]string {
	v := map[string]string{"token": p.Token}
	for _, name := range []string{"sandbox", "sandbox_home", "cwd", "port", "listener", "upstream"} {
		if s, ok := p.Vars[name]; ok && s != "" {
			v[name] = s
		}
	}
	if sb := p.Sandbox; sb != nil {
		v["canary_file"] = filepath.Join(sb.Canary, "secret.txt")
		v["canary_dir"] = sb.Canary
		v["root_evil"] = sb.RootEvil
		v["link_file"] = filepath.Join(sb.Root, "link-file")
		v["link_dir"] = filepath.Join(sb.Root, "link-dir")
		v["ok_file"] = filepath.Join(sb.Root, "ok.txt")
		v["ok_token"] = sb.OKToken
	}
	return v
}

// expander replaces placeholders with one run's values and remembers the
// first placeholder the run has no value for.
type expander struct {
	vals    map[string]string
	missing string
}

// text expands s; quote transforms each value (regexp.QuoteMeta for a
// regexp) or is nil.
func (x *expander) text(s string, quote func(string) string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := x.vals[m[1:len(m)-1]]
		if !ok {
			if x.missing == "" {
				x.missing = m
			}
			return m
		}
		if quote != nil {
			return quote(v)
		}
		return v
	})
}

// args expands every string in a copy of v, through nested maps and lists.
// Map keys are left as written.
func (x *expander) args(v any) any {
	switch v := v.(type) {
	case string:
		return x.text(v, nil)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = x.args(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = x.args(e)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = x.text(e, nil)
		}
		return out
	}
	return v
}

// walkStrings calls f on every string in v, through nested maps and lists.
func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case map[string]any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case []string:
		for _, e := range v {
			f(e)
		}
	}
}

// missingValue explains why a known placeholder has no value on this run.
func missingValue(name string) string {
	switch name {
	case "{listener}", "{upstream}":
		return name + " has no value on this run: the loopback listener and the upstream stub exist only with a sandbox"
	case "{sandbox}", "{sandbox_home}":
		return name + " has no value on this run: it has no sandbox"
	}
	return name + " has no value on this run: the sandbox's fixtures exist only with a sandbox"
}

// unknownError is "unknown placeholder {sandbx} (known: ...)".
func unknownError(m string) error {
	return fmt.Errorf("unknown placeholder %s (known: %s)", m, knownPlaceholders())
}
