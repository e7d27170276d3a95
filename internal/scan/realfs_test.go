package scan

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// scanFileServer scans a pinned server-filesystem given a directory on
// this machine, as a client config gives it the user's project directory
// (npx -y @modelcontextprotocol/server-filesystem@V /home/me/notes; the
// entry runs the installed script directly, through the same path
// replacement as an npx entry), with the fs pack alone.
func scanFileServer(t *testing.T, s realserver.Server) *report.Report {
	t.Helper()
	script := s.Script(t)
	host := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(host, "todo.md"), []byte("- the user's own notes\n"), 0o644))
	e := Entry{Name: "files", Source: "claude_desktop_config.json", Key: "mcpServers", Type: "stdio", Command: "node", Args: []string{script, host}}
	results := Run(context.Background(), []Entry{e}, &Options{Cwd: t.TempDir(), Env: os.Environ(), Fetcher: &Fetcher{Dir: t.TempDir()},
		Flags: map[string]string{"packs": "fs", "sandbox-dir": t.TempDir()}})
	require.Len(t, results, 1)
	rep := results[0].Report
	require.Empty(t, rep.HarnessError)
	assert.Contains(t, rep.Warnings, "scan: args[1]: the path "+host+" on this machine was replaced with {sandbox}")
	data, err := os.ReadFile(filepath.Join(host, "todo.md"))
	require.NoError(t, err)
	assert.Equal(t, "- the user's own notes\n", string(data), "the host directory is untouched")
	return rep
}

// verdicts are the fs pack's probes' verdicts by ID.
func verdicts(t *testing.T, rep *report.Report) map[string]packs.Verdict {
	t.Helper()
	out := map[string]packs.Verdict{}
	for _, pk := range rep.Packs {
		if pk.Name != "fs" {
			continue
		}
		for _, pr := range pk.Probes {
			out[pr.ID] = pr.Verdict
		}
	}
	require.NotEmpty(t, out, "the fs pack ran")
	return out
}

// TestAFileServerGivenAHostDirectoryGetsTheFullFsPack: a directory
// argument is the sandbox root, where the fs layout lies, so the CVE-class
// 0.6.2 fails on the prefix and link escapes (exit 1) and the fixed
// release passes every probe (exit 0). Before, the directory became
// {sandbox}/<name>, every control failed, every probe was inconclusive
// and 0.6.2 exited 0.
func TestAFileServerGivenAHostDirectoryGetsTheFullFsPack(t *testing.T) {
	t.Run("0.6.2", func(t *testing.T) {
		t.Parallel()
		rep := scanFileServer(t, realserver.Filesystem062)
		v := verdicts(t, rep)
		for _, id := range []string{"FS-READ-PREFIX-SIBLING", "FS-READ-LINK-FILE", "FS-READ-LINK-DIR"} { // the write probes need --active
			assert.Equal(t, packs.Failed, v[id], id)
		}
		assert.Equal(t, 1, report.ExitCode(rep, packs.High))
	})
	t.Run("2026.8.31", func(t *testing.T) {
		t.Parallel()
		rep := scanFileServer(t, realserver.FilesystemLatest)
		for id, verdict := range verdicts(t, rep) {
			assert.Contains(t, []packs.Verdict{packs.Passed, packs.NotApplicable}, verdict, id)
		}
		assert.Contains(t, verdicts(t, rep), "FS-READ-PREFIX-SIBLING")
		assert.Equal(t, packs.Passed, verdicts(t, rep)["FS-READ-PREFIX-SIBLING"], "judged, not inconclusive")
		assert.Equal(t, 0, report.ExitCode(rep, packs.High))
	})
}
