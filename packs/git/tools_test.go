package git_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/git"
)

// TestManyModeShapes pins how the git pack reads the tool list of a real
// server (@cyanheads/git-mcp-server 2.15.3, as recorded in core's corpus):
// one tool per git command with a mode argument, the repository in
// "path". git_worktree's worktree is its worktreePath, not its path (the
// repository); git_remote, with an add mode, adds remotes;
// git_set_working_dir's initializeIfNotPresent is the flag that runs git
// init; git_fetch takes the remote's name in remote.
func TestManyModeShapes(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "core", "testdata", "toollists", "cyanheads__git-mcp-server@2.15.3.json"))
	require.NoError(t, err)
	var l struct {
		Tools []packs.Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(b, &l))
	got := map[string]git.Tool{}
	for _, tl := range git.Tools(&packs.Surface{Tools: l.Tools}) {
		tl.Schema = nil
		got[tl.Name] = tl
	}
	wt := got["git_worktree"]
	assert.Equal(t, git.Worktree, wt.Op)
	assert.Equal(t, "worktreePath", wt.Dest, "the worktree goes where worktreePath says")
	assert.Equal(t, "path", wt.Repo, "path is the repository")
	assert.Equal(t, "mode", wt.Mode)
	assert.Contains(t, wt.Modes, "add")
	rm := got["git_remote"]
	assert.Equal(t, git.Remote, rm.Op, "a remote tool with an add mode adds remotes")
	assert.Equal(t, "url", rm.URL)
	assert.Equal(t, "path", rm.Repo)
	assert.Contains(t, rm.Refs, "name")
	wd := got["git_set_working_dir"]
	assert.Equal(t, git.Workdir, wd.Op)
	assert.Equal(t, "path", wd.Dest)
	assert.Equal(t, "initializeIfNotPresent", wd.InitFlag)
	f := got["git_fetch"]
	assert.Equal(t, git.Write, f.Op)
	assert.Contains(t, f.Refs, "remote")
	assert.Empty(t, f.InitFlag)
	// A mode that is not an operation the probes know leaves the tool as
	// it was: git_stash is a write tool.
	assert.Equal(t, git.Write, got["git_stash"].Op)
	assert.Equal(t, "mode", got["git_stash"].Mode)
}

// TestInitFlag tells a flag that initializes a missing repository from
// other booleans: submodule update's bare init is not one.
func TestInitFlag(t *testing.T) {
	for flag, want := range map[string]bool{
		"initializeIfNotPresent": true, "init_if_missing": true, "initRepo": true, "createIfMissing": true,
		"init": false, "initialize": false, "recursive": false, "createBranch": false,
	} {
		s := &packs.Surface{Tools: []packs.Tool{{Name: "git_set_working_dir",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"` + flag + `":{"type":"boolean"}}}`)}}}
		tools := git.Tools(s)
		require.Len(t, tools, 1)
		if want {
			assert.Equal(t, flag, tools[0].InitFlag)
		} else {
			assert.Empty(t, tools[0].InitFlag, flag)
		}
	}
}
