package engine

import (
	"fmt"
	"strconv"

	"github.com/sealmark/sealmark/packs"
)

// MaxProbeFindings is how many findings one probe's result lists; past it
// the rest become one aggregate finding that counts them, so a server that
// floods a probe with evidence cannot flood the report (a notification
// flood once made 43,692 findings and a 23.7 MB report).
const MaxProbeFindings = 100

// aggregateKey is what an aggregate finding's fingerprint hashes instead of
// its message, whose count varies.
const aggregateKey = "findings past the per-probe cap"

// capFindings keeps the first limit findings and adds one that stands for
// the rest: their count, their highest severity, the first one's
// confidence and CWE, and the first one's message as evidence.
func capFindings(fs []packs.Finding, limit int) []packs.Finding {
	if len(fs) <= limit {
		return fs
	}
	rest := fs[limit:]
	agg := packs.Finding{
		Severity: rest[0].Severity, Confidence: rest[0].Confidence, CWE: rest[0].CWE,
		Message:  fmt.Sprintf("and %s more like it: findings past the first %d of this probe are counted, not listed", thousands(len(rest)), limit),
		Evidence: []packs.Evidence{{Observer: "harness", Detail: "the first not listed: " + rest[0].Message}},
	}
	for _, f := range rest {
		agg.Severity = max(agg.Severity, f.Severity)
	}
	return append(fs[:limit:limit], agg)
}

// thousands writes n with commas between groups of three digits: 43,689.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
