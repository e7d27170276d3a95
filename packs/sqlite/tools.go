package sqlite

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// Role is what a tool does with the database, as the pack guesses it from
// the tool's name, schema, annotations and description.
type Role string

// The roles.
const (
	// SQL runs the SQL text it is given (query, sql, statement argument).
	SQL Role = "sql"
	// Ident builds SQL from a table or column name it is given
	// (create_table, describe_table).
	Ident Role = "ident"
	// Backup writes the database to a path it is given (backup, export,
	// save, dump).
	Backup Role = "backup"
)

// Tool is a database tool of the server's surface, with its role, the
// argument the pack probes and whether it promises to only read.
type Tool struct {
	Name     string
	Role     Role
	Arg      string // the SQL, name or path argument
	ReadOnly bool   // readOnlyHint, or a name or description that says it only reads
	Creates  bool   // an Ident tool that makes a table (create, add, new in its name)
	Schema   json.RawMessage
	arrays   []string // column-list arguments (string arrays named col...), filled with ["a"]
}

var (
	sqlArg     = regexp.MustCompile(`(?i)^(sql|query|sql_?query|statement|stmt|sql_?statement)$`)
	identArg   = regexp.MustCompile(`(?i)^(table|table_?name|tablename|column|column_?name|view|view_?name)$`)
	pathArg    = regexp.MustCompile(`(?i)^(path|file|file_?path|filename|file_?name|dest|destination|output|output_?path|target|target_?path|backup_?path)$`)
	backupish  = regexp.MustCompile(`(?i)(backup|export|save|dump|vacuum|copy)`)
	readish    = regexp.MustCompile(`(?i)(^|[_.-])(read|select)([_.-]|$)|^(read|select)[A-Z]`)
	readSaid   = regexp.MustCompile(`(?i)read[- ]only|only (run|execute|allow)s? select|select queries only|only select`)
	createish  = regexp.MustCompile(`(?i)(create|add|new)`)
	columnsArg = regexp.MustCompile(`(?i)^col`)
)

// Tools returns the surface's database tools, each with one role.
func Tools(s *packs.Surface) []Tool {
	var out []Tool
	for _, t := range s.Tools {
		props, arrays := stringProps(t.InputSchema)
		tool := Tool{Name: t.Name, Schema: t.InputSchema, arrays: arrays}
		tool.ReadOnly = t.SaysReadOnly()
		switch {
		case t.SQLArg() != "":
			tool.Role, tool.Arg = SQL, t.SQLArg()
		case backupish.MatchString(t.Name) && pick(props, pathArg) != "":
			tool.Role, tool.Arg = Backup, pick(props, pathArg)
		case needsObject(t.InputSchema):
			// A record or condition object cannot be synthesized into a
			// valid call, so a name tool that needs one is left out.
			continue
		case pick(props, identArg) != "":
			tool.Role, tool.Arg = Ident, pick(props, identArg)
			tool.Creates = createish.MatchString(t.Name)
		case strings.Contains(strings.ToLower(t.Name), "table") && pick(props, regexp.MustCompile(`^name$`)) != "":
			tool.Role, tool.Arg = Ident, "name"
			tool.Creates = createish.MatchString(t.Name)
		default:
			continue
		}
		out = append(out, tool)
	}
	return out
}

// pick returns the first property (sorted) matching re, or "".
func pick(props []string, re *regexp.Regexp) string {
	for _, p := range props {
		if re.MatchString(p) {
			return p
		}
	}
	return ""
}

// stringProps returns the names of a schema's string properties and of its
// string-array properties, sorted.
func stringProps(schema json.RawMessage) (strs, arrays []string) {
	for _, p := range packs.Props(schema) {
		switch {
		case slices.Contains(p.Types, "string"):
			strs = append(strs, p.Name)
		case slices.Contains(p.Types, "array") && p.ItemType == "string" && columnsArg.MatchString(p.Name):
			arrays = append(arrays, p.Name)
		}
	}
	return strs, arrays
}

// needsObject reports whether the schema requires an object argument.
func needsObject(schema json.RawMessage) bool {
	return slices.ContainsFunc(packs.Props(schema), func(p packs.Prop) bool {
		return p.Required && slices.Contains(p.Types, "object")
	})
}
