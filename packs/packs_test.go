package packs_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
)

func TestArgumentsFromSchema(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"path":{"type":"string"},
		"count":{"type":"integer","minimum":5},
		"flag":{"type":"boolean"},
		"mode":{"type":"string","enum":["fast","slow"]},
		"depth":{"type":"number","default":3},
		"tags":{"type":"array","items":{"type":"string"},"minItems":2},
		"opts":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]},
		"either":{"anyOf":[{"type":"integer"},{"type":"string"}]},
		"optional":{"type":"string"}
	},"required":["path","count","flag","mode","depth","tags","opts","either"]}`)
	args, err := packs.Arguments(schema, "tok", map[string]any{"extra": "given"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"path": "sealmark-tok", "count": 5.0, "flag": false, "mode": "fast", "depth": 3.0,
		"tags": []any{"sealmark-tok", "sealmark-tok"}, "opts": map[string]any{"x": "sealmark-tok"},
		"either": 1, "extra": "given",
	}, args)
}

func TestArgumentsReportSchemaDefects(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{``, "inputSchema is missing"},
		{`null`, "inputSchema is missing"},
		{`[1]`, "not a JSON object"},
		{`{"properties":{}}`, `type is <nil>, want "object"`},
		{`{"type":"string"}`, `type is string, want "object"`},
	} {
		args, err := packs.Arguments(json.RawMessage(tc.schema), "t", map[string]any{"a": 1})
		require.Error(t, err, tc.schema)
		assert.Contains(t, err.Error(), tc.want)
		assert.Equal(t, map[string]any{"a": 1}, args, "fill still applies")
	}
}

func TestReadOnly(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		name        string
		ro, destroy *bool
		want        bool
	}{
		{"write_file", &yes, nil, true}, // the hint wins over the name
		{"read_file", &no, nil, false},
		{"get_weather", nil, nil, true},
		{"listFiles", nil, nil, true},
		{"search", nil, nil, true},
		{"list_files", nil, &yes, false},
		{"delete_file", nil, nil, false},
		{"getaway_car", nil, nil, false}, // "get" must be a word
		{"run_query", nil, nil, false},
	} {
		tool := packs.Tool{Name: tc.name}
		tool.Annotations.ReadOnlyHint, tool.Annotations.DestructiveHint = tc.ro, tc.destroy
		assert.Equal(t, tc.want, tool.ReadOnly(), tc.name)
	}
}

func TestCheckFindsEveryDefect(t *testing.T) {
	run := func(*packs.Pass) {}
	pk := packs.Pack{Name: "Bad Pack", Probes: []packs.Probe{
		{ID: "X-ONE", Name: "one", Doc: "d", Run: run},
		{ID: "X-ONE", Name: "one", Doc: "d", Run: run},
		{ID: "lower", Name: "Not_Kebab", Run: nil},
	}}
	var msgs []string
	for _, err := range pk.Check() {
		msgs = append(msgs, err.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{`pack "Bad Pack": name is not kebab-case`, "duplicate id X-ONE", "duplicate name one",
		`id "lower" is not of the form`, `name "Not_Kebab" is not kebab-case`, "no doc", "no Run function"} {
		assert.Contains(t, all, want)
	}
}

func TestOutcome(t *testing.T) {
	probe := &packs.Probe{ID: "X-Y", Name: "y", Severity: packs.High, CWE: "CWE-1"}
	p := &packs.Pass{Probe: probe}
	v, _, f, _ := p.Outcome()
	assert.Equal(t, packs.Passed, v, "reporting nothing is a pass")
	assert.Empty(t, f)

	p = &packs.Pass{Probe: probe}
	p.Inconclusive("control failed: %s", "ok.txt unreadable")
	v, reason, _, _ := p.Outcome()
	assert.Equal(t, packs.Inconclusive, v)
	assert.Equal(t, "control failed: ok.txt unreadable", reason)

	p.Reportf("leaked %d", 1).Evidencef("response", "saw %s", "it")
	v, _, f, _ = p.Outcome()
	assert.Equal(t, packs.Failed, v, "a finding outranks inconclusive")
	require.Len(t, f, 1)
	assert.Equal(t, packs.Finding{Severity: packs.High, Message: "leaked 1", CWE: "CWE-1",
		Evidence: []packs.Evidence{{Observer: "response", Detail: "saw it"}}}, f[0])
	assert.Equal(t, "leaked 1\n    evidence: response: saw it", f[0].String())
}

func TestSeverityText(t *testing.T) {
	for _, s := range []packs.Severity{packs.Info, packs.Low, packs.Medium, packs.High, packs.Critical} {
		b, err := s.MarshalText()
		require.NoError(t, err)
		var back packs.Severity
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, s, back)
	}
	_, err := packs.ParseSeverity("severe")
	assert.EqualError(t, err, `unknown severity "severe" (want one of info, low, medium, high, critical)`)
	got, err := packs.ParseSeverity("CRITICAL")
	require.NoError(t, err)
	assert.Equal(t, packs.Critical, got)
}

func TestResponse(t *testing.T) {
	var nilResp *packs.Response
	assert.Equal(t, "no response", nilResp.Brief())
	assert.False(t, nilResp.Refused())
	r := &packs.Response{Error: &packs.RPCError{Code: -32601, Message: "Method not found"}}
	assert.Equal(t, "error -32601 (Method not found)", r.Brief())
	assert.True(t, r.Refused())
	r = &packs.Response{Result: json.RawMessage(`{"isError":true,"content":[]}`)}
	assert.True(t, r.ToolError())
	assert.True(t, r.Refused())
	r = &packs.Response{Result: json.RawMessage(`{"content":[]}`)}
	assert.False(t, r.Refused())
	assert.Equal(t, "a result", r.Brief())
}

// TestLegacyVersionIsTheNewestLegacy: the harness asks a legacy server for
// the newest version of the initialize era, the last of mcpwire.Versions.
func TestLegacyVersionIsTheNewestLegacy(t *testing.T) {
	legacy := packs.KnownVersions[len(packs.KnownVersions)-2]
	if legacy != packs.LegacyVersion || packs.KnownVersions[len(packs.KnownVersions)-1] != packs.ModernVersion {
		t.Errorf("KnownVersions %v: want LegacyVersion %s last of the legacy ones, then %s", packs.KnownVersions, packs.LegacyVersion, packs.ModernVersion)
	}
}

// TestArgumentsNameNoProcess: a required number that names a process (pid,
// processId, target_pid) gets a pid no process has, never 1, which in a
// sandbox is the containment shim: desktop-commander 0.2.52's kill_process
// and force_terminate, called by the sweep with pid 1, ended the server and
// the exit was charged to a later tool. Other numbers keep 1.
func TestArgumentsNameNoProcess(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"pid":{"type":"number"},"processId":{"type":"integer"},"target_pid":{"type":"integer"},
		"count":{"type":"integer"},"pids":{"type":"array"}},
		"required":["pid","processId","target_pid","count"]}`)
	args, err := packs.Arguments(schema, "tok", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pid", "processId", "target_pid"} {
		if args[name] != packs.NoProcess {
			t.Errorf("%s = %v, want %d", name, args[name], packs.NoProcess)
		}
	}
	if args["count"] != 1 {
		t.Errorf("count = %v, want 1", args["count"])
	}
}
