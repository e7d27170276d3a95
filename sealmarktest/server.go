package sealmarktest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

var (
	reportsMu sync.Mutex
	reports   []*report.Report
)

// Server tests the MCP server that cfg describes: it builds a sandbox (gone
// at the test's cleanup), starts the server once per pack and runs each
// pack as a subtest named by the pack, each probe as a subtest named by the
// probe, so go test -run Packs/core/secret-echo runs one probe from a test
// named TestPacks.
//
// A finding at or above cfg.FailOn fails its probe's subtest with the probe
// id, severity and evidence; lower ones are logged. A probe that does not
// apply is skipped with the reason. A server that does not start fails the
// pack's subtest with the end of the server log.
func Server(t *testing.T, cfg Config) {
	t.Helper()
	ec, err := cfg.engine()
	if err != nil {
		t.Fatalf("sealmarktest: %v", err)
	}
	ec.Log = logWriter{t}
	e, err := engine.New(ec)
	if err != nil {
		t.Fatalf("sealmarktest: %v", err)
	}
	t.Cleanup(func() {
		rep := e.Close()
		if rep.Sandbox.CleanupError != "" {
			t.Errorf("sealmarktest: could not delete %s", rep.Sandbox.CleanupError)
		}
		reportsMu.Lock()
		reports = append(reports, rep)
		reportsMu.Unlock()
	})
	if err := e.Open(); err != nil {
		t.Fatalf("sealmarktest: %v", err)
	}
	ctx := t.Context()
	for _, pk := range e.Packs() {
		t.Run(pk.Name, func(t *testing.T) {
			pr, err := e.StartPack(ctx, pk)
			if err != nil {
				t.Fatalf("sealmark: pack %s: the server did not start: %s", pk.Name, e.Redact(err.Error()))
			}
			defer pr.Close()
			probes := pr.Probes()
			if ok, why := pr.Applies(); !ok {
				pr.NotApplicable(why)
				if len(probes) == 0 {
					t.Skipf("pack %s not applicable: %s", pk.Name, why)
				}
				defer t.Logf("pack %s not applicable: %s", pk.Name, why)
			}
			for _, probe := range probes {
				t.Run(probe.Name, func(t *testing.T) {
					verdict(t, e, pr.RunProbe(ctx, probe))
				})
			}
		})
	}
}

// verdict maps one probe result onto the subtest.
func verdict(t *testing.T, e *engine.Engine, res report.Probe) {
	t.Helper()
	for _, n := range res.Notes {
		t.Log(e.Redact(n))
	}
	switch res.Verdict {
	case packs.NotApplicable:
		t.Skipf("not applicable: %s", e.Redact(res.Reason))
	case packs.Inconclusive:
		t.Skipf("inconclusive: %s", e.Redact(res.Reason))
	case packs.Errored:
		t.Fatalf("sealmark harness error in %s: %s", res.ID, e.Redact(res.Reason))
	}
	for _, f := range res.Findings {
		line := fmt.Sprintf("%s %s: %s", res.ID, f.Severity, e.Redact(f.String()))
		if f.Severity >= e.FailOn() {
			t.Error(line)
		} else {
			t.Log(line)
		}
	}
}

// logWriter sends the engine's warnings to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
