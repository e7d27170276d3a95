package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRunExplainConfigMasksURLPasswords: sealmark run --explain-config of
// a stdio command holding a DSN prints no part of the password.
func TestRunExplainConfigMasksURLPasswords(t *testing.T) {
	code, out, errOut := sealmark(t, "run", "--explain-config", "--", "psql-mcp", "postgres://app:hunter2-cli-pw@127.0.0.1:5432/app")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `server.args = ["postgres://app:<redacted>@127.0.0.1:5432/app"]`)
	assert.NotContains(t, out+errOut, "hunter2")
}
