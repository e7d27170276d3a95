package fs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/fs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestRealServers runs the fs pack, passive and active, against the
// pinned reference file servers: 0.6.2 has the prefix-only check
// (CVE-2025-53110) and follows links when the target is new or outside
// (CVE-2025-53109); the newest release must pass every probe.
//
// 0.6.2 is installed alone, as npx gives it to a user: npm resolves zod 4,
// which its schema converter cannot render, so 8 of its 9 tools list
// {"$schema": ...} with no properties. The pack reads the roles from the
// names and learns the argument names from the server's zod refusal of a
// call with no arguments. Checked by hand with raw JSON-RPC over stdio
// (server started on DIR/root): read_file {path: DIR/root-evil/evil.txt}
// returned the file; write_file {path: DIR/root-evil/new.txt} created it;
// write_file {path: DIR/root/link-file} overwrote the canary the link
// points to, and read_file on the link returned it.
func TestRealServers(t *testing.T) {
	t.Run("server-filesystem-0.6.2", func(t *testing.T) {
		t.Parallel()
		script := realserver.Filesystem062.CwdArg(t)
		rep := packtest.MustRun(t, config(fs.Pack, "node", script, "{sandbox}"))
		packtest.Expect(t, rep, packtest.Want{
			"FS-READ-PREFIX-SIBLING": {
				`read_file(path="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`,
				`list_directory(path="{sandbox}-evil") listed root-evil/evil.txt`,
				`search_files(path="{sandbox}-evil", pattern=".") listed root-evil/evil.txt`,
			},
			"FS-READ-LINK-FILE": {
				`read_file(path="{sandbox}/link-file") returned the content of canary/secret.txt`,
				`get_file_info(path="{sandbox}/link-file") returned the metadata of canary/secret.txt`,
			},
			"FS-READ-LINK-DIR": {`list_directory(path="{sandbox}/link-dir") listed canary/secret.txt, canary/id_rsa`},
			"FS-WRITE-PREFIX-SIBLING": {
				`write_file(path="{sandbox}-evil/sealmark-`,
				`create_directory(path="{sandbox}-evil/sealmark-`,
				`move_file(source="{sandbox}-evil/evil.txt", destination="{sandbox}/sealmark-`,
			},
			"FS-WRITE-LINK-FILE": {`write_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
		})
	})
	t.Run("server-filesystem-latest", func(t *testing.T) {
		t.Parallel()
		script := realserver.FilesystemLatest.CwdArg(t)
		rep := packtest.MustRun(t, config(fs.Pack, "node", script, "{sandbox}"))
		packtest.Expect(t, rep, nil)
	})
}

// TestRealGitServerIsNoFileServer: github-mcp-server 1.8.7, a local git
// CLI server, has one tool the pack's guess takes (git-remove, "Removes a
// specific file from the staging area", role delete from its name). Its
// control fails — the seeded file inside the root is not deleted — so it
// is left out as no file tool and every probe is not applicable with the
// reason, not inconclusive as before. Checked by hand over stdio:
// tools/call git-remove {file: DIR/root/x, directory: DIR/root} answers an
// error (not a git repository) and DIR/root/x stays.
func TestRealGitServerIsNoFileServer(t *testing.T) {
	t.Parallel()
	script := realserver.GitHubMCP.CwdArg(t)
	rep := packtest.MustRun(t, config(fs.Pack, "node", script))
	packtest.Expect(t, rep, nil)
	require.Len(t, rep.Packs, 1)
	for _, p := range rep.Packs[0].Probes {
		assert.Equal(t, packs.NotApplicable, p.Verdict, "%s: %s", p.ID, p.Reason)
		if strings.HasPrefix(p.ID, "FS-WRITE-") {
			assert.Contains(t, p.Reason, "no tool passed its control (a benign call inside the root), so none is taken for a file tool: git-remove: a delete inside the root did not take effect", p.ID)
		}
	}
}
