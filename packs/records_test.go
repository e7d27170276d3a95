package packs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// TestLimitFinding: a procs record is a high finding, a memory record a
// medium one, both CWE-770, each naming the limit and where it was met but
// not the count, which is the evidence; two records that differ only in
// their count give the same message. Any other record gives none.
func TestLimitFinding(t *testing.T) {
	rec := func(limit, count, max, summary string) observers.Record {
		return observers.Record{Kind: observers.KindLimit, Observer: "limits", Token: "tok", Summary: summary,
			Data: map[string]string{observers.KeyLimit: limit, observers.KeyCount: count, observers.KeyMax: max}}
	}
	procs := rec("procs", "240", "64", "240 forks refused at the process limit (64 tasks)")
	f, ok := packs.LimitFinding(procs, "during probe first-call")
	assert.True(t, ok)
	assert.Equal(t, packs.Finding{
		Severity: packs.High, CWE: "CWE-770",
		Message:  "the server met its procs limit during probe first-call: forks were refused at its process limit (64 tasks)",
		Evidence: []packs.Evidence{{Observer: "limits", Detail: "240 forks refused at the process limit (64 tasks)"}},
	}, f)
	again, _ := packs.LimitFinding(rec("procs", "3", "64", "3 forks refused at the process limit (64 tasks)"), "during probe first-call")
	assert.Equal(t, f.Message, again.Message, "the count is not in the message")

	f, ok = packs.LimitFinding(rec("memory", "1", "268435456", "1 processes killed for going past the memory limit (256 MiB)"), "while no probe ran")
	assert.True(t, ok)
	assert.Equal(t, packs.Medium, f.Severity)
	assert.Equal(t, "CWE-770", f.CWE)
	assert.Equal(t, "the server met its memory limit while no probe ran: a process was killed for going past its memory limit (256 MiB)", f.Message)
	assert.Equal(t, []packs.Evidence{{Observer: "limits", Detail: "1 processes killed for going past the memory limit (256 MiB)"}}, f.Evidence)

	for _, r := range []observers.Record{
		{Kind: observers.KindFile, Summary: "wrote root/x", Data: map[string]string{observers.KeyLimit: "procs"}},
		rec("size", "1", "100", "the sandbox passed its size limit"),
		rec("", "1", "64", "no limit named"),
	} {
		_, ok := packs.LimitFinding(r, "during probe x")
		assert.False(t, ok, "%s", r.Summary)
	}
}
