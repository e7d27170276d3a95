package packs

import (
	"regexp"
)

var (
	sqlArgName = regexp.MustCompile(`(?i)^(sql|query|sql_?query|statement|stmt|sql_?statement)$`)
	readName   = regexp.MustCompile(`(?i)(^|[_.-])(read|select)([_.-]|$)|^(read|select)[A-Z]`)
	readSaid   = regexp.MustCompile(`(?i)read[- ]only|only (run|execute|allow)s? select|select queries only|only select`)
)

// SQLArg returns the tool's argument that takes SQL text (a string named
// sql, query, statement, ...), or "" when it has none. The database packs
// (sqlite, db) share it.
func (t Tool) SQLArg() string {
	for _, p := range Props(t.InputSchema) {
		if p.Type == "string" && sqlArgName.MatchString(p.Name) {
			return p.Name
		}
	}
	return ""
}

// SaysReadOnly reports whether a database tool promises to only read: a
// readOnlyHint of true, or no hint, no destructiveHint, and read or select
// in its name (read_query, selectRows) or "read-only" in its description.
// Unlike ReadOnly, a bare "query" in the name promises nothing: it names
// raw SQL tools that write as often as not.
func (t Tool) SaysReadOnly() bool {
	if h := t.Annotations.ReadOnlyHint; h != nil {
		return *h
	}
	if h := t.Annotations.DestructiveHint; h != nil && *h {
		return false
	}
	return readName.MatchString(t.Name) || readSaid.MatchString(t.Description)
}
