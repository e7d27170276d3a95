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
const maxDescription = 4096

// maxHygieneFindings bounds the findings of one tool list; the rest are counted.
const maxHygieneFindings = 20

var toolMetadata = packs.Probe{
	ID:       "CORE-TOOL-METADATA",
	Name:     "tool-metadata",
	Severity: packs.High,
	CWE:      "CWE-1427",
	Doc:      "tool names, descriptions and schemas must not hide text (invisible or tag Unicode), address the model (ignore instructions, <IMPORTANT>, keep it from the user, read ~/.ssh or pass secrets), steer it away from other tools, or run past 4096 characters (tool poisoning; spec 2025-11-25 server/tools#security-considerations)",
	Run: func(p *packs.Pass) {
		if len(p.Surface.Tools) == 0 {
			p.NotApplicable("the server lists no tools")
			return
		}
		var names []string
		for _, t := range p.Surface.Tools {
			names = append(names, t.Name)
		}
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
		for _, t := range p.Surface.Tools {
			checkTool(t, names, report)
		}
		if n > maxHygieneFindings {
			p.Notef("%d further findings not shown", n-maxHygieneFindings)
		}
		p.Notef("%d tools checked", len(p.Surface.Tools))
	},
}

type reporter func(sev packs.Severity, format string, args ...any) *packs.Finding

// checkTool reports what is wrong with one tool's metadata, once per kind
// and place.
func checkTool(t packs.Tool, names []string, report reporter) {
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
		for _, other := range names {
			if other == t.Name || len(other) < 3 {
				continue
			}
			if loc := steering(other).FindStringIndex(s.text); loc != nil {
				report(packs.Medium, "%s %s steers the model away from tool %q: %s", who, s.where, other, span(s.text, loc[0], loc[1])).
					Evidencef("tools/list", "%s %s names %q", who, s.where, other)
			}
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
	{"an instruction to keep something from the user", packs.High, regexp.MustCompile(
		`(?i)\b((do\s+not|don'?t|never)\s+(tell|inform|mention|reveal|show|notify|alert|disclose)\b[^.\n]{0,40}\buser|without\s+(telling|informing|notifying|asking|alerting)\s+(the\s+)?user|(the\s+)?user\s+(must|should)\s+not\s+(know|see|be\s+told))`)},
	{"a reference to a credentials file", packs.Medium, regexp.MustCompile(
		`(?i)(~/\.ssh|\.ssh/|\bid_(rsa|ed25519|ecdsa|dsa)\b|~/\.aws|\.aws/credentials|(^|[\s"'(/])\.env\b|\.netrc\b|\.npmrc\b|\.pgpass\b|/etc/shadow|\bmcp\.json\b|\.git-credentials)`)},
	{"a request to pass secrets as arguments", packs.Medium, regexp.MustCompile(
		`(?i)\b(pass|send|include|provide|put|add|insert|append|attach|forward)\b[^.\n]{0,60}\b(api[\s_-]?keys?|secrets?|passwords?|credentials|private[\s_-]?keys?|access[\s_-]?tokens?|auth(entication)?[\s_-]?tokens?|session[\s_-]?tokens?|env(ironment)?\s+variables?)\b[^.\n]{0,60}\b(parameter|argument|field|param)s?\b`)},
}

// steering matches a phrase that sends the model away from the named tool.
func steering(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(instead\s+of|rather\s+than|in\s+place\s+of|before\s+(using|calling|invoking|running)|do\s+not\s+(use|call)|don'?t\s+(use|call)|never\s+(use|call)|replaces?|overrides?|supersedes?)\s+(the\s+)?[` + "`" + `'"]?` +
		regexp.QuoteMeta(name) + `($|[^A-Za-z0-9_.-]|\.($|[^A-Za-z0-9_-]))`)
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
