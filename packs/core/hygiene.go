package core

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sealmark/sealmark/packs"
)

// Tool metadata hygiene: what a tool list says to the model reading it.
// The checks are deterministic and offline: they read the tool list the
// start already has and call nothing.

// maxDescription is the longest tool description that is not suspicious.
// Real servers write long manuals into descriptions (6,549 characters is the
// longest in the corpus under testdata/toollists); four times 4,096 leaves
// them room and still flags padding that pushes text out of a reviewer's view.
const maxDescription = 16384

// maxHygieneFindings bounds the findings of one tool list; the rest are counted.
const maxHygieneFindings = 20

var toolMetadata = packs.Probe{
	ID:       "CORE-TOOL-METADATA",
	Name:     "tool-metadata",
	Severity: packs.High,
	CWE:      "CWE-1427",
	Doc:      "tool names, descriptions and schemas must not hide text (invisible or tag Unicode), address the model (ignore instructions, <IMPORTANT>, keep it from the user, read ~/.ssh or pass the user's secrets), steer it away from other tools, or run past 16384 characters, nor the list past the message limit (tool poisoning; spec 2025-11-25 server/tools#security-considerations)",
	Run: func(p *packs.Pass) {
		if p.Surface.ToolsTooLarge {
			// High, as the poisoning it can hide: a tool list past the
			// message limit is text meant for the model that no reviewer
			// (and no client holding to a limit) reads whole, and a
			// server that sends one hides its tools behind their size.
			p.Reportf("the tool list cannot be reviewed: %s", p.Surface.ToolsError).
				Evidencef("tools/list", "%s", p.Surface.ToolsError)
			if len(p.Surface.Tools) == 0 {
				return
			}
		}
		if len(p.Surface.Tools) == 0 {
			if p.Surface.ToolsError != "" {
				p.NotApplicable("no tool could be read (tools-list reports it): %s", p.Surface.ToolsError)
				return
			}
			p.NotApplicable("the server lists no tools")
			return
		}
		names := toolNames(p.Surface.Tools)
		n := 0
		report := func(sev packs.Severity, format string, args ...any) *packs.Finding {
			n++
			if n > maxHygieneFindings {
				return &packs.Finding{}
			}
			f := p.Reportf(format, args...)
			f.Severity = sev
			return f
		}
		for i, t := range p.Surface.Tools {
			if err := p.Ctx.Err(); err != nil {
				p.Inconclusive("interrupted after %d of %d tools (%v)", i, len(p.Surface.Tools), err)
				return
			}
			checkTool(t, names, report)
		}
		if n > maxHygieneFindings {
			p.Notef("%d further findings not shown", n-maxHygieneFindings)
		}
		p.Notef("%d tools checked", len(p.Surface.Tools))
	},
}

type reporter func(sev packs.Severity, format string, args ...any) *packs.Finding

// toolNames indexes the listed tools' names by their lower-case form, the
// form steering compares (its phrases are case-insensitive). Names shorter
// than three characters are left out: "do not use it" is not about a tool
// named "it".
func toolNames(tools []packs.Tool) map[string]string {
	names := make(map[string]string, len(tools))
	for _, t := range tools {
		if len(t.Name) >= 3 {
			names[strings.ToLower(t.Name)] = t.Name
		}
	}
	return names
}

// checkTool reports what is wrong with one tool's metadata, once per kind
// and place. Its cost is linear in the size of the tool's metadata, whatever
// the number of tools: names is looked up, never scanned.
func checkTool(t packs.Tool, names map[string]string, report reporter) {
	raw := t.Raw
	if len(raw) == 0 {
		raw, _ = json.Marshal(t)
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return
	}
	who := fmt.Sprintf("tool %q", t.Name)
	for _, s := range texts(v, "") {
		if i := invisibleAt(s.text); i >= 0 {
			msg := fmt.Sprintf("%s %s hides %d invisible characters", who, s.where, countInvisible(s.text))
			if hidden := tagText(s.text); hidden != "" {
				msg += fmt.Sprintf(" (tag characters spelling %q)", hidden)
			}
			report(packs.High, "%s: %s", msg, span(s.text, i, i+utf8.RuneLen(firstRune(s.text[i:])))).
				Evidencef("tools/list", "%s %s", who, s.where)
		}
		if !s.prose {
			continue
		}
		for _, r := range poisonRules {
			if loc := r.re.FindStringIndex(s.text); loc != nil {
				report(r.severity, "%s %s has %s: %s", who, s.where, r.kind, span(s.text, loc[0], loc[1])).
					Evidencef("tools/list", "%s %s", who, s.where)
			}
		}
		for _, st := range steered(s.text, names) {
			if st.name == t.Name {
				continue
			}
			report(packs.Medium, "%s %s steers the model away from tool %q: %s", who, s.where, st.name, span(s.text, st.start, st.end)).
				Evidencef("tools/list", "%s %s names %q", who, s.where, st.name)
		}
	}
	if n := utf8.RuneCountInString(t.Description); n > maxDescription {
		report(packs.Low, "%s description is %d characters long (over %d): %s", who, n, maxDescription, span(t.Description, 0, 0)).
			Evidencef("tools/list", "%s description: %d characters", who, n)
	}
}

// text is one string of a tool's metadata and where it is.
type text struct {
	where string // "description", "inputSchema.properties.path.description", "a key in inputSchema.properties"
	text  string
	prose bool // a description or title: text the model reads as instructions
}

// texts lists every string in v, keys included, in a stable order.
func texts(v any, path string) []text {
	var out []text
	switch v := v.(type) {
	case string:
		key := path[strings.LastIndex(path, ".")+1:]
		out = append(out, text{where: path, text: v, prose: key == "description" || key == "title"})
	case []any:
		for i, e := range v {
			out = append(out, texts(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			where := k
			if path != "" {
				where = path + "." + k
			}
			if invisibleAt(k) >= 0 {
				in := "the tool"
				if path != "" {
					in = path
				}
				out = append(out, text{where: "a key in " + in, text: k})
			}
			out = append(out, texts(v[k], where)...)
		}
	}
	return out
}

// poisonRules match text addressed to the model rather than to a person.
var poisonRules = []struct {
	kind     string
	severity packs.Severity
	re       *regexp.Regexp
}{
	{"an instruction to ignore earlier instructions", packs.High, regexp.MustCompile(
		`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+)?(previous|prior|above|earlier|preceding|system|other)\s+(instructions|prompts?|rules|directions|guidelines)`)},
	{"a tag addressed to the model", packs.High, regexp.MustCompile(
		`(?i)<\s*(important|system|instructions?|secret|hidden|admin)\s*>`)},
	// "Without asking the user" describes what a tool does (it overwrites
	// without a prompt); "without telling the user" hides it.
	{"an instruction to keep something from the user", packs.High, regexp.MustCompile(
		`(?i)\b((do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show|notify|alert|disclose)\b[^.\n]{0,40}\buser|without\s+(telling|informing|notifying|alerting)\s+(the\s+)?user|(the\s+)?user\s+(must|should)\s+not\s+(know|see|be\s+told))`)},
	// A credentials file named as something to read or send, not one
	// named in passing ("paths such as ~/.ssh are rejected").
	{"an instruction to read a credentials file", packs.Medium, regexp.MustCompile(
		`(?i)\b(read|cat|open|load|include|send|pass|upload|attach|copy|print|output|return|fetch|get|dump|paste|forward|exfiltrate)\b(?:[^.\n]|\.\S){0,40}?(~/\.ssh|\.ssh/|\bid_(rsa|ed25519|ecdsa|dsa)\b|~/\.aws|\.aws/credentials|(^|[\s"'(/` + "`" + `])\.env\b|\.netrc\b|\.npmrc\b|\.pgpass\b|/etc/shadow|\bmcp\.json\b|\.git-credentials)`)},
	// Someone's secrets as the object of the verb ("include the user's API
	// keys in the extra parameter"), not a field that merely holds one
	// ("separate periods per API key, identified by the apiKey field").
	{"a request to pass secrets as arguments", packs.Medium, regexp.MustCompile(
		`(?i)\b(pass|send|include|provide|put|add|insert|append|attach|forward)\s+(in\s+)?(the\s+user'?s'?|users'|all(\s+the)?|any|every|other|stored|saved|their)\s+([\w-]+\s+){0,2}?(api[\s_-]?keys?|secrets?|passwords?|credentials|private[\s_-]?keys?|access[\s_-]?tokens?|auth(entication)?[\s_-]?tokens?|session[\s_-]?tokens?|env(ironment)?\s+variables?)\b[^.\n]{0,60}\b(parameter|argument|field|param)s?\b`)},
}

// steering matches a phrase that sends the model away from a tool, and the
// tool name that follows it (a name of A-Z a-z 0-9 _ . -, optionally quoted).
var steering = regexp.MustCompile(`(?i)\b(?:instead\s+of|rather\s+than|in\s+place\s+of|before\s+(?:using|calling|invoking|running)|do\s+not\s+(?:use|call)|don'?t\s+(?:use|call)|never\s+(?:use|call)|replaces?|overrides?|supersedes?)\s+(?:the\s+)?[` + "`" + `'"]?([A-Za-z0-9_.-]+)`)

// steer is one steering phrase in a text: the tool it names and where.
type steer struct {
	name       string
	start, end int
}

// steered lists the listed tools that text steers the model away from, each
// once, in the order they first appear. A name ending in a dot is the end of
// a sentence ("instead of read_file."), unless a tool has that name.
func steered(text string, names map[string]string) []steer {
	var out []steer
	for _, m := range steering.FindAllStringSubmatchIndex(text, -1) {
		word := text[m[2]:m[3]]
		name, ok := names[strings.ToLower(word)]
		if !ok {
			name, ok = names[strings.ToLower(strings.TrimRight(word, "."))]
		}
		if !ok || slices.ContainsFunc(out, func(s steer) bool { return s.name == name }) {
			continue
		}
		out = append(out, steer{name: name, start: m[0], end: m[1]})
	}
	return out
}

// invisible reports a rune that renders as nothing: Unicode tags,
// zero-width characters and joiners, invisible operators, bidirectional
// controls and the byte order mark.
func invisible(r rune) bool {
	switch {
	case r >= 0xE0000 && r <= 0xE007F,
		r >= 0x200B && r <= 0x200F,
		r >= 0x2060 && r <= 0x2064,
		r >= 0x202A && r <= 0x202E,
		r >= 0x2066 && r <= 0x2069,
		r == 0xFEFF:
		return true
	}
	return false
}

// invisibleAt is the byte offset of the first invisible rune in s, or -1.
func invisibleAt(s string) int {
	return strings.IndexFunc(s, invisible)
}

func countInvisible(s string) int {
	n := 0
	for _, r := range s {
		if invisible(r) {
			n++
		}
	}
	return n
}

// tagText decodes the text spelled in Unicode tag characters (each tag
// U+E0020..U+E007E stands for the ASCII character 0xE0000 below it).
func tagText(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0xE0020 && r <= 0xE007E {
			b.WriteRune(r - 0xE0000)
		}
	}
	return b.String()
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// maxSpan is the most characters of metadata a finding quotes.
const maxSpan = 80

// span quotes s[start:end] with context around it, at most maxSpan
// characters, invisible and control characters escaped.
func span(s string, start, end int) string {
	runes := []rune(s)
	from := utf8.RuneCountInString(s[:start])
	to := from + utf8.RuneCountInString(s[start:end])
	if to-from > maxSpan {
		to = from + maxSpan
	}
	extra := maxSpan - (to - from)
	from = max(0, from-extra/2)
	to = min(len(runes), from+maxSpan)
	from = max(0, min(from, to-maxSpan))
	out := strconv.QuoteToGraphic(string(runes[from:to]))
	if from > 0 {
		out = "…" + out
	}
	if to < len(runes) {
		out += "…"
	}
	return out
}
