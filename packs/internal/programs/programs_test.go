package programs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs/internal/programs"
)

func rec(observer, op, pid, summary string) observers.Record {
	return observers.Record{Kind: observers.KindProcess, Observer: observer, Summary: summary,
		Data: map[string]string{observers.KeyOp: op, observers.KeyPid: pid}}
}

// TestRan: one record per process, the surest of its records: an exec
// line over any sample, an execve sample over a spawned one, else the
// first; other ops left out, records without a pid each kept.
func TestRan(t *testing.T) {
	recs := []observers.Record{
		rec("process", "spawned", "10", "fork of node"),
		rec("process", "execve", "10", "sh -c x"),
		rec("process", "spawned", "11", "fork of node 2"),
		rec("process", "exec", "11", "sm-echo (exec log)"),
		rec("process", "execve", "11", "late sample of sm-echo"),
		rec("process", "execve", "12", "git status"),
		rec("process", "spawned", "12", "a later spawned sample"),
		rec("process", "survivor", "13", "not a start"),
		rec("egress", "exec", "", "no pid 1"),
		rec("egress", "exec", "", "no pid 2"),
	}
	var got []string
	for _, r := range programs.Ran(recs) {
		got = append(got, r.Summary)
	}
	assert.Equal(t, []string{"sh -c x", "sm-echo (exec log)", "git status", "no pid 1", "no pid 2"}, got)
	assert.Empty(t, programs.Ran(nil))
}
