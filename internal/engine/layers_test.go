package engine_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestLayersOffSayWhy turns each containment layer off by config: the
// isolation line names it as off (or keeps the machine's refusal, which
// is truer still), the rest stay as probed, and the run is CUSTOM.
func TestLayersOffSayWhy(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run per containment layer turned off")
	}
	iso := contain.Probe()
	says := map[string][]string{
		"landlock":   {"landlock-fs: off by config", "landlock-scope: off by config"},
		"seccomp":    {"seccomp-notify: off by config"},
		"namespaces": {"netns: off by config"},
		"cgroup":     {"cgroup=none(off by config)"},
		"fsize":      {"rlimits=none(rlimit-fsize: off by config)"},
		"quota":      {"quota=none(tmpfs: off by config)", "sandbox size sampled, not enforced"},
		"secrets":    {"secrets=none(off by config)", "the harness user's credential stores readable (secrets: off by config)"},
	}
	refused := map[string]contain.Layer{"landlock": iso.LandlockFS, "seccomp": iso.SeccompNotify,
		"namespaces": iso.NetNS, "cgroup": iso.Cgroup, "fsize": iso.FileSize, "quota": iso.Quota, "secrets": iso.Secrets}
	require.ElementsMatch(t, engine.Layers, keys(says), "every layer has a case")
	pass := packs.Pack{Name: "one", Doc: "one passing probe", Probes: []packs.Probe{{
		ID: "TEST-ONE", Name: "one", Doc: "passes", Run: func(*packs.Pass) {},
	}}}
	for _, layer := range engine.Layers {
		t.Run(layer, func(t *testing.T) {
			cfg := fixtureConfig(t, "")
			cfg.Catalog, cfg.LayersOff = []packs.Pack{pass}, []string{layer}
			e, err := engine.New(cfg)
			require.NoError(t, err)
			rep := e.Run(context.Background(), engine.Hooks{})
			require.Empty(t, rep.HarnessError)
			line := rep.Sandbox.Isolation
			assert.Equal(t, report.Custom, rep.Class)
			if l := refused[layer]; !l.Applied && l.Why != "" && l.Why != "no limit set" {
				assert.Contains(t, line, l.Why, "the machine's own refusal is kept")
				return
			}
			for _, want := range says[layer] {
				assert.Contains(t, line, want)
			}
			for other, l := range refused {
				if layer == "namespaces" && other == "secrets" {
					continue // the stores are hidden in the mount namespace: none, none hidden
				}
				if other != layer && l.Applied {
					assert.NotContains(t, line, l.Name+": off by config", "only %s is off", layer)
				}
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		cfg := fixtureConfig(t, "")
		cfg.LayersOff = []string{"selinux"}
		_, err := engine.New(cfg)
		require.Error(t, err)
		assert.Contains(t, err.Error(), `unknown containment layer "selinux" in sandbox.layers_off (known: landlock, seccomp, namespaces, cgroup, fsize, quota, secrets)`)
	})
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
