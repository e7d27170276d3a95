package table_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

func TestPackDefaults(t *testing.T) {
	pk, err := table.Pack("mine", []table.Row{{
		Name:   "refuses-dotdot",
		Tool:   "read_file",
		Args:   map[string]any{"path": "{sandbox}/../canary/secret.txt", "opts": map[string]any{"json": `{"a":1}`, "re": []any{`\d{2}`}}},
		Expect: []table.Expect{table.Refused(), table.NoCanary(), table.Within(1500 * time.Millisecond)},
	}, {
		Name: "own", ID: "MINE-OWN", Tool: "t", Severity: packs.Low, Doc: "one line",
		Check: func(*packs.Pass, *packs.Response, error) {},
	}})
	require.NoError(t, err)
	assert.Equal(t, "mine", pk.Name)
	assert.Empty(t, pk.Check(), "the pack passes the engine's own definition check")
	require.Len(t, pk.Probes, 2)
	p := pk.Probes[0]
	assert.Equal(t, "USER-REFUSES-DOTDOT", p.ID)
	assert.Equal(t, "refuses-dotdot", p.Name)
	assert.Equal(t, packs.High, p.Severity, "the zero severity means high")
	assert.Equal(t, "read_file: refused, no canary in the response, within 1.5s", p.Doc)
	assert.False(t, p.Active, "a row runs whether or not the run is active")
	assert.Equal(t, "MINE-OWN", pk.Probes[1].ID)
	assert.Equal(t, packs.Low, pk.Probes[1].Severity)
	assert.Equal(t, "one line", pk.Probes[1].Doc)
}

// TestPackFindsEveryDefect checks that Pack reports every problem at once,
// each naming its row.
func TestPackFindsEveryDefect(t *testing.T) {
	_, err := table.Pack("Mine Pack", []table.Row{{
		Name: "refuses-dotdot", Tool: "read_file",
		Args:   map[string]any{"path": "{sandbx}/x", "deep": []any{map[string]any{"p": "{nope}"}}},
		Expect: []table.Expect{table.Refused()},
	}, {
		Name: "refuses-dotdot", Tool: "read_file", Expect: []table.Expect{table.Refused()},
	}, {
		Name: "Not_Kebab", ID: "lower", Tool: " ",
	}, {
		Name: "bad-expect", Tool: "t",
		Expect: []table.Expect{
			{}, table.Contains(""), table.Contains("{sandbox_hom}"), table.Matches("("), table.NotMatches(`{tokn}`),
			table.Within(0), table.NotRan("bin/sm-canary"),
			table.FileChanges("/etc/passwd"), table.FileChanges("root/../x"), table.FileChanges("{cwd}/ok"),
		},
		Severity: packs.Severity(9), Doc: "two\nlines",
	}, {
		Name: "same-id", ID: "USER-REFUSES-DOTDOT", Tool: "t", Expect: []table.Expect{table.Succeeds()},
	}})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`pack "Mine Pack": the name is not kebab-case`,
		"row refuses-dotdot: args: unknown placeholder {sandbx} (known: {canary_dir} {canary_file} {cwd} ",
		"row refuses-dotdot: args: unknown placeholder {nope}",
		"row refuses-dotdot: another row has this name",
		"row refuses-dotdot: another row has the id USER-REFUSES-DOTDOT",
		`row Not_Kebab: the name "Not_Kebab" is not kebab-case`,
		`row Not_Kebab: the id "lower" is not of the form USER-RULE`,
		"row Not_Kebab: no tool",
		"row Not_Kebab: no expectation and no Check: the row could never fail",
		"row bad-expect: an unknown expectation (build one with table.Refused()",
		`row bad-expect: contains "": the text is empty`,
		`row bad-expect: contains "{sandbox_hom}": unknown placeholder {sandbox_hom}`,
		"row bad-expect: matches /(/: error parsing regexp",
		"row bad-expect: does not match /{tokn}/: unknown placeholder {tokn}",
		"row bad-expect: within 0s: want a positive duration",
		`row bad-expect: not_ran "bin/sm-canary": want a program's base name`,
		"row bad-expect: file_changes /etc/passwd: write a path relative to the sandbox top",
		"row bad-expect: file_changes root/../x: write a clean path inside the sandbox",
		"row bad-expect: severity severity(9) is not one of low, medium, high, critical",
		"row bad-expect: doc must be one line",
		"row same-id: another row has the id USER-REFUSES-DOTDOT",
	} {
		assert.Contains(t, msg, want)
	}
	assert.NotContains(t, msg, "{cwd}/ok", "a path starting with a placeholder is accepted")
	assert.Equal(t, 21, strings.Count(msg, "\n")+1, "one line per problem:\n%s", msg)

	_, err = table.Pack("mine", nil)
	assert.EqualError(t, err, "pack mine: no rows")
}

func TestExpectString(t *testing.T) {
	for _, tc := range []struct {
		e    table.Expect
		want string
	}{
		{table.Refused(), "refused"},
		{table.Succeeds(), "succeeds"},
		{table.Contains("milk"), `contains "milk"`},
		{table.NotContains("{sandbox}"), `does not contain "{sandbox}"`},
		{table.Matches(`^a+$`), "matches /^a+$/"},
		{table.NotMatches(`b`), "does not match /b/"},
		{table.NoCanary(), "no canary in the response"},
		{table.NoFileChangesOutsideRoot(), "no file change outside root/"},
		{table.FileChanges(), "no file change"},
		{table.FileChanges("root/a", "{root_evil}/b"), "file changes exactly root/a, {root_evil}/b"},
		{table.NoConnection(), "no connection"},
		{table.NoProgramRan(), "no program ran"},
		{table.NotRan("sm-canary"), "sm-canary did not run"},
		{table.NoProcessOutlived(), "no process outlived the call"},
		{table.Within(5 * time.Second), "within 5s"},
		{table.Expect{}, "an unknown expectation"},
	} {
		assert.Equal(t, tc.want, tc.e.String())
	}
}
