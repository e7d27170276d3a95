package packs_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/sealmark/sealmark/packs"
	"github.com/stretchr/testify/assert"
)

// TestSandboxOutside: the one rule of "outside the root" that the fs, git
// and sqlite packs judge changes by. Root and bin are inside; root-evil,
// canary and the top are outside; home and tmp are the server's own
// unless the path carries the probe's token.
func TestSandboxOutside(t *testing.T) {
	var sb *packs.Sandbox // the rule needs no layout: a nil sandbox answers too
	for path, want := range map[string]bool{
		"":                      false,
		"root":                  false,
		"root/notes/a.txt":      false,
		"bin/sm-echo":           false,
		"home/.cache/x":         false,
		"tmp/server.log":        false,
		"home/tok123-x":         true,
		"tmp/a/tok123.db":       true,
		"root-evil/x":           true,
		"canary/secret.txt":     true,
		"stray.txt":             true,
		"rootish/x":             true,
		"canary/repo/.git/HEAD": true,
	} {
		assert.Equal(t, want, sb.Outside(path, "tok123"), "%q", path)
	}
}

// TestResponseBody: everything a response says, the result or the error's
// message and data, nil for none.
func TestResponseBody(t *testing.T) {
	var none *packs.Response
	assert.Nil(t, none.Body())
	res := &packs.Response{Result: json.RawMessage(`{"content":[]}`)}
	assert.Equal(t, `{"content":[]}`, string(res.Body()))
	res = &packs.Response{Error: &packs.RPCError{Code: -32603, Message: "boom", Data: json.RawMessage(`"at x"`)}}
	assert.Equal(t, "boom\n\"at x\"", string(res.Body()))
}

// TestValidID: probe ids are PACK-RULE in upper case, the one pattern
// Pack.Check and table rows judge by.
func TestValidID(t *testing.T) {
	for _, id := range []string{"CORE-SECRET-ECHO", "USER-A1", "FS-2"} {
		assert.True(t, packs.ValidID(id), id)
	}
	for _, id := range []string{"", "CORE", "core-x", "CORE_X", "-CORE-X", "CORE-", "1CORE-X"} {
		assert.False(t, packs.ValidID(id), id)
	}
}

// TestParseFailOn: the one parser of fail bars (fail_on, SEALMARK_FAIL_ON,
// --fail-on, merge, diff, scan): a severity above info in any case, and
// one error naming the accepted values for anything else.
func TestParseFailOn(t *testing.T) {
	for in, want := range map[string]packs.Severity{"low": packs.Low, "medium": packs.Medium, "HIGH": packs.High, "Critical": packs.Critical} {
		got, err := packs.ParseFailOn(in)
		assert.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"info", "", "severe", "high "} {
		_, err := packs.ParseFailOn(in)
		assert.EqualError(t, err, `want low, medium, high or critical, got "`+in+`"`)
	}
}

// TestReportfPosition: each finding remembers the line of the Reportf that
// recorded it, in the probe or in a helper of its; a finding's fields are
// not touched.
func TestReportfPosition(t *testing.T) {
	p := &packs.Pass{Probe: &packs.Probe{Severity: packs.High}}
	_, _, line, _ := runtime.Caller(0)
	p.Reportf("direct")
	helperLine := reportFor(p, "through a helper")
	assert.Equal(t, map[string]string{
		"direct":           fmt.Sprintf("rules_test.go:%d", line+1),
		"through a helper": fmt.Sprintf("rules_test.go:%d", helperLine),
	}, p.Positions())
	_, _, f, _ := p.Outcome()
	assert.Equal(t, []packs.Finding{{Severity: packs.High, Message: "direct"}, {Severity: packs.High, Message: "through a helper"}}, f)
	assert.Empty(t, (&packs.Pass{}).Positions(), "nothing reported, no position")
}

// reportFor reports msg and returns the line it did so on.
func reportFor(p *packs.Pass, msg string) int {
	_, _, line, _ := runtime.Caller(0)
	p.Reportf("%s", msg)
	return line + 1
}
