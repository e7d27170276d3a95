package exec_test

import (
	"slices"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/execserver"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/exec"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// slowDelay is what the slow fixture spends on every call before it runs
// anything, and slowCall the call timeout of its runs: an ordinary call
// answers within it, a call that asks for a 1 s timeout does not.
const (
	slowDelay = 2 * time.Second
	slowCall  = 2500 * time.Millisecond
)

// TestSlowServer proves the probes that judge a call by how long it took,
// or by what a child printed before the server's own timer, on a server
// slow on every call (the fixture waits -call-delay before each, as a
// starved server pays for each call), both ways:
//
//   - the strict server passes: its timeout is honoured 1 s after a call
//     it took 2 s to begin. Before, timeout took the 3 s answer for a hang
//     (the call timeout, 2.5 s, did not follow the server's pace).
//   - the background-hang twin still fails timeout and background-hang:
//     a server that waits for its child is still caught, its bound (the
//     timer and five times its pace) far below the child's life.
func TestSlowServer(t *testing.T) {
	t.Parallel()
	self := packtest.Self(t)
	pk := exec.Pack
	pk.Probes = slices.DeleteFunc(slices.Clone(pk.Probes), func(p packs.Probe) bool {
		return !slices.Contains([]string{"EXEC-ENV-INHERITANCE", "EXEC-TIMEOUT", "EXEC-BACKGROUND-HANG", "EXEC-OUTLIVES-SERVER"}, p.ID)
	})
	twins := []packtest.Twin{
		{},
		{Flaws: "background-hang", Want: packtest.Want{
			"EXEC-TIMEOUT": {`with timeout_seconds of 1 s did not return within the call timeout`},
			// The bound the message names is 2.5 s, or three times that
			// when a loaded machine made the probe's first try miss its
			// pace call and the engine retried it: the fingerprint leaves
			// the duration out, and so does this text.
			"EXEC-BACKGROUND-HANG": {`s): the server waits on a child it left in the background (a trailing &)`},
		}},
	}
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		cfg := config(self, execserver.Verb, "-flaws="+tw.Flaws, "-call-delay="+slowDelay.String(), "{sandbox}")
		cfg.Catalog, cfg.CallTimeout = []packs.Pack{pk}, slowCall
		return cfg
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want, packtest.Ran("EXEC-TIMEOUT"))
		leftovers(t, r.Dir)
	})
}
