package effects_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/effectsserver"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/effects"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	effectsserver.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range effects.Pack.Check() {
		t.Error(err)
	}
}

// config is a run of the effects pack against a server, active or not.
func config(active bool, command string, args ...string) engine.Config {
	return engine.Config{Command: command, Args: args, Catalog: []packs.Pack{effects.Pack}, Active: active}
}

// expect is packtest.Expect with the severity read from each wanted text
// ("high: ...").
func expect(t *testing.T, rep *report.Report, want packtest.Want) {
	t.Helper()
	require.Empty(t, rep.HarnessError)
	packtest.Expect(t, rep, want, packtest.WithSeverity())
}

// runTwins runs the fixture server's twins (passive: the pack's probes
// need no active run) and checks each as a subtest; the wanted texts carry
// the finding's severity ("high: ...").
func runTwins(t *testing.T, twins []packtest.Twin) {
	self := packtest.Self(t)
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(false, self, effectsserver.Verb, "-flaws="+tw.Flaws, "-allow={upstream}",
			"-outside=127.0.0.1:9", "-dns=127.0.0.53:53")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		expect(t, r.Report, tw.Want)
	})
}
