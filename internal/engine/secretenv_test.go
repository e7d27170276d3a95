package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestTokenShapedEnvValueIsASecret: a token-shaped value under a name that
// does not look secret (UPSTREAM_PAT) is a secret of the run: the report's
// env block shows it masked, and a server that echoes it (here, a probe
// that reports what the server said) does not carry it into the report,
// whole or cut.
func TestTokenShapedEnvValueIsASecret(t *testing.T) {
	const token = "ghp_a1b2c3d4e5f6g7h8i9j0"
	var got []map[string]any
	cfg := fixtureConfig(t, "env-report")
	cfg.Env = []environ.KV{{Name: "UPSTREAM_PAT", Value: token}}
	echo := packs.Pack{Name: "echo", Doc: "reports the server's environment", Probes: []packs.Probe{{
		ID: "TEST-ECHO", Name: "echo", Doc: "reports what the server saw",
		Run: func(p *packs.Pass) {
			whoamiPack(&got).Probes[0].Run(p)
			if len(got) == 0 {
				return
			}
			v, _ := got[0]["env"].(map[string]any)["UPSTREAM_PAT"].(string)
			p.Reportf("the server saw %s; cut: %s…", v, v[:10])
		},
	}}}
	cfg.Catalog = []packs.Pack{echo}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, got, 1, "the probe ran")
	assert.Equal(t, token, got[0]["env"].(map[string]any)["UPSTREAM_PAT"], "the server got the value itself")

	var js bytes.Buffer
	require.NoError(t, report.WriteJSON(&js, rep))
	assert.NotContains(t, js.String(), token[:10], "the token, whole or cut, is masked")
	assert.Contains(t, js.String(), "the server saw "+redact.MaskRedacted)
	assert.Contains(t, rep.Server.Env, report.EnvEntry{Name: "UPSTREAM_PAT", Value: redact.MaskRedacted})
}
