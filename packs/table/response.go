package table

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// maxExcerpt bounds the text of a response quoted in evidence.
const maxExcerpt = 160

// judgeResponse judges every expectation that reads the answer. When there
// is none, one finding says so and lists what could not be judged.
func (c *call) judgeResponse() {
	var unjudged []string
	var within *Expect
	for i, e := range c.row.Expect {
		if kinds[e.kind].source != fromResponse {
			continue
		}
		if e.kind == kindWithin {
			if within == nil {
				within = &c.row.Expect[i]
			}
			continue
		}
		if c.err != nil {
			unjudged = append(unjudged, e.String())
			continue
		}
		c.judgeAnswer(e)
	}
	if c.err == nil {
		if within != nil && c.elapsed > within.d {
			c.failf("%s answered after %s, want within %s", c.row.Tool, c.elapsed.Round(time.Millisecond), within.d).
				Evidencef("response", "tools/call %s answered after %s", c.row.Tool, c.elapsed.Round(time.Millisecond))
		}
		return
	}
	var f *packs.Finding
	switch {
	case within != nil && noAnswer(c.err):
		f = c.failf("%s did not answer within %s", c.row.Tool, c.timeout)
	case len(unjudged) == 0 && within == nil:
		return // nothing reads the answer; the observed expectations still judge
	default:
		if within != nil {
			unjudged = append(unjudged, within.String())
		}
		f = c.failf("%s gave no answer (%v), want: %s", c.row.Tool, c.err, strings.Join(unjudged, ", "))
		unjudged = nil
	}
	f.Evidencef("session", "%v", c.err)
	if len(unjudged) > 0 {
		f.Evidencef("session", "not judged without an answer: %s", strings.Join(unjudged, ", "))
	}
}

// judgeAnswer judges one expectation on the answer the call got.
func (c *call) judgeAnswer(e Expect) {
	res, tool := c.res, c.row.Tool
	switch e.kind {
	case kindRefused:
		if !res.Refused() {
			c.failf("%s answered a result, want a refusal (protocol error or isError)", tool).
				Evidencef("response", "tools/call %s answered %s", tool, quoteStart(responseText(res)))
		}
	case kindSucceeds:
		switch {
		case res.Error != nil:
			c.failf("%s was refused (%s), want a result without isError", tool, res.Brief()).
				Evidencef("response", "tools/call %s answered %s", tool, res.Brief())
		case res.ToolError():
			text := responseText(res)
			c.failf("%s was refused (isError: %s), want a result without isError", tool, cut(text, 80)).
				Evidencef("response", "tools/call %s answered isError with %s", tool, quoteStart(text))
		}
	case kindContains, kindNotContains:
		want, ok := c.expand(e, e.text, nil)
		if !ok {
			return
		}
		text := responseText(res)
		i := strings.Index(text, want)
		if e.kind == kindContains && i < 0 {
			c.failf("the response of %s does not contain %q", tool, e.text).
				Evidencef("response", "tools/call %s answered %s", tool, quoteStart(text))
		}
		if e.kind == kindNotContains && i >= 0 {
			c.failf("the response of %s contains %q", tool, e.text).
				Evidencef("response", "tools/call %s answered %s", tool, quoteAround(text, i, len(want)))
		}
	case kindMatches, kindNotMatches:
		expr, ok := c.expand(e, e.text, regexp.QuoteMeta)
		if !ok {
			return
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			c.failf("%s: cannot be checked: the expanded expression does not compile: %v", e, err)
			return
		}
		text := responseText(res)
		loc := re.FindStringIndex(text)
		if e.kind == kindMatches && loc == nil {
			c.failf("the response of %s does not match /%s/", tool, e.text).
				Evidencef("response", "tools/call %s answered %s", tool, quoteStart(text))
		}
		if e.kind == kindNotMatches && loc != nil {
			c.failf("the response of %s matches /%s/: %q", tool, e.text, cut(text[loc[0]:loc[1]], 80)).
				Evidencef("response", "tools/call %s answered %s", tool, quoteAround(text, loc[0], loc[1]-loc[0]))
		}
	case kindNoCanary:
		c.noCanary()
	}
}

// expand expands one text of e, or fails the row when a placeholder has no
// value on this run.
func (c *call) expand(e Expect, s string, quote func(string) string) (string, bool) {
	c.x.missing = ""
	out := c.x.text(s, quote)
	if c.x.missing != "" {
		c.failf("%s: cannot be checked on this run: %s", e, missingValue(c.x.missing))
		return "", false
	}
	return out, true
}

// noCanary looks for every canary value in the raw answer and its text.
func (c *call) noCanary() {
	p, res, tool := c.p, c.res, c.row.Tool
	secrets := append([]packs.Secret(nil), p.Canaries...)
	if p.Sandbox != nil {
		secrets = append(secrets, p.Sandbox.Files...)
	}
	if len(secrets) == 0 {
		c.failf("%s: cannot be checked on this run: no canary was planted (no canary variable on this start, no sandbox)", NoCanary())
		return
	}
	if len(p.Canaries) == 0 {
		p.Notef("row %s: this start has no canary variables (only the run's first start does): checked the canary files only", c.row.Name)
	}
	raw := string(res.Body())
	where := "result"
	if res.Error != nil {
		where = "error"
	}
	text := responseText(res)
	for _, s := range secrets {
		if s.Value == "" || (!strings.Contains(raw, s.Value) && !strings.Contains(text, s.Value)) {
			continue
		}
		c.failf("the response of %s holds the value of %s", tool, s.Name).
			Evidencef("response", "the %s of tools/call %s holds the value of %s", where, tool, s.Name)
	}
}

// responseText is what Contains and Matches read: the text of a result's
// content items (text and embedded resources, one per line) and its
// structuredContent as JSON; or a protocol error's message and data. A
// result of another shape is read as its raw JSON.
func responseText(res *packs.Response) string {
	if res == nil {
		return ""
	}
	if res.Error != nil {
		text := res.Error.Message
		if len(res.Error.Data) > 0 {
			var s string
			if json.Unmarshal(res.Error.Data, &s) == nil {
				text += "\n" + s
			} else {
				text += "\n" + string(res.Error.Data)
			}
		}
		return text
	}
	var r struct {
		Content []struct {
			Text     *string `json:"text"`
			Resource *struct {
				Text *string `json:"text"`
			} `json:"resource"`
		} `json:"content"`
		Structured json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(res.Result, &r) != nil || (r.Content == nil && r.Structured == nil) {
		return string(res.Result)
	}
	var parts []string
	for _, item := range r.Content {
		if item.Text != nil {
			parts = append(parts, *item.Text)
		}
		if item.Resource != nil && item.Resource.Text != nil {
			parts = append(parts, *item.Resource.Text)
		}
	}
	if len(r.Structured) > 0 && string(r.Structured) != "null" {
		parts = append(parts, string(r.Structured))
	}
	return strings.Join(parts, "\n")
}

// cut shortens s to about n bytes on a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// quoteStart quotes the start of a response text for evidence.
func quoteStart(text string) string {
	if text == "" {
		return "an empty text"
	}
	return fmt.Sprintf("%q", cut(text, maxExcerpt))
}

// quoteAround quotes the part of text around [i, i+n) for evidence.
func quoteAround(text string, i, n int) string {
	from := max(i-maxExcerpt/4, 0)
	for from > 0 && !utf8Start(text[from]) {
		from--
	}
	out := cut(text[from:], max(n+maxExcerpt/2, maxExcerpt))
	if from > 0 {
		out = "…" + out
	}
	return fmt.Sprintf("%q", out)
}
