package sealmarktest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/sealmarktest"
)

// TestInconclusiveAtTheBarFailsTheProbe: a probe at or above FailOn that
// ended inconclusive (core/tool-pin, high, on a tool list that loops)
// fails its subtest, as sealmark run exits 3 for it; AllowInconclusive
// skips it with the reason, as do a FailOn above its severity.
func TestInconclusiveAtTheBarFailsTheProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run with an inconclusive probe at the fail bar")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	e, err := engine.New(engine.Config{Catalog: catalogue.All, Command: self, Args: []string{fixture.Verb}, SandboxDir: t.TempDir(),
		Packs: []string{"core"}, OnlyProbes: []string{"core/tool-pin"}, StartTimeout: slowtest.Scale(10 * time.Second)})
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	lock, err := e.Lock()
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "sealmark.lock.json")
	require.NoError(t, lock.Write(path))

	cfg := sealmarktest.Config{Command: self, Args: []string{fixture.Verb, "-flaws=pagination-loop"}, SandboxDir: t.TempDir(),
		StartTimeout: slowtest.Scale(10 * time.Second), Packs: []string{"core"}, Lock: path}
	const run = "^TestVictimDoors$/^core$/^tool-pin$"

	_, out, passed := goTestDoor(t, cfg, run)
	assert.False(t, passed, out)
	assert.Contains(t, out, "--- FAIL: TestVictimDoors/core/tool-pin")
	assert.Contains(t, out, "CORE-TOOL-PIN high: inconclusive, so untested (at or above fail_on high; AllowInconclusive accepts it): the tool list was not read completely")

	cfg.AllowInconclusive = true
	_, out, passed = goTestDoor(t, cfg, run)
	assert.True(t, passed, out)
	assert.Contains(t, out, "--- SKIP: TestVictimDoors/core/tool-pin")
	assert.Contains(t, out, "inconclusive: the tool list was not read completely")

	cfg.AllowInconclusive, cfg.FailOn = false, packs.Critical
	_, out, _ = goTestDoor(t, cfg, run)
	assert.Contains(t, out, "--- SKIP: TestVictimDoors/core/tool-pin")
}
