package sealmarktest_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs/table"
	"github.com/sealmark/sealmark/sealmarktest"
)

// userRows are a server's own cases.
var userRows = []table.Row{
	{Name: "reads-a-note", Tool: "read_note", Args: map[string]any{"name": "groceries"}, Expect: []table.Expect{table.Succeeds(), table.Contains("remember the milk")}},
	{Name: "stays-inside-root", Tool: "read_note", Args: map[string]any{"name": "{sandbox}/../canary/secret.txt"}, Expect: []table.Expect{table.NoCanary(), table.NoFileChangesOutsideRoot()}},
}

// TestVictimTable runs only as the child of TestTableRowsAreSubtests.
func TestVictimTable(t *testing.T) {
	flaws, ok := os.LookupEnv("VICTIM_FLAWS")
	if !ok {
		t.Skip("runs only as the child of TestTableRowsAreSubtests")
	}
	cfg := fixtureServer(t, flaws)
	cfg.Packs = []string{"core"}
	cfg.Probes = userRows
	sealmarktest.Server(t, cfg)
}

func TestTableRowsAreSubtests(t *testing.T) {
	out, err, _ := victim(t, "write-outside", "^TestVictimTable$/^mine$/^stays-inside-root$")
	require.Error(t, err, "the write outside root fails the row")
	assert.Contains(t, out, "--- FAIL: TestVictimTable/mine/stays-inside-root")
	assert.Contains(t, out, "USER-STAYS-INSIDE-ROOT high: row stays-inside-root")
	assert.Contains(t, out, "table_test.go (row stays-inside-root): USER-STAYS-INSIDE-ROOT high: row stays-inside-root",
		"a row reports at its file and name")
	assert.NotContains(t, out, "row.go:", "not at the table's own code")
	assert.NotContains(t, out, "TestVictimTable/mine/reads-a-note", "-run selects one row")
	assert.NotContains(t, out, "TestVictimTable/core/", "-run selects one pack")

	out, err, _ = victim(t, "", "^TestVictimTable$/^mine$")
	require.NoError(t, err, out)
	assert.Contains(t, out, "--- PASS: TestVictimTable/mine/reads-a-note")
	assert.Contains(t, out, "--- PASS: TestVictimTable/mine/stays-inside-root")
}

func TestBadRowIsAConfigError(t *testing.T) {
	_, err := table.Pack("mine", []table.Row{{Name: "Bad Name", Tool: "x"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Bad Name")
}
