package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// meeting is a barrier two probes meet at: each says it arrived and waits
// for the other, within a bound.
type meeting struct {
	mu      sync.Mutex
	arrived map[string]chan struct{}
}

// meet marks name arrived and reports whether other arrived within d.
func (m *meeting) meet(name, other string, d time.Duration) bool {
	m.mu.Lock()
	for _, n := range []string{name, other} {
		if m.arrived[n] == nil {
			m.arrived[n] = make(chan struct{})
		}
	}
	close(m.arrived[name])
	wait := m.arrived[other]
	m.mu.Unlock()
	select {
	case <-wait:
		return true
	case <-time.After(d):
		return false
	}
}

// meetingPack is a pack whose one probe asks the env-report fixture where
// it runs (its sandbox root, into roots), reports the canary the start
// was given as a finding when it has one, and then waits for the pack
// named other to arrive: a finding says it ran alone.
func meetingPack(name, other string, m *meeting, d time.Duration, mu *sync.Mutex, roots map[string]string) packs.Pack {
	return packs.Pack{Name: name, Doc: "meets " + other, Canaries: true, Probes: []packs.Probe{{
		ID: "TEST-" + strings.ToUpper(name), Name: "meet", Doc: "waits for the other pack's probe", Severity: packs.High,
		Run: func(p *packs.Pass) {
			res, err := p.Call("whoami", nil)
			if err != nil || res.Error != nil {
				p.Inconclusive("whoami failed: %v %s", err, res.Brief())
				return
			}
			var r struct {
				Content []struct{ Text string } `json:"content"`
			}
			var who struct {
				Cwd string `json:"cwd"`
			}
			if json.Unmarshal(res.Result, &r) != nil || len(r.Content) == 0 || json.Unmarshal([]byte(r.Content[0].Text), &who) != nil {
				p.Inconclusive("whoami: no cwd in %s", res.Result)
				return
			}
			mu.Lock()
			roots[name] = who.Cwd
			mu.Unlock()
			for _, c := range p.Canaries {
				p.Reportf("the start's canary is %s", c.Value)
			}
			if !m.meet(name, other, d) {
				p.Reportf("%s ran alone: %s never arrived", name, other)
			}
		},
	}}}
}

// TestPacksAtOnce runs a first pack and then two packs that each wait for
// the other: with Jobs 3 they run at once, each on a server and sandbox
// of its own, and meet; the report holds every pack in catalogue order,
// each part's canary masked. With Jobs 1 they run one after the other and
// the first to wait says it ran alone: the test can tell the two apart.
func TestPacksAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the env-report fixture started three times")
	}
	for _, jobs := range []int{3, 1} {
		t.Run(map[int]string{3: "jobs3", 1: "jobs1"}[jobs], func(t *testing.T) {
			cfg := fixtureConfig(t, "env-report")
			cfg.Jobs = jobs
			var got []map[string]any
			m := &meeting{arrived: map[string]chan struct{}{}}
			var mu sync.Mutex
			roots := map[string]string{}
			// Long enough for the other's start on a loaded machine; with
			// one job it is the time the first waits for nothing.
			wait := slowtest.Scale(20 * time.Second)
			if jobs == 1 {
				wait = time.Second
			}
			cfg.Catalog = []packs.Pack{
				whoamiPack(&got),
				meetingPack("left", "right", m, wait, &mu, roots),
				meetingPack("right", "left", m, wait, &mu, roots),
			}
			var progress []string
			e, err := engine.New(cfg)
			require.NoError(t, err)
			rep := e.Run(context.Background(), engine.Hooks{
				Pack:  func(name string) { progress = append(progress, "pack "+name) },
				Probe: func(pack string, res report.Probe) { progress = append(progress, pack+" "+string(res.Verdict)) },
			})
			require.Empty(t, rep.HarnessError)
			require.Len(t, got, 1)
			var names []string
			for _, pk := range rep.Packs {
				names = append(names, pk.Name)
				require.Len(t, pk.Probes, 1, pk.Name)
			}
			assert.Equal(t, []string{"whoami", "left", "right"}, names, "the report keeps catalogue order")
			assert.ElementsMatch(t, []string{"pack whoami", "whoami pass", "pack left", "left fail", "pack right", "right fail"}, progress)
			require.Len(t, roots, 2)
			left, err := os.ReadDir(cfg.SandboxDir)
			require.NoError(t, err)
			assert.Empty(t, left, "every sandbox is deleted after the run")
			raw, err := json.Marshal(rep)
			require.NoError(t, err)
			for _, pk := range rep.Packs[1:] {
				f := pk.Probes[0].Findings
				require.NotEmpty(t, f, pk.Name)
				assert.Equal(t, "the start's canary is <canary>", f[0].Message, "%s: the part's canary masked", pk.Name)
			}
			assert.NotContains(t, string(raw), "sm-canary-")
			assert.NotContains(t, string(raw), "sk-sealmark-fake-")
			alone := 0
			for _, pk := range rep.Packs[1:] {
				for _, f := range pk.Probes[0].Findings {
					if strings.Contains(f.Message, "ran alone") {
						alone++
					}
				}
			}
			if jobs == 1 {
				assert.Equal(t, 1, alone, "one after the other, the first waits in vain")
				assert.Equal(t, roots["left"], roots["right"], "one sandbox")
			} else {
				assert.Zero(t, alone, "at once, the two met")
				assert.NotEqual(t, roots["left"], roots["right"], "each pack has a sandbox of its own")
			}
		})
	}
}
