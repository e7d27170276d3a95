package files

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

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

// TestAbandonEndsTheWaitForEvents: a Collect waiting for the file events
// queued before it (a queue of 500,000 creates takes seconds to drain)
// stops waiting once the observer is abandoned.
func TestAbandonEndsTheWaitForEvents(t *testing.T) {
	e := &events{barrier: t.TempDir(), notify: make(chan struct{}, 1), done: make(chan struct{})} // no watcher: no barrier ever comes
	abandoned := make(chan struct{})
	close(abandoned)
	got := make(chan error, 1)
	go func() { got <- e.settle(time.Hour, abandoned) }()
	select {
	case err := <-got:
		if !errors.Is(err, errAbandoned) {
			t.Errorf("settle = %v, want %v", err, errAbandoned)
		}
	case <-time.After(time.Minute):
		t.Fatal("settle still waits a minute after the observer was abandoned")
	}
}
