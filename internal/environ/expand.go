package environ

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Placeholder matches {name} with a name of lowercase letters and
// underscores: the one form of placeholder in server.args, server.env and a
// table row. Other text in braces ({"a":1}, "{ }", "{A}", a regexp
// repetition such as \d{2}) does not match and is left as written.
var Placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// Expand replaces each placeholder {name} in s (name made of a-z and _) with
// vars[name]. A placeholder that vars does not define is an error naming it
// and listing the defined ones; it does not quote s, which may hold a
// secret, so the caller names where s came from. Other text in braces, such as JSON ({"a":1}),
// "{ }" or "{A}", is left as written, and replaced values are not expanded
// again.
func Expand(s string, vars map[string]string) (string, error) {
	var unknown string
	out := Placeholder.ReplaceAllStringFunc(s, func(m string) string {
		v, ok := vars[m[1:len(m)-1]]
		if !ok {
			if unknown == "" {
				unknown = m
			}
			return m
		}
		return v
	})
	if unknown != "" {
		return s, fmt.Errorf("unknown placeholder %s (%s)", unknown, knownList(vars))
	}
	return out, nil
}

// knownList describes the placeholders vars defines, sorted.
func knownList(vars map[string]string) string {
	if len(vars) == 0 {
		return "no placeholders are defined here"
	}
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	return "known: {" + strings.Join(names, "}, {") + "}"
}

// StartsWithPlaceholder reports whether s begins with a placeholder
// ({sandbox}/x).
func StartsWithPlaceholder(s string) bool {
	loc := Placeholder.FindStringIndex(s)
	return loc != nil && loc[0] == 0
}
