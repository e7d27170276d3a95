package exec_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestShellServerTerminal pins the exec pack on the real
// @mako10k/mcp-shell-server 2.7.1, whose terminal tools run commands in
// a login shell on a node-pty pseudo-terminal, beside shell_execute,
// which asks the client's model (sampling) to approve each command.
// Checked by hand once, outside the harness, with a Python driver
// speaking JSON-RPC to dist/index.js (HOME a throwaway directory, a
// stand-in sm-canary on PATH that logs each run):
//
//   - shell_execute {"command":"sm-canary by-name-shell"} was refused
//     with -32600 "LLM evaluation failed" (the client has no sampling);
//   - terminal_operate {"command":"echo sealmark;
//     /tmp/shhand/bin/sm-canar? via-glob-term"} ran the canary: the
//     terminal runs what shell_execute's approval gate refuses;
//   - terminal_operate {"command":"sm-canary by-name-term"} ran nothing:
//     bash --login resets PATH, so no program of the caller's PATH is
//     found by name (nor sm-echo, the pack's control);
//   - with its stdin closed it kept running (only a signal stops it).
//
// Contained, the terminal works (a private devpts: before it, node-pty's
// forkpty failed): bash --login and its id -u are in the exec records.
// Every probe is inconclusive, and says why: shell_execute is refused,
// and terminal_operate's sm-echo is not found by its login shell (the
// command line it echoes back is not sm-echo's output).
func TestShellServerTerminal(t *testing.T) {
	t.Parallel()
	script := realserver.ShellServer.CwdArg(t)
	dir := t.TempDir()
	cfg := config("node", script)
	cfg.CallTimeout = 10 * time.Second
	cfg.StartTimeout = 60 * time.Second
	rep, err := packtest.Run(dir, cfg)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	assert.Contains(t, rep.Sandbox.Isolation, "+own-pts")
	var notes []string
	for _, p := range rep.Packs[0].Probes {
		notes = append(notes, p.Notes...)
		assert.Equal(t, packs.Inconclusive, p.Verdict, "%s: %s %v", p.ID, p.Reason, p.Findings)
		assert.NotContains(t, p.Reason, "forkpty", p.ID)
		assert.Contains(t, p.Reason, `terminal_operate: terminal_operate(command="sm-echo {token}-ctl") did not run sm-echo`, p.ID)
		assert.Contains(t, p.Reason, `shell_execute: shell_execute(command="sm-echo {token}-ctl") did not run sm-echo`, p.ID)
	}
	assert.Contains(t, strings.Join(notes, "\n"), "executed: /bin/bash --login", "the terminal's login shell ran on its pty")
	leftovers(t, dir)
}
