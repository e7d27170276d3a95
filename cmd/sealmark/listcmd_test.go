package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
)

func TestList(t *testing.T) {
	code, out, errOut := sealmark(t, "list", "--json")
	require.Equal(t, 0, code, errOut)
	var rows []listed
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	n := 1 // core's drift check
	for _, pk := range engine.All {
		n += len(pk.Probes)
	}
	assert.Len(t, rows, n, "every probe of every pack, and the drift check")
	byName := map[string]listed{}
	for _, r := range rows {
		byName[r.Pack+"/"+r.Name] = r
		assert.NotEmpty(t, r.ID)
		assert.NotEmpty(t, r.Doc, r.ID)
	}
	assert.Equal(t, listed{Pack: "core", ID: "CORE-SECRET-ECHO", Name: "secret-echo", Severity: "critical", CWE: "CWE-200", Doc: byName["core/secret-echo"].Doc}, byName["core/secret-echo"])
	assert.Equal(t, "CORE-DRIFT", byName["core/tool-drift"].ID)

	code, out, _ = sealmark(t, "list", "--packs", "exec")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Regexp(t, `^PACK +ID +NAME +SEVERITY +CWE +RULE$`, lines[0])
	assert.Regexp(t, `^exec +EXEC-INJECT-SEPARATOR +inject-separator +critical +CWE-78 +.+ \(active\)$`, lines[1])
	for _, l := range lines[1:] {
		assert.True(t, strings.HasPrefix(l, "exec "), l)
	}

	code, _, errOut = sealmark(t, "list", "--packs", "exce")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown pack "exce"`)
}
