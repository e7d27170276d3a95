package config

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

const schemaPath = "../../docs/sealmark.schema.json"

// compileSchema compiles docs/sealmark.schema.json.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schemaPath)
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("sealmark.schema.json", doc))
	sch, err := c.Compile("sealmark.schema.json")
	require.NoError(t, err)
	return sch
}

// asJSON converts a YAML document to the JSON value the schema validates.
func asJSON(t *testing.T, text string) (any, bool) {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return nil, false // not YAML (or duplicate keys): nothing for the schema to see
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	return inst, true
}

func TestSchemaAcceptsEveryGoodExample(t *testing.T) {
	sch := compileSchema(t)
	examples := map[string]string{"explain": explainFile, "layers": layersFile}
	for _, tc := range goodFiles {
		examples["good/"+tc.name] = tc.yaml
	}
	for name, text := range examples {
		inst, ok := asJSON(t, text)
		require.True(t, ok, "%s: not YAML", name)
		assert.NoError(t, sch.Validate(inst), "%s", name)
	}
}

func TestSchemaRefusesTheBadExamplesItCanExpress(t *testing.T) {
	sch := compileSchema(t)
	for _, tc := range badFiles {
		if !tc.schema {
			continue
		}
		inst, ok := asJSON(t, tc.yaml)
		require.True(t, ok, "%s: not YAML", tc.name)
		assert.Error(t, sch.Validate(inst), "%s: the schema accepts it, Parse does not", tc.name)
	}
}

// schemaNode is the part of a JSON Schema the key-set test reads.
type schemaNode struct {
	Description string                 `json:"description"`
	Properties  map[string]*schemaNode `json:"properties"`
	Additional  json.RawMessage        `json:"additionalProperties"`
}

func TestSchemaKeysEqualTheKeysParseAccepts(t *testing.T) {
	data, err := os.ReadFile(schemaPath)
	require.NoError(t, err)
	var root schemaNode
	require.NoError(t, json.Unmarshal(data, &root))
	require.NotEmpty(t, root.Description, "the schema's own description")

	var schemaKeys, schemaSections []string
	var walk func(prefix string, n *schemaNode)
	walk = func(prefix string, n *schemaNode) {
		assert.Equal(t, "false", string(n.Additional), "%s: want additionalProperties: false", orTop(prefix))
		for name, child := range n.Properties {
			key := join(prefix, name)
			assert.NotEmpty(t, child.Description, "%s: no description", key)
			if child.Properties != nil {
				schemaSections = append(schemaSections, key)
				walk(key, child)
				continue
			}
			schemaKeys = append(schemaKeys, key)
		}
	}
	walk("", &root)

	var parseKeys, parseSections []string
	for key := range fileKeys {
		parseKeys = append(parseKeys, key)
	}
	for sec := range sections {
		parseSections = append(parseSections, sec)
	}
	sort.Strings(schemaKeys)
	sort.Strings(schemaSections)
	sort.Strings(parseKeys)
	sort.Strings(parseSections)
	assert.Equal(t, parseKeys, schemaKeys, "keys: the schema and Parse drifted apart")
	assert.Equal(t, parseSections, schemaSections, "sections: the schema and Parse drifted apart")
	assert.True(t, slices.Contains(schemaKeys, "server.command"), "the walk found the keys")
}

// TestParseAcceptsEveryKeyTheSchemaLists guards the other direction at the
// level of values: a file setting every schema key parses.
func TestParseAcceptsEveryKeyTheSchemaLists(t *testing.T) {
	_, lines, err := Parse("sealmark.yaml", []byte(fullFile))
	require.NoError(t, err)
	for key := range fileKeys {
		assert.Contains(t, lines, key, "fullFile does not set %s", key)
	}
}
