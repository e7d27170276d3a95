package git_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/git"
)

// TestManyModeShapes pins how the git pack reads the tool shapes of a real
// server (@cyanheads/git-mcp-server 2.15.3): one tool per command with a
// mode argument, the repository in "path". git_worktree's worktree is its
// worktreePath, not its path (the repository); git_remote with an add
// mode adds a remote; git_set_working_dir's initializeIfNotPresent is the
// flag that runs git init.
func TestManyModeShapes(t *testing.T) {
	str := json.RawMessage(`{"type":"string"}`)
	schema := func(props map[string]json.RawMessage) json.RawMessage {
		b, err := json.Marshal(map[string]any{"type": "object", "properties": props})
		require.NoError(t, err)
		return b
	}
	no := false
	s := &packs.Surface{Tools: []packs.Tool{
		{Name: "git_worktree", InputSchema: schema(map[string]json.RawMessage{
			"path": str, "worktreePath": str, "branch": str, "newPath": str,
			"mode": json.RawMessage(`{"type":"string","enum":["list","add","remove","move","prune"],"default":"list"}`),
		})},
		{Name: "git_remote", InputSchema: schema(map[string]json.RawMessage{
			"path": str, "name": str, "url": str,
			"mode": json.RawMessage(`{"type":"string","enum":["list","add","remove"],"default":"list"}`),
		})},
		{Name: "git_set_working_dir", InputSchema: schema(map[string]json.RawMessage{
			"path": str, "validateGitRepo": json.RawMessage(`{"type":"boolean"}`), "initializeIfNotPresent": json.RawMessage(`{"type":"boolean"}`),
		})},
		{Name: "git_fetch", InputSchema: schema(map[string]json.RawMessage{"path": str, "remote": str})},
	}}
	for i := range s.Tools {
		if s.Tools[i].Name != "git_set_working_dir" {
			s.Tools[i].Annotations.ReadOnlyHint = &no
		}
	}
	got := map[string]git.Tool{}
	for _, tl := range git.Tools(s) {
		tl.Schema = nil
		got[tl.Name] = tl
	}
	wt := got["git_worktree"]
	assert.Equal(t, git.Worktree, wt.Op)
	assert.Equal(t, "worktreePath", wt.Dest, "the worktree goes where worktreePath says")
	assert.Equal(t, "path", wt.Repo, "path is the repository")
	assert.Equal(t, "mode", wt.Mode)
	rm := got["git_remote"]
	assert.Equal(t, git.Remote, rm.Op, "a remote tool with an add mode adds remotes")
	assert.Equal(t, "url", rm.URL)
	assert.Equal(t, "path", rm.Repo)
	wd := got["git_set_working_dir"]
	assert.Equal(t, git.Workdir, wd.Op)
	assert.Equal(t, "path", wd.Dest)
	assert.Equal(t, "initializeIfNotPresent", wd.InitFlag)
	f := got["git_fetch"]
	assert.Equal(t, git.Write, f.Op)
	assert.Equal(t, []string{"remote"}, f.Refs)
	assert.Empty(t, f.InitFlag)
}
