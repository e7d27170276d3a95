package table_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs/table"
)

// TestRowPosition: a row's probe shows what it reports at the row's file
// and name, at its name alone when it names no file; never at the
// table's own code.
func TestRowPosition(t *testing.T) {
	pk, err := table.Pack("mine", []table.Row{
		{Name: "in-a-file", Tool: "t", Expect: []table.Expect{table.Succeeds()}, Source: "server_test.go"},
		{Name: "no-file", Tool: "t", Expect: []table.Expect{table.Succeeds()}},
	})
	require.NoError(t, err)
	assert.Equal(t, "server_test.go (row in-a-file)", pk.Probes[0].Source)
	assert.Equal(t, "row no-file", pk.Probes[1].Source)
}
