package fs_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/fsserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/fs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestSchemaless proves the pack reads a tool list whose schemas name no
// arguments, as server-filesystem 0.6.2 lists them when npm resolves zod
// 4: roles from the names, argument names from the server's refusal of a
// call with no arguments (zod's issue list, pydantic's "Field required"),
// the escapes found as with full schemas; a refusal that names nothing
// leaves the probes inconclusive with the reason, never not applicable; a
// tool with no name a guess takes is testable with a hint.
func TestSchemaless(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the schemaless servers' runs, learning their arguments from errors")
	}
	t.Parallel()
	self := packtest.Self(t)
	cases := []schemalessCase{
		{"zod-prefix-check", fs.Pack, []string{"-surface=schemaless-zod", "-flaws=prefix-check"}, func(t *testing.T, rep *report.Report) {
			packtest.Expect(t, rep, packtest.Want{
				"FS-READ-PREFIX-SIBLING": {
					`read_file(path="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`,
					`read_multiple_files(paths=["{sandbox}-evil/evil.txt"]) returned the content of root-evil/evil.txt`,
					`list_directory(path="{sandbox}-evil") listed root-evil/evil.txt`,
					`search_files(path="{sandbox}-evil", pattern="**") listed root-evil/evil.txt`,
				},
				"FS-WRITE-PREFIX-SIBLING": {
					`write_file(path="{sandbox}-evil/sealmark-`,
					`create_directory(path="{sandbox}-evil/sealmark-`,
					`move_file(source="{sandbox}-evil/evil.txt", destination="{sandbox}/sealmark-`,
				},
			})
			read := probe(t, rep, "FS-READ-TRAVERSAL")
			assert.Contains(t, read.Notes, "read_file: role read from its name; arguments path learned from the server's refusal of a call with no arguments")
			assert.Contains(t, read.Notes, "search_files: role search from its name; arguments path, pattern learned from the server's refusal of a call with no arguments")
			// edit_file's edits array has no item schema to learn: its
			// control cannot tell old from new, so it is left out and the
			// other write tools' probes count.
			write := probe(t, rep, "FS-WRITE-TRAVERSAL")
			assert.True(t, slices.ContainsFunc(write.Notes, func(n string) bool {
				return strings.Contains(n, "left out, the other tools were probed: control failed: edit_file: cannot tell which arguments carry the old and the new text")
			}), "notes %q", write.Notes)
		}},
		{"pydantic-follow-links", fs.Pack, []string{"-surface=schemaless-pydantic", "-flaws=follow-links"}, func(t *testing.T, rep *report.Report) {
			packtest.Expect(t, rep, packtest.Want{
				"FS-READ-LINK-FILE": {
					`read_file(path="{sandbox}/link-file") returned the content of canary/secret.txt`,
					`get_file_info(path="{sandbox}/link-file") returned the metadata of canary/secret.txt`,
				},
				"FS-READ-LINK-DIR":   {`read_file(path="{sandbox}/link-dir/secret.txt") returned the content of canary/secret.txt`},
				"FS-WRITE-LINK-FILE": {`write_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
				"FS-WRITE-LINK-DIR":  {`create_directory(path="{sandbox}/link-dir/sealmark-`},
			})
		}},
		{"zod-confined", fs.Pack, []string{"-surface=schemaless-zod"}, func(t *testing.T, rep *report.Report) {
			packtest.Expect(t, rep, nil)
			assert.Equal(t, packs.Passed, probe(t, rep, "FS-READ-PREFIX-SIBLING").Verdict)
		}},
		{"opaque", fs.Pack, []string{"-surface=schemaless-opaque", "-flaws=prefix-check"}, func(t *testing.T, rep *report.Report) {
			for _, p := range rep.Packs[0].Probes {
				if p.ID == "FS-LINK-CREATE" || p.ID == "FS-READ-FILE-URI" && p.Verdict == packs.NotApplicable {
					continue
				}
				assert.Equal(t, packs.Inconclusive, p.Verdict, "%s: %s", p.ID, p.Reason)
				assert.Empty(t, p.Findings, p.ID)
			}
			r := probe(t, rep, "FS-READ-PREFIX-SIBLING")
			assert.Equal(t, packs.Critical, r.Severity)
			assert.Contains(t, r.Reason, "not probed: read_file: its input schema lists no arguments and its refusal of a call with no arguments names none (Error: invalid input), so its path argument is unknown (role read from its name); a hint (hints.fs.read_file) makes it testable")
		}},
		{"renamed-unhinted", fs.Pack, []string{"-surface=renamed", "-flaws=prefix-check"}, func(t *testing.T, rep *report.Report) {
			require.Len(t, rep.Packs, 1)
			assert.Empty(t, rep.Packs[0].Probes)
			require.Len(t, rep.NotCovered, 1)
			assert.Contains(t, rep.NotCovered[0].Reason, "not applicable: no tool takes a path")
		}},
		{"renamed-hinted", fs.Hinted(fs.Hint{Tool: "peek", Role: fs.Read, Path: "ref"}), []string{"-surface=renamed", "-flaws=prefix-check"}, func(t *testing.T, rep *report.Report) {
			packtest.Expect(t, rep, packtest.Want{
				"FS-READ-PREFIX-SIBLING": {`peek(ref="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`},
			})
		}},
	}
	packtest.RunAll(t, cases, func(c schemalessCase) engine.Config {
		return config(c.pack, self, slices.Concat([]string{fsserver.Verb}, c.args, []string{"{sandbox}"})...)
	}, func(t *testing.T, c schemalessCase, r packtest.Result) {
		require.Len(t, r.Report.Packs, 1)
		c.check(t, r.Report)
	})
}

type schemalessCase struct {
	name  string
	pack  packs.Pack
	args  []string
	check func(t *testing.T, rep *report.Report)
}

func (c schemalessCase) TestName() string {
	return c.name
}

// probe returns the report's probe with the id.
func probe(t *testing.T, rep *report.Report, id string) report.Probe {
	t.Helper()
	for _, p := range rep.Packs[0].Probes {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no probe %s in the report", id)
	return report.Probe{}
}
