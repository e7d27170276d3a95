package pin

import (
	"fmt"
	"sort"
	"strings"
)

// Kind is how a tool differs from its lock.
type Kind string

// Kinds of change.
const (
	Added   Kind = "added"   // listed, not in the lock
	Removed Kind = "removed" // in the lock, no longer listed
	Changed Kind = "changed" // in both, with a different description, input schema or annotations
)

// Change is one tool that differs from its lock.
type Change struct {
	Kind Kind
	Tool string
	// Parts are what changed of a changed tool, in this order:
	// "description", "input schema", "annotations".
	Parts []string
	// Diff says how, one line each: the description as a line diff
	// ("- old", "+ new", "  same"), then one line per schema property or
	// annotation that changed, or the old and new digest when no member
	// tells. An added tool's description is all "+", a removed one's "-".
	Diff []string
}

// Summary is the change in one line.
func (c Change) Summary() string {
	switch c.Kind {
	case Added:
		return fmt.Sprintf("tool %q was added since the lock", c.Tool)
	case Removed:
		return fmt.Sprintf("tool %q was removed since the lock", c.Tool)
	}
	parts := c.Parts
	if len(parts) > 1 {
		parts = []string{strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]}
	}
	return fmt.Sprintf("the %s of tool %q changed since the lock", parts[0], c.Tool)
}

// Compare lists how cur differs from old, tool by tool, sorted by tool
// name. Equal locks give none.
func Compare(old, cur Lock) []Change {
	before, after := index(old), index(cur)
	var out []Change
	for name, t := range after {
		o, ok := before[name]
		if !ok {
			out = append(out, Change{Kind: Added, Tool: name, Diff: prefixed("+ ", t.Description)})
			continue
		}
		c := Change{Kind: Changed, Tool: name}
		if o.Description != t.Description {
			c.Parts = append(c.Parts, "description")
			c.Diff = append(c.Diff, LineDiff(o.Description, t.Description)...)
		}
		if o.InputSchema.SHA256 != t.InputSchema.SHA256 {
			c.Parts = append(c.Parts, "input schema")
			c.Diff = append(c.Diff, members("input schema", "property", o.InputSchema, t.InputSchema)...)
		}
		if o.Annotations.SHA256 != t.Annotations.SHA256 {
			c.Parts = append(c.Parts, "annotations")
			c.Diff = append(c.Diff, members("annotations", "annotation", o.Annotations, t.Annotations)...)
		}
		if len(c.Parts) > 0 {
			out = append(out, c)
		}
	}
	for name, o := range before {
		if _, ok := after[name]; !ok {
			out = append(out, Change{Kind: Removed, Tool: name, Diff: prefixed("- ", o.Description)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool < out[j].Tool })
	return out
}

func index(l Lock) map[string]Tool {
	m := map[string]Tool{}
	for _, t := range l.Tools {
		if _, dup := m[t.Name]; !dup {
			m[t.Name] = t
		}
	}
	return m
}

// members says which members of a digest changed: "input schema: property
// "mode" was added", or, when no member tells, the two digests.
func members(what, member string, old, cur Digest) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range []map[string]string{old.Members, cur.Members} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		o, inOld := old.Members[k]
		c, inCur := cur.Members[k]
		switch {
		case !inOld:
			out = append(out, fmt.Sprintf("~ %s: %s %q was added", what, member, k))
		case !inCur:
			out = append(out, fmt.Sprintf("~ %s: %s %q was removed", what, member, k))
		case o != c:
			out = append(out, fmt.Sprintf("~ %s: %s %q changed", what, member, k))
		}
	}
	if len(out) == 0 {
		out = append(out, fmt.Sprintf("~ %s: sha256 %s → %s", what, short(old.SHA256), short(cur.SHA256)))
	}
	return out
}

func short(h string) string {
	if len(h) > memberLen {
		return h[:memberLen] + "…"
	}
	return h
}

// maxLine bounds one line of a diff; longer ones are cut with "…".
const maxLine = 400

// maxCells bounds the line diff's table (old lines × new lines); past it
// the diff is every old line removed and every new line added.
const maxCells = 1 << 20

// LineDiff is a line diff of two texts: "  " before a line both share,
// "- " before a line only old has, "+ " before one only cur has. Runs of
// more than 3 shared lines are shown as their first and last line around
// "  …".
func LineDiff(old, cur string) []string {
	a, b := strings.Split(old, "\n"), strings.Split(cur, "\n")
	var ops []string
	if len(a)*len(b) > maxCells {
		ops = append(prefixed("- ", old), prefixed("+ ", cur)...)
		return ops
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var same []string
	flush := func() {
		if len(same) > 3 {
			same = []string{same[0], "  …", same[len(same)-1]}
		}
		ops = append(ops, same...)
		same = nil
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			same = append(same, "  "+cut(a[i]))
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			flush()
			ops = append(ops, "- "+cut(a[i]))
			i++
		default:
			flush()
			ops = append(ops, "+ "+cut(b[j]))
			j++
		}
	}
	flush()
	return ops
}

// prefixed is every line of s behind prefix.
func prefixed(prefix, s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		out = append(out, prefix+cut(line))
	}
	return out
}

func cut(s string) string {
	if len(s) <= maxLine {
		return s
	}
	i := maxLine
	for i > 0 && s[i]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		i--
	}
	return s[:i] + "…"
}
