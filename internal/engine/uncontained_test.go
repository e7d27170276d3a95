package engine

import (
	"testing"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noLayers makes this system look like one without the containment
// layers (a Mac, or a Linux without them) for the test's length.
func noLayers(t *testing.T, os string) {
	t.Helper()
	oldProbe, oldGOOS := probeContainment, goos
	probeContainment = func() contain.Isolation { return contain.Isolation{} }
	goos = os
	t.Cleanup(func() { probeContainment, goos = oldProbe, oldGOOS })
}

// TestNoContainmentRefusesToStart: where the layers are missing, a server
// is not started unless --uncontained is given, and then the run is CUSTOM
// with "no containment on <os>"; where they apply, nothing changes.
func TestNoContainmentRefusesToStart(t *testing.T) {
	cfg := Config{Catalog: catalogue.All, Command: "/bin/true"}
	if containmentMissing(goos, contain.Probe()) == "" {
		e, err := New(cfg)
		require.NoError(t, err)
		assert.Equal(t, report.Standard, e.Report().Class, "a system with the layers runs STANDARD")
	}

	noLayers(t, "darwin")
	_, err := New(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no containment on darwin")
	assert.Contains(t, err.Error(), "--uncontained")
	assert.Contains(t, err.Error(), "WSL2")

	cfg.Uncontained = true
	e, err := New(cfg)
	require.NoError(t, err)
	assert.Equal(t, report.Custom, e.Report().Class)
	assert.Contains(t, e.Report().ClassReasons, "no containment on darwin (--uncontained): the server ran with full file and network access")

	_, err = New(Config{Catalog: catalogue.All, Command: "/bin/true", NoSandbox: true})
	assert.NoError(t, err, "--no-sandbox is already an explicit uncontained run")
}

// TestContainmentMissingNeedsEveryLayerGone: one applying layer is
// containment.
func TestContainmentMissingNeedsEveryLayerGone(t *testing.T) {
	assert.Equal(t, "no containment on windows", containmentMissing("windows", contain.Isolation{}))
	assert.Empty(t, containmentMissing("linux", contain.Isolation{LandlockFS: contain.Layer{Name: "landlock-fs", Applied: true}}))
	assert.Empty(t, containmentMissing("linux", contain.Isolation{MountNS: contain.Layer{Name: "mountns", Applied: true}}))
}
