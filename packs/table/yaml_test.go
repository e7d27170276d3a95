package table_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// sameTableYAML is sameTableGo written for sealmark.yaml.
const sameTableYAML = `
- name: no-side-effects
  tool: add_note
  args: {title: fixed-title}
  expect:
    - no_file_changes_outside_root
    - file_changes: []
    - no_connection
    - no_program_ran
    - not_ran: sm-canary
    - no_process_outlived
- name: reads-note
  tool: read_note
  args: {name: groceries}
  expect:
    - succeeds
    - contains: remember the milk
    - not_contains: secret
    - matches: '^note \w+: remember'
    - not_matches: (?i)error
    - no_canary
    - within: 4s
  severity: critical
  doc: reading a note by name answers its text
- name: refuses-nameless
  id: USER-NAMELESS
  tool: read_note
  expect: [refused, {contains: missing required argument}]
- name: writes-evil
  tool: list_notes
  args: {tag: fixed-tag, nested: {list: ["{sandbox}", 1]}}
  expect:
    - file_changes: ["{root_evil}/written-by-server.txt"]
  severity: medium
`

func sameTableGo() []table.Row {
	return []table.Row{{
		Name: "no-side-effects",
		Tool: "add_note",
		Args: map[string]any{"title": "fixed-title"},
		Expect: []table.Expect{table.NoFileChangesOutsideRoot(), table.FileChanges(), table.NoConnection(),
			table.NoProgramRan(), table.NotRan("sm-canary"), table.NoProcessOutlived()},
	}, {
		Name: "reads-note",
		Tool: "read_note",
		Args: map[string]any{"name": "groceries"},
		Expect: []table.Expect{table.Succeeds(), table.Contains("remember the milk"), table.NotContains("secret"),
			table.Matches(`^note \w+: remember`), table.NotMatches(`(?i)error`), table.NoCanary(), table.Within(4 * time.Second)},
		Severity: packs.Critical,
		Doc:      "reading a note by name answers its text",
	}, {
		Name:   "refuses-nameless",
		ID:     "USER-NAMELESS",
		Tool:   "read_note",
		Expect: []table.Expect{table.Refused(), table.Contains("missing required argument")},
	}, {
		Name:     "writes-evil",
		Tool:     "list_notes",
		Args:     map[string]any{"tag": "fixed-tag", "nested": map[string]any{"list": []any{"{sandbox}", 1}}},
		Expect:   []table.Expect{table.FileChanges("{root_evil}/written-by-server.txt")},
		Severity: packs.Medium,
	}}
}

func TestYAMLRowsEqualGoRows(t *testing.T) {
	rows, err := table.ParseRows([]byte(sameTableYAML))
	require.NoError(t, err)
	assert.Equal(t, sameTableGo(), rows)
}

// TestYAMLAndGoReportTheSame runs the table written both ways against the
// same twin and compares the report entries as JSON, with the durations,
// the observation times and the server's pids (the only fields that
// differ between two runs) zeroed.
// pidText is a pid in an observation's summary.
var pidText = regexp.MustCompile(`pid \d+`)

func TestYAMLAndGoReportTheSame(t *testing.T) {
	rows, err := table.ParseRows([]byte(sameTableYAML))
	require.NoError(t, err)
	fromYAML, err := table.Pack("mine", rows)
	require.NoError(t, err)
	fromGo, err := table.Pack("mine", sameTableGo())
	require.NoError(t, err)
	entries := func(pk packs.Pack) string {
		rep := runPack(t, pk, nil, "-flaws=write-outside")
		probes := rep.Packs[0].Probes
		for i := range probes {
			probes[i].Millis = 0
			for j := range probes[i].Observations {
				o := &probes[i].Observations[j]
				o.Time = time.Time{}
				o.Summary = pidText.ReplaceAllString(o.Summary, "pid N")
				if _, ok := o.Data["pid"]; ok {
					o.Data["pid"] = "N"
				}
			}
		}
		b, err := json.MarshalIndent(probes, "", "  ")
		require.NoError(t, err)
		return string(b)
	}
	var goJSON, yamlJSON string
	t.Run("go", func(t *testing.T) { t.Parallel(); goJSON = entries(fromGo) })
	t.Run("yaml", func(t *testing.T) { t.Parallel(); yamlJSON = entries(fromYAML) })
	t.Cleanup(func() {
		require.NotEmpty(t, goJSON)
		assert.Equal(t, goJSON, yamlJSON)
		// The comparison means something: the twin broke rows, and
		// the observers attributed what they saw to them.
		var probes []report.Probe
		require.NoError(t, json.Unmarshal([]byte(goJSON), &probes))
		require.Len(t, probes, 4)
		assert.Equal(t, packs.Failed, probes[0].Verdict)
		assert.NotEmpty(t, probes[0].Observations)
		assert.Equal(t, "USER-NAMELESS", probes[2].ID)
		assert.Equal(t, packs.Critical, probes[1].Severity)
		assert.Equal(t, packs.Passed, probes[3].Verdict, "the write the twin makes is the one expected")
	})
}

func TestRowsErrorsNameTheRow(t *testing.T) {
	_, err := table.ParseRows([]byte(`
- name: refuses-dotdot
  tool: read_file
  expects: [refused]
  expect:
    - refused: yes
    - contains: 42
    - sometimes
    - within: soon
    - within: 5
    - file_changes: root/x
    - {contains: a, matches: b}
    - [refused]
  severity: info
- tool: [read_note]
  args: [1, 2]
  expect: refused
  severity: severe
`))
	require.Error(t, err)
	for _, want := range []string{
		`row refuses-dotdot: unknown field "expects" (known: name, id, tool, args, expect, severity, doc)`,
		"row refuses-dotdot: expect[0]: refused takes no value",
		"row refuses-dotdot: expect[1]: contains: want a text, got the number 42 (quote it)",
		`row refuses-dotdot: expect[2]: unknown expectation "sometimes" (known: contains, file_changes, matches, no_canary, `,
		"row refuses-dotdot: expect[3]: within: want a duration such as 5s or 500ms: ",
		"row refuses-dotdot: expect[4]: within: want a duration such as 5s or 500ms, got the number 5",
		`row refuses-dotdot: expect[5]: file_changes: want a list of paths, got the text "root/x"`,
		"row refuses-dotdot: expect[6]: want one key per item (such as contains: text), got 2",
		"row refuses-dotdot: expect[7]: want a key such as refused or a mapping such as contains: text, got a list",
		"row refuses-dotdot: severity: info is not allowed for a row",
		"row 2: tool: want a text, got a list",
		"row 2: args: want a mapping of argument names to values, got a list",
		"row 2: expect: want a list, got the text \"refused\"",
		`row 2: severity: unknown severity "severe"`,
	} {
		assert.Contains(t, err.Error(), want)
	}
	_, err = table.ParseRows([]byte("name: x\n"))
	assert.ErrorContains(t, err, "probes: want a list of rows, each a mapping")
}

// TestSchemaAcceptsWhatRowsAccepts validates YAML tables against Schema.
func TestSchemaAcceptsWhatRowsAccepts(t *testing.T) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(table.Schema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("probes.json", doc))
	sch, err := c.Compile("probes.json")
	require.NoError(t, err)
	valid := func(text string) error {
		var v any
		require.NoError(t, yaml.Unmarshal([]byte(text), &v))
		b, err := json.Marshal(v)
		require.NoError(t, err)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
		require.NoError(t, err)
		return sch.Validate(inst)
	}
	require.NoError(t, valid(sameTableYAML))
	_, err = table.ParseRows([]byte(sameTableYAML))
	require.NoError(t, err, "Rows accepts what the schema accepts")
	for _, bad := range []string{
		"- {name: Bad_Name, tool: t, expect: [refused]}",
		"- {name: a, tool: t, expect: [sometimes]}",
		"- {name: a, tool: t, expect: [{within: soon}]}",
		"- {name: a, tool: t, expect: [refused], severity: info}",
		"- {name: a, tool: t, expect: [refused], extra: 1}",
		"- {name: a, tool: t, expect: [{contains: a, matches: b}]}",
		"- {name: a, expect: [refused]}",
	} {
		assert.Error(t, valid(bad), bad)
		rows, err := table.ParseRows([]byte(bad))
		if err == nil {
			_, err = table.Pack("mine", rows)
		}
		assert.Error(t, err, "Rows or Pack refuses what the schema refuses: %s", bad)
	}
}
