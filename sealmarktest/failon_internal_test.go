package sealmarktest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

// TestConfigFailOn: Config.FailOn is a severity, written as fail_on's
// string form; the zero value leaves the default, and a value that is no
// fail bar fails before anything starts with the error every fail bar
// gives.
func TestConfigFailOn(t *testing.T) {
	res, err := Config{Command: "node", FailOn: packs.Critical}.settings()
	require.NoError(t, err)
	assert.Equal(t, "critical", res.FailOn)
	assert.Equal(t, "Config.FailOn", res.Origins["fail_on"].From)

	res, err = Config{Command: "node"}.settings()
	require.NoError(t, err)
	assert.Equal(t, "high", res.FailOn, "the zero value is the default")

	_, err = Config{Command: "node", FailOn: packs.Severity(9)}.settings()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `fail_on: want low, medium, high or critical, got "severity(9)"`)
}
