package engine

import (
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// TestUntestedLines: the go test door fails an inconclusive probe at or
// above the fail bar and a pack start whose probes were all inconclusive
// or not applicable, unless AllowInconclusive; a judged pack and a probe
// below the bar are left alone.
func TestUntestedLines(t *testing.T) {
	high := packs.High
	e := &Engine{cfg: Config{Catalog: catalogue.All, FailOn: &high}, redactor: redact.New()}
	inc := func(sev packs.Severity) report.Probe {
		return report.Probe{ID: "FS-X", Verdict: packs.Inconclusive, Severity: sev, Reason: "control failed"}
	}
	na := report.Probe{ID: "FS-N", Verdict: packs.NotApplicable, Severity: packs.Critical}
	pass := report.Probe{ID: "FS-P", Verdict: packs.Passed, Severity: packs.Critical}

	if got := e.untestedProbe(inc(packs.Critical)); !strings.HasPrefix(got, "FS-X critical: inconclusive, so untested (at or above fail_on high") {
		t.Errorf("critical inconclusive: %q", got)
	}
	if got := e.untestedProbe(inc(packs.Medium)); got != "" {
		t.Errorf("medium inconclusive at high: %q, want none", got)
	}
	if got := e.untestedPack("fs", []report.Probe{inc(packs.Low), na}); !strings.HasPrefix(got, "sealmark: pack fs INCOMPLETE") {
		t.Errorf("incomplete pack: %q", got)
	}
	if got := e.untestedPack("fs", []report.Probe{inc(packs.Low), pass}); got != "" {
		t.Errorf("judged pack: %q, want none", got)
	}
	if got := e.untestedPack("fs", []report.Probe{na}); got != "" {
		t.Errorf("not-applicable pack: %q, want none", got)
	}
	e.cfg.AllowInconclusive = true
	if e.untestedProbe(inc(packs.Critical)) != "" || e.untestedPack("fs", []report.Probe{inc(packs.Low)}) != "" {
		t.Error("AllowInconclusive: want no lines")
	}
}
