package core

import (
	"maps"
	"slices"

	"github.com/sealmark/sealmark/packs"
)

// statementNames are argument names that carry an SQL statement.
var statementNames = []string{"sql", "query", "statement", "stmt", "sqlquery"}

// benignStatement is what the sweep asks a SQL tool to run: it reads and
// changes nothing.
const benignStatement = "SELECT 1"

// sweepFill is what the sweep fills beyond the required arguments: a slow
// tool's duration (quick), and a statement for a string argument named
// like sql, which a server may leave optional in its schema and still need
// (server-postgres 0.6.2 lists {"sql": {"type": "string"}} with no
// required list, and a call without it sends the database nothing to run).
func sweepFill(t packs.Tool) map[string]any {
	fill := maps.Clone(quick(t))
	if fill == nil {
		fill = map[string]any{}
	}
	for _, prop := range packs.Props(t.InputSchema) {
		if prop.Text() && slices.Contains(statementNames, prop.Norm) {
			if _, set := fill[prop.Name]; !set {
				fill[prop.Name] = benignStatement
			}
		}
	}
	return fill
}
