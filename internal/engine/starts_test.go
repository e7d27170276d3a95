package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/environ"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// TestPackStartsOncePerRole: a pack that asks for two starts gets the
// server started twice, each with its own placeholder value in the
// server's environment and in Pass.Vars; each start is its own report
// entry; every Close runs after its start; a value marked secret is masked
// in the report.
func TestPackStartsOncePerRole(t *testing.T) {
	var got []map[string]any
	var closed []string
	who := whoamiPack(&got)
	var vars []string
	probe := who.Probes[0]
	run := probe.Run
	probe.Run = func(p *packs.Pass) {
		vars = append(vars, p.Vars["dsn"])
		run(p)
	}
	pk := packs.Pack{Name: "roles", Doc: "one start per role", Probes: []packs.Probe{probe},
		Starts: func(s *packs.Setup) ([]packs.Start, error) {
			require.NotEmpty(t, s.Vars["sandbox"], "the run's placeholders are known")
			var out []packs.Start
			for _, role := range []string{"reader", "writer"} {
				out = append(out, packs.Start{Name: role, Vars: map[string]string{"dsn": "postgres://" + role + ":pw-" + role + "@127.0.0.1/app"},
					Secrets: []string{"pw-" + role}, Close: func() { closed = append(closed, role) }})
			}
			return out, nil
		}}
	cfg := fixtureConfig(t, "env-report")
	cfg.Env = []environ.KV{{Name: "APP_DSN", Value: "{dsn}"}}
	cfg.Catalog = []packs.Pack{pk}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, got, 2)
	for i, role := range []string{"reader", "writer"} {
		dsn := "postgres://" + role + ":pw-" + role + "@127.0.0.1/app"
		assert.Equal(t, dsn, got[i]["env"].(map[string]any)["APP_DSN"], "start %s: {dsn} in server.env", role)
		assert.Equal(t, dsn, vars[i], "start %s: Pass.Vars", role)
		assert.Equal(t, "roles", rep.Packs[i].Name)
		assert.Equal(t, role, rep.Packs[i].Start)
	}
	assert.Equal(t, []string{"reader", "writer"}, closed, "each start's Close ran once")
	var b strings.Builder
	require.NoError(t, report.WriteJSON(&b, rep))
	assert.NotContains(t, b.String(), "pw-reader")
}

// TestPackStartsNotApplicable: a pack whose Starts says it does not apply
// is skipped and recorded as not covered, with the reason; one whose
// Starts fails is a harness error naming the pack.
func TestPackStartsNotApplicable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: pack starts that do not apply or fail")
	}
	nothing := []packs.Probe{{ID: "TEST-NOTHING", Name: "nothing", Doc: "checks nothing", Run: func(*packs.Pass) {}}}
	for _, c := range []struct {
		err     error
		harness string
	}{
		{fmt.Errorf("%w: no db.admin_dsn configured", packs.ErrNotApplicable), ""},
		{errors.New("the admin cannot connect"), "pack db: preparing its starts: the admin cannot connect"},
	} {
		cfg := fixtureConfig(t, "")
		cfg.Catalog = []packs.Pack{{Name: "first", Doc: "a start", Probes: nothing},
			{Name: "db", Doc: "per role", Probes: nothing, Starts: func(*packs.Setup) ([]packs.Start, error) { return nil, c.err }}}
		e, err := engine.New(cfg)
		require.NoError(t, err)
		rep := e.Run(context.Background(), engine.Hooks{})
		assert.Equal(t, c.harness, rep.HarnessError)
		assert.Len(t, rep.Packs, 1, "db never started")
		if c.harness == "" {
			assert.Contains(t, rep.NotCovered, report.NotCovered{Pack: "db", Reason: "not applicable: no db.admin_dsn configured"})
		}
	}
}

// TestOwnPackNamedOnce: naming the user's own pack in Packs selects it once.
func TestOwnPackNamedOnce(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	own, err := catalogue.Rows("mine", []table.Row{{Name: "reads", Tool: "read_note", Expect: []table.Expect{table.Succeeds()}}}, "")
	require.NoError(t, err)
	for _, sel := range [][]string{{"mine"}, {"core", "mine"}, {"mine", "mine"}} {
		e, err := engine.New(engine.Config{Catalog: catalogue.All, Command: self, Packs: sel, Own: own})
		require.NoError(t, err)
		var names []string
		for _, p := range e.Packs() {
			names = append(names, p.Name)
		}
		want := []string{"mine"}
		if len(sel) == 2 && sel[0] == "core" {
			want = []string{"core", "mine"}
		}
		assert.Equal(t, want, names, "Packs %v", sel)
	}
}
