package egress

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
)

// fakeSup stands in for the notification loop.
type fakeSup struct{ problems []string }

func (f fakeSup) Stop(time.Duration) []string { return f.problems }

func TestObserverAttributesAndCaps(t *testing.T) {
	o := New()
	o.Attach(fakeSup{problems: []string{"stuck"}})
	o.Add(observers.KindSocket, "before", map[string]string{"op": "connect"}, false)
	o.Begin("p1")
	for i := range MaxRecords + 10 {
		o.Add(observers.KindSocket, fmt.Sprint(i), map[string]string{"op": "connect"}, false)
	}
	o.Add(observers.KindProcess, "start", map[string]string{"op": "exec"}, true) // dropped too: full
	got := o.Collect("p1")
	require.Len(t, got, MaxRecords, "the cap holds one record from before the probe; then one loss record")
	last := got[len(got)-1]
	assert.Equal(t, observers.KindLoss, last.Kind)
	assert.Equal(t, "dropped 11 records past the limit of 4096 kept", last.Summary)
	assert.Equal(t, "time", got[0].Data["attributed"])
	assert.EqualValues(t, 11+1, o.Counts().Dropped)
	assert.Empty(t, o.Collect("p1"), "a record is returned once")

	o.Add(observers.KindProcess, "start", map[string]string{"op": "exec"}, true)
	late := o.Close()
	var summaries []string
	for _, r := range late {
		summaries = append(summaries, r.Summary)
	}
	assert.Equal(t, []string{"before", "start", "dropped 1 records past the limit of 4096 kept", "stuck"}, summaries)
	assert.Equal(t, "", late[1].Token, "an unattributed record has no token")
	assert.Nil(t, o.Close(), "Close once")
}
