package main

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
)

func TestList(t *testing.T) {
	code, out, errOut := sealmark(t, "list", "--json")
	require.Equal(t, 0, code, errOut)
	var rows []listed
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	n := 1 // core's drift check
	for _, pk := range catalogue.All {
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

	code, out, _ = sealmark(t, "list", "--wide", "--packs", "exec")
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

// longest is the number of characters of out's longest line.
func longest(out string) int {
	n := 0
	for l := range strings.Lines(out) {
		n = max(n, utf8.RuneCountInString(strings.TrimSuffix(l, "\n")))
	}
	return n
}

// TestListFitsTheWidth: list's rows are cut to COLUMNS, else to 100
// columns when the output is no terminal; --wide keeps them whole. Where
// every column would leave the rule too little room, the table keeps ID,
// SEVERITY and RULE.
func TestListFitsTheWidth(t *testing.T) {
	t.Setenv("COLUMNS", "")
	code, wide, _ := sealmark(t, "list", "--wide")
	require.Equal(t, 0, code)
	require.Greater(t, longest(wide), 200, "the catalog has rules longer than a screen's width")

	_, out, _ := sealmark(t, "list")
	assert.Equal(t, defaultListWidth, longest(out), "cut to 100 columns without a terminal")
	assert.Regexp(t, `^ID +SEVERITY +RULE\n`, out, "100 columns leave the rule too little room beside every column")
	assert.Equal(t, strings.Count(wide, "\n"), strings.Count(out, "\n"), "one row per probe either way")
	assert.Contains(t, out, "…\n", "a cut row ends in …")

	t.Setenv("COLUMNS", "72")
	_, out, _ = sealmark(t, "list")
	assert.Equal(t, 72, longest(out))
	assert.Regexp(t, `(?m)^CORE-SECRET-ECHO +critical +\S{3}`, out, "the rule keeps some room at 72 columns")

	t.Setenv("COLUMNS", "200")
	_, out, _ = sealmark(t, "list")
	assert.LessOrEqual(t, longest(out), 200)
	assert.Regexp(t, `(?m)^core +CORE-SECRET-ECHO +secret-echo +critical +CWE-200 +.{40}`, out, "every column when the rule keeps room")
	for l := range strings.Lines(out) {
		if w := strings.TrimSuffix(l, "\n"); !strings.HasSuffix(w, "…") {
			assert.Contains(t, wide, w+"\n", "a row that fits is whole")
		}
	}

	assert.Equal(t, "ab…", cut("abcdef", 3))
	assert.Equal(t, "abc", cut("abc", 3))
	assert.Equal(t, "a…", cut("a    bcdef", 3), "no spaces before the …")
	assert.Equal(t, "abcdef", cut("abcdef", 0))
}

// TestListOneProbe: list PROBE shows one probe's every field, found by its
// id (any case), pack/name or name; an unknown one is a usage error naming
// the nearest.
func TestListOneProbe(t *testing.T) {
	code, out, errOut := sealmark(t, "list", "CORE-SECRET-ECHO")
	require.Equal(t, 0, code, errOut)
	var doc string
	for _, p := range catalogue.All[0].Probes {
		if p.ID == "CORE-SECRET-ECHO" {
			doc = p.Doc
		}
	}
	require.NotEmpty(t, doc)
	for _, want := range []string{
		"id:       CORE-SECRET-ECHO\n",
		"name:     secret-echo\n",
		"pack:     core (",
		"severity: critical\n",
		"cwe:      CWE-200\n",
		"active:   no: runs in every run\n",
		"requires: nothing: applies to any server\n",
		"rule:     " + doc + "\n",
		"select:   --probes core/secret-echo (or CORE-SECRET-ECHO)",
	} {
		assert.Contains(t, out, want)
	}
	for _, name := range []string{"core/secret-echo", "secret-echo", "core-secret-echo"} {
		_, same, _ := sealmark(t, "list", name)
		assert.Equal(t, out, same, name)
	}

	_, out, _ = sealmark(t, "list", "CORE-HTTP-CORS")
	assert.Contains(t, out, "requires: an HTTP transport (not applicable to any other server)\n")

	code, out, _ = sealmark(t, "list", "--json", "core/secret-echo")
	require.Equal(t, 0, code)
	var one listed
	require.NoError(t, json.Unmarshal([]byte(out), &one))
	assert.Equal(t, listed{Pack: "core", ID: "CORE-SECRET-ECHO", Name: "secret-echo", Severity: "critical", CWE: "CWE-200", Doc: doc}, one)

	code, _, errOut = sealmark(t, "list", "CORE-SECRET-ECHOO")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `sealmark list: no probe "CORE-SECRET-ECHOO" (did you mean CORE-SECRET-ECHO?)`)
	code, _, errOut = sealmark(t, "list", "a", "b")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want at most one probe, got 2: a b")
}
