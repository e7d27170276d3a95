// Package startvalue recognises values a server computes when it starts
// (a time or date, an epoch near now, a uuid, a hex nonce, a random id),
// which differ from start to start without the server having changed:
//
//	startvalue.Kind("2026-12-04", time.Now())                  // "a time or date"
//	startvalue.Kind("read_file", time.Now())                   // ""
//	startvalue.Text("since 2026-11-04 (default)", time.Now())  // "since <a time or date> (default)"
//
// The drift check compares two starts' tool lists with Kind; the tool lock
// (sealmark pin) writes such values as their kind with Text and JSON, so a
// lock holds from run to run.
package startvalue

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
)

var (
	uuidRe  = regexp.MustCompile(`^(?i)(urn:uuid:)?\{?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\}?$`)
	hexRe   = regexp.MustCompile(`^(?i)(0x)?[0-9a-f]{16,}$`)
	tokenRe = regexp.MustCompile(`^[A-Za-z0-9_-]{16,}$`)
	digitRe = regexp.MustCompile(`[0-9]`)
	upperRe = regexp.MustCompile(`[A-Z]`)
	lowerRe = regexp.MustCompile(`[a-z]`)
)

// timeLayouts are the ways a time or date computed at start is written.
var timeLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02", "2006/01/02", "15:04:05.999999999", "15:04",
	time.RFC1123, time.RFC1123Z, time.RFC850, time.ANSIC, time.UnixDate, time.RubyDate,
	"Mon Jan 02 2006 15:04:05 GMT-0700", "Mon Jan 02 2006", "January 2, 2006", "Jan 2, 2006", "2 January 2006",
}

// Kind tells what kind of value computed at start s is — "a time or
// date", "an epoch time", "a uuid", "a hex nonce", "a random id" — or ""
// when it looks like a constant. A random id is 16 or more letters, digits,
// _ and - mixing digits with letters of both cases, or of one case and at
// least 4 digits (nanoid, ULID, base64url); a word or a name does not.
func Kind(s string, now time.Time) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return ""
	}
	for _, l := range timeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return "a time or date"
		}
	}
	// Node's Date.toString(): "Fri Dec 04 2026 15:20:00 GMT+0000 (Coordinated Universal Time)".
	if i := strings.Index(s, " ("); i > 0 {
		if _, err := time.Parse("Mon Jan 02 2006 15:04:05 GMT-0700", s[:i]); err == nil {
			return "a time or date"
		}
	}
	switch {
	case EpochNear(s, now):
		return "an epoch time"
	case uuidRe.MatchString(s):
		return "a uuid"
	case hexRe.MatchString(s) && digitRe.MatchString(s):
		return "a hex nonce"
	case tokenRe.MatchString(s) && digitRe.MatchString(s) &&
		(upperRe.MatchString(s) && lowerRe.MatchString(s) || len(digitRe.FindAllString(s, -1)) >= 4):
		return "a random id"
	}
	return ""
}

// EpochNear reports whether s is a number of seconds, milliseconds,
// microseconds or nanoseconds since 1970 within a year of now.
func EpochNear(s string, now time.Time) bool {
	var f float64
	if _, err := fmt.Sscan(s, &f); err != nil || strings.ContainsAny(s, " \t") || f <= 0 || math.IsInf(f, 0) {
		return false
	}
	year := 366 * 24 * time.Hour
	for _, unit := range []float64{1, 1e3, 1e6, 1e9} {
		t := time.Unix(0, int64(f/unit*1e9))
		if f/unit < 1<<33 && t.After(now.Add(-year)) && t.Before(now.Add(year)) {
			return true
		}
	}
	return false
}

// wordTrim is what surrounds a value in a text: quotes, brackets and
// punctuation.
const wordTrim = "\"'`()[]{}<>,;:.!?"

// TrimWord splits a word of a text into what leads, the value, and what
// trails.
func TrimWord(w string) (lead, core, trail string) {
	core = strings.TrimLeft(w, wordTrim)
	lead = w[:len(w)-len(core)]
	v := strings.TrimRight(core, wordTrim)
	return lead, v, core[len(v):]
}

// FixedKeys are the schema members whose values are the definition itself:
// a change of a type, a required list or an enum is a change whatever the
// values look like.
var FixedKeys = []string{"type", "required", "enum", "const"}

// Text is s with each value computed at start written as its kind in angle
// brackets: the whole of s when it is one, else each word that is one
// (what surrounds the word kept). Words are split on white space, which is
// kept as it was.
func Text(s string, now time.Time) string {
	if k := Kind(s, now); k != "" {
		return "<" + k + ">"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		if j > i {
			lead, v, trail := TrimWord(s[i:j])
			if k := Kind(v, now); k != "" {
				b.WriteString(lead + "<" + k + ">" + trail)
			} else {
				b.WriteString(s[i:j])
			}
		}
		for i = j; i < len(s) && isSpace(s[i]); i++ {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// JSON is a decoded JSON value (numbers as json.Number) with every string
// and number computed at start written as its kind (see Text), but for the
// values of FixedKeys, which are kept as they are.
func JSON(v any, now time.Time) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, m := range x {
			if slices.Contains(FixedKeys, k) {
				out[k] = m
				continue
			}
			out[k] = JSON(m, now)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = JSON(x[i], now)
		}
		return out
	case string:
		return Text(x, now)
	case json.Number:
		if EpochNear(string(x), now) {
			return "<an epoch time>"
		}
	}
	return v
}
