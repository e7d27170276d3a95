package files

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sealmark/sealmark/observers"
)

// TestAbandonCutsTheWalkShort: Abandon during a Collect's walk stops it at
// the next entry, the Collect compares nothing (what the walk did not
// reach would read as deleted) and says so, and nothing after it looks at
// the sandbox again.
func TestAbandonCutsTheWalkShort(t *testing.T) {
	top := sandbox(t)
	const dirs = 50
	for i := range dirs {
		mkdir(t, filepath.Join(top, "root", fmt.Sprintf("d%02d", i)))
	}
	obs := observe(t, Options{Top: top, MaxRecords: 1000})
	obs.Begin("t1")
	for i := range dirs {
		write(t, filepath.Join(top, "root", fmt.Sprintf("d%02d", i), "new"), "x")
	}
	opened := 0
	obs.t.failOpen = func(string) error {
		opened++
		if opened == 3 {
			obs.Abandon()
		}
		return nil
	}
	recs := obs.Collect("t1")
	if files := kinds(recs, observers.KindFile); len(files) > 0 {
		t.Errorf("Collect cut short = %q, want no change compared", summaries(files))
	}
	losses := kinds(recs, observers.KindLoss)
	if len(losses) != 1 || losses[0].Data[observers.KeyReason] != "abandoned" || losses[0].Token != "t1" {
		t.Errorf("loss records = %v, want one saying the look was abandoned, with the token", losses)
	}
	// A directory read as the abandonment came can still be read whole;
	// the fifty are not.
	if opened > 10 {
		t.Errorf("the walk opened %d directories, want it stopped soon after the third", opened)
	}
	atAbandon := opened
	write(t, filepath.Join(top, "root-evil", "late"), "x")
	obs.Begin("t2")
	if recs := obs.Collect("t2"); len(recs) > 0 {
		t.Errorf("Collect after Abandon = %q, want nothing", summaries(recs))
	}
	if recs := obs.Close(); len(kinds(recs, observers.KindFile)) > 0 {
		t.Errorf("Close after Abandon = %q, want no change: it takes no last look", summaries(recs))
	}
	if opened != atAbandon {
		t.Errorf("%d directories opened after the Abandon, want none", opened-atAbandon)
	}
}
