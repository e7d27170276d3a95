package fs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// A tool whose input schema names no properties (a server whose schema
// converter failed lists {"$schema": ...} and nothing else) still takes a
// path when its name, title or description says it handles files. Its
// role comes from those words; its argument names are learned from the
// server itself: a call with no arguments is refused by a validating
// server with the names it wanted (zod's issue list, "path: Required",
// "missing required argument 'path'", pydantic's "path\n  Field
// required"). The learned names become a schema the rest of the pack reads
// as if the server had sent it.

// schemaless reports whether an input schema says nothing about the
// tool's arguments: missing, null, not an object, or an object without a
// properties member. An explicit "properties": {} is a tool that takes no
// arguments, not an unknown one.
func schemaless(schema json.RawMessage) bool {
	var s map[string]json.RawMessage
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || s == nil {
		return true
	}
	props, ok := s["properties"]
	if !ok || string(props) == "null" {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(props, &m) != nil
}

// fileWords are the words that make a schemaless tool a file tool.
var fileWords = []string{"file", "files", "filename", "filesystem", "directory", "directories", "dir", "folder", "folders", "path", "paths", "filepath"}

// inferRole tells the role of a schemaless tool from its name, then its
// title, then the first word of its description, and says which; "" when
// none tells a role or nothing in them speaks of files.
func inferRole(t packs.Tool) (role Role, recursive bool, how string) {
	title := cmpOr(t.Title, t.Annotations.Title)
	if !fileish(t) || hostedTalk(t) {
		return "", false, ""
	}
	role, recursive = roleByName(t.Name)
	how = "its name"
	if role == "" && title != "" {
		role, recursive = roleByName(title)
		how = "its title"
	}
	if role == "" {
		if ws := packs.Words(t.Description); len(ws) > 0 {
			role, recursive = roleByName(ws[0])
			how = "the first word of its description"
		}
	}
	if role == "" && t.ReadOnly() {
		role, how = Read, "its readOnlyHint"
	}
	if role.Writes() && t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint {
		role, how = Read, how+" and its readOnlyHint"
	}
	return role, recursive, how
}

// learnKey is the Shared key of what was learned about one tool on this
// start, so the probes of a start call it with no arguments once.
const learnKey = "fs.learned:"

// learned is what a call with no arguments taught about one tool.
type learned struct {
	tool Tool   // the tool, completed from the learned schema, when ok
	ok   bool   // the tool can be probed
	none bool   // the tool answered without complaint: it takes no path
	how  string // how the role and arguments were found, for a note
	why  string // why it cannot be probed, when it cannot
}

// learn calls a schemaless tool with no arguments and completes its role
// from the argument names the server's refusal gives.
func (r *run) learn(ft Tool) learned {
	if l, ok := r.p.Shared[learnKey+ft.Name].(learned); ok {
		return l
	}
	l := r.learnNow(ft)
	if r.p.Shared != nil {
		r.p.Shared[learnKey+ft.Name] = l
	}
	return l
}

func (r *run) learnNow(ft Tool) learned {
	res := r.call(ft, map[string]any{}, ft.Name+" with no arguments (to learn its argument names)")
	if res == nil {
		return learned{why: fmt.Sprintf("its input schema lists no arguments and a call with no arguments got no answer, so its argument names are unknown (role %s from %s)", ft.Role, ft.How)}
	}
	text := responseText(res)
	args := argsFromError(text)
	if len(args) == 0 {
		if !res.Refused() {
			return learned{none: true, why: fmt.Sprintf("%s answered a call with no arguments, so it takes no path", ft.Name)}
		}
		return learned{why: fmt.Sprintf("its input schema lists no arguments and its refusal of a call with no arguments names none (%s), so its path argument is unknown (role %s from %s); a hint (hints.fs.%s) makes it testable", clip(text, 120), ft.Role, ft.How, ft.Name)}
	}
	schema := learnedSchema(args)
	props := packs.Props(schema)
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.name
	}
	ft.Schema = schema
	paths := props
	if !ft.Hinted {
		paths = pathCandidates(surfaceTool(r.p.Surface, ft.Name), props)
	}
	done, ok := complete(ft, props, paths)
	if ok && !ft.Hinted && !optionalPathOK(surfaceTool(r.p.Surface, ft.Name), done.Path, props) {
		ok = false
	}
	if !ok && len(paths) < len(props) {
		return learned{none: true, why: fmt.Sprintf("%s: its input schema lists no arguments; the server asked for %s, none of which is a path on this machine for role %s (from %s), so it is taken for no file tool", ft.Name, strings.Join(names, ", "), ft.Role, ft.How)}
	}
	if !ok {
		return learned{why: fmt.Sprintf("its input schema lists no arguments; the server asked for %s, none of which carries a path for role %s (from %s)", strings.Join(names, ", "), ft.Role, ft.How)}
	}
	done.How = fmt.Sprintf("role %s from %s; arguments %s learned from the server's refusal of a call with no arguments", done.Role, ft.How, strings.Join(names, ", "))
	return learned{tool: done, ok: true, how: done.How}
}

// learnedArg is one argument a server asked for.
type learnedArg struct {
	name string
	typ  string // "string" or "array"
}

// learnedSchema is the input schema the learned arguments make: each
// required, a string or an array of strings.
func learnedSchema(args []learnedArg) json.RawMessage {
	props := map[string]any{}
	var req []string
	for _, a := range args {
		if a.typ == "array" {
			props[a.name] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		} else {
			props[a.name] = map[string]any{"type": "string"}
		}
		req = append(req, a.name)
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": req})
	return b
}

// Refusal shapes that name a missing argument, one capture group each.
var missingArg = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^\s*-?\s*["'` + "`" + `]?([A-Za-z_][\w-]*)["'` + "`" + `]?\s*:\s*(?:Required|Field required|required|This field is required)\b`), // zod flattened, "path: Required"
	regexp.MustCompile(`(?m)^([A-Za-z_][\w-]*)\s*\n\s+Field required`),                                                                                       // pydantic
	regexp.MustCompile(`(?i)missing (?:required )?(?:argument|parameter|property|field|key)s?:?\s*["'` + "`" + `]?([A-Za-z_][\w-]*)`),                        // missing required argument 'path'
	regexp.MustCompile(`(?i)required (?:argument|parameter|property|field|key):?\s*["'` + "`" + `]([A-Za-z_][\w-]*)["'` + "`" + `]`),                         // must have required property 'path'
	regexp.MustCompile(`(?i)["'` + "`" + `]([A-Za-z_][\w-]*)["'` + "`" + `] (?:is (?:a )?)?(?:required|missing)`),                                            // "path" is required
}

// argsFromError reads the argument names a refusal asks for: zod's JSON
// issue list first (it gives the expected type too), then the text shapes.
func argsFromError(text string) []learnedArg {
	var out []learnedArg
	add := func(name, typ string) {
		if name == "" || slices.ContainsFunc(out, func(a learnedArg) bool { return a.name == name }) {
			return
		}
		if typ != "array" {
			typ = "string"
			if slices.Contains(manyNames, packs.NormalizeName(name)) {
				typ = "array"
			}
		}
		out = append(out, learnedArg{name, typ})
	}
	for _, issue := range zodIssues(text) {
		add(issue.name, issue.typ)
	}
	if len(out) > 0 {
		return out
	}
	text = text[:min(len(text), maxRefusal)]
	for _, re := range missingArg {
		for _, m := range re.FindAllStringSubmatch(text, 16) {
			add(m[1], "")
		}
	}
	return out
}

// maxRefusal bounds how much of a refusal is read for argument names.
const maxRefusal = 64 << 10

// zodIssues finds a JSON array of zod issues in text and returns the
// top-level argument each names with its expected type.
func zodIssues(text string) []learnedArg {
	var out []learnedArg
	text = text[:min(len(text), maxRefusal)]
	tries := 0
	for i := strings.IndexByte(text, '['); i >= 0 && len(out) == 0 && tries < 8; tries++ {
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var issues []struct {
			Path     []any  `json:"path"`
			Expected string `json:"expected"`
			Code     string `json:"code"`
		}
		if dec.Decode(&issues) == nil {
			for _, is := range issues {
				if len(is.Path) == 0 || is.Code == "unrecognized_keys" {
					continue
				}
				if name, ok := is.Path[0].(string); ok {
					out = append(out, learnedArg{name, is.Expected})
				}
			}
		}
		next := strings.IndexByte(text[i+1:], '[')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return out
}

// responseText is what a response says in words: the text of its content,
// or its error's message and data.
func responseText(res *packs.Response) string {
	if res.Error != nil {
		return string(res.Body())
	}
	var v struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(res.Result, &v) != nil {
		return string(res.Result)
	}
	var parts []string
	for _, c := range v.Content {
		parts = append(parts, c.Text)
	}
	return strings.Join(parts, "\n")
}

// clip shortens a server's text for a message, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
