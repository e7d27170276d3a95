package limits_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/limits"
)

// TestCollect: a record per limit met during the probe, attributed to its
// token; nothing when the counters did not move; a source that reads zero
// after its leaf is gone does not move them back.
func TestCollect(t *testing.T) {
	var procs, ooms atomic.Int64
	procs.Store(2) // before the start was added: no probe's doing
	w := limits.New(limits.Options{MaxProcs: 64, MaxMemory: 64 << 20})
	gone := atomic.Bool{}
	w.Add(func() limits.Counts {
		if gone.Load() {
			return limits.Counts{}
		}
		return limits.Counts{ProcsRefused: procs.Load(), OOMKills: ooms.Load()}
	})
	w.Begin("t1")
	assert.Empty(t, w.Collect("t1"), "nothing met")

	w.Begin("t2")
	procs.Add(5)
	ooms.Add(1)
	recs := w.Collect("t2")
	require.Len(t, recs, 2)
	assert.Equal(t, observers.KindLimit, recs[0].Kind)
	assert.Equal(t, "t2", recs[0].Token)
	assert.Equal(t, map[string]string{"limit": "procs", "count": "5", "max": "64"}, recs[0].Data)
	assert.Equal(t, "5 forks refused at the process limit (64 tasks)", recs[0].Summary)
	assert.Equal(t, "memory", recs[1].Data["limit"])
	assert.Equal(t, "1 processes killed for going past the memory limit (64 MiB)", recs[1].Summary)

	gone.Store(true)
	w.Begin("t3")
	assert.Empty(t, w.Collect("t3"), "a removed leaf keeps its last counts")
	gone.Store(false)
	procs.Store(9) // between probes: kept for Collect(""), not lost at Begin
	w.Begin("t4")
	assert.Empty(t, w.Collect("t4"))
	between := w.Collect("")
	require.Len(t, between, 1, "met between probes")
	assert.Equal(t, "", between[0].Token)
	assert.Equal(t, "2", between[0].Data["count"])
	ooms.Add(1)
	assert.Len(t, w.Close(), 1, "what no probe collected comes out at Close")
}
