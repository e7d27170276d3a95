package engine_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/slowtest"
)

// zooRows are the hostile servers whose runs once grew with what the
// server did (reliability issue, "past the bound under load"): an endless
// fork bomb, 500,000 files, 10,000 tools, endless pagination and a
// 100 MiB line without a newline.
var zooRows = []struct{ name, flaws string }{
	{"fork-bomb", "endless-fork-bomb"},
	{"500k-files", "many-files"},
	{"10k-tools", "many-tools"},
	{"endless-pages", "endless-pages"},
	{"100MiB-line", "spew-line"},
}

// zooGoal is how long a whole run of every pack against a zoo row may
// take at a load average of 20 on two cores.
const zooGoal = 180 * time.Second

// BenchmarkZooRows runs every pack (passive, one per CPU at once, as the
// CLI does) against each zoo row and
// reports the run's wall in seconds and whether it passed zooGoal
// (over-goal 1). At a load of 20 without loading the rest of the machine:
//
//	sudo scripts/underload 20 -- go test -run '^$' -bench ZooRows -benchtime 1x -timeout 60m ./internal/engine/
func BenchmarkZooRows(b *testing.B) {
	for _, row := range zooRows {
		b.Run(row.name, func(b *testing.B) {
			var total time.Duration
			over := 0
			for range b.N {
				cfg := fixtureConfig(b, row.flaws)
				cfg.CallTimeout = 10 * time.Second
				cfg.Jobs = runtime.NumCPU() // as the CLI runs it
				e, err := engine.New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				// A hang's bound, far past the goal: the figure is the wall.
				ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(15*time.Minute))
				start := time.Now()
				rep := e.Run(ctx, engine.Hooks{})
				took := time.Since(start)
				cancel()
				total += took
				if took > zooGoal {
					over++
				}
				if testing.Verbose() {
					b.Logf("%s: %s, %d packs ran, harness error %q", row.name, took.Round(time.Millisecond), len(rep.Packs), rep.HarnessError)
				}
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(float64(over)/float64(b.N), "over-goal")
		})
	}
}
