package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/packs"
)

// TestKeptSandboxSurvivesTheNextRun: a sandbox kept with --keep-sandbox
// is the user's, not a dead run's leftover: the next run's stale sweep in
// the same directory leaves it, while that run's own sandbox goes.
func TestKeptSandboxSurvivesTheNextRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a kept sandbox and the run after it")
	}
	parent := t.TempDir()
	pass := packs.Pack{Name: "one", Doc: "one passing probe", Probes: []packs.Probe{{
		ID: "TEST-ONE", Name: "one", Doc: "passes", Run: func(*packs.Pass) {},
	}}}
	run := func(keep bool) {
		cfg := fixtureConfig(t, "")
		cfg.SandboxDir, cfg.KeepSandbox, cfg.Catalog = parent, keep, []packs.Pack{pass}
		e, err := engine.New(cfg)
		require.NoError(t, err)
		rep := e.Run(context.Background(), engine.Hooks{})
		require.Empty(t, rep.HarnessError)
	}
	run(true)
	kept, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, kept, 1, "the kept sandbox")
	// The next run is usually another process, and this one's is gone:
	// the sweep goes by the owner file, which a kept sandbox no longer has
	// (contain's TestSweepStale proves a dead owner's directory is swept).
	assert.NoFileExists(t, filepath.Join(parent, kept[0].Name(), contain.OwnerFile), "a kept sandbox still names its run")
	run(false)
	after, err := os.ReadDir(parent)
	require.NoError(t, err)
	require.Len(t, after, 1, "the kept sandbox, and not the second run's: %v", after)
	assert.Equal(t, kept[0].Name(), after[0].Name())
}
