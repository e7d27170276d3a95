package engine_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/packs"
)

// TestPTYTerminalContained runs a pty-based terminal tool (the fixture's
// terminal: tty through script(1), which opens a pseudo-terminal as
// forkpty does) in a run with every layer on (the mount namespace,
// Landlock, the seccomp egress observer, the cgroup): it runs on a
// terminal of its own, and the isolation line says the server has its own
// devpts. Without the private devpts, script fails: opening /dev/ptmx is
// a write Landlock refuses, and the host's ptys are not the server's.
func TestPTYTerminalContained(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("no script(1) here")
	}
	for _, l := range contain.Probe().Layers() {
		if l.Name == "mountns" && !l.Applied {
			t.Skipf("mountns does not apply here: %s", l.Why)
		}
	}
	var got []string
	cfg := fixtureConfig(t, "pty-terminal")
	cfg.Catalog = []packs.Pack{{Name: "terminal", Doc: "runs the terminal tool", Probes: []packs.Probe{{
		ID: "TEST-TERMINAL", Name: "terminal", Doc: "calls the terminal tool",
		Run: func(p *packs.Pass) {
			res, err := p.Call("terminal", nil)
			if err != nil {
				p.Reportf("terminal: %v", err)
				return
			}
			var r struct {
				Content []struct{ Text string } `json:"content"`
				IsError bool                    `json:"isError"`
			}
			if err := json.Unmarshal(res.Result, &r); err != nil || len(r.Content) == 0 || r.IsError {
				p.Reportf("terminal: %v %s", err, res.Brief())
				return
			}
			got = append(got, r.Content[0].Text)
		},
	}}}}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	t.Logf("isolation: %s", rep.Sandbox.Isolation)
	for _, p := range rep.Packs[0].Probes {
		assert.Empty(t, p.Findings, "%s: %s", p.ID, p.Reason)
	}
	require.Len(t, got, 1, "the terminal tool answered")
	assert.Regexp(t, `^/dev/pts/[0-9]+\s*$`, got[0], "tty ran on a pseudo-terminal of its own")
	assert.Contains(t, rep.Sandbox.Isolation, "+own-pts")
	assert.Contains(t, rep.Sandbox.Isolation, "seccomp-notify")
	assert.Contains(t, rep.Sandbox.Isolation, "fs=landlock")
}
