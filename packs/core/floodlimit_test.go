package core_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/files"
	"github.com/sealmark/sealmark/packs"
)

// TestWriteOutsidePastTheFilesLimit: a server that fills its root past the
// files observer's limit of entries (many-files, 10 more files than the
// limit) and then writes outside its root on every call is still found by
// writes-outside-root, and the run's records say how many entries under
// root were counted, not held.
func TestWriteOutsidePastTheFilesLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("the server makes 100,010 files; run without -short")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Catalog: catalogue.All,
		Command: self, Args: []string{fixture.Verb, "-flaws=many-files,write-outside", "-many-files=" + strconv.Itoa(files.DefaultMaxEntries+10)},
		Packs: []string{"core"}, OnlyProbes: []string{"core/tool-sweep", "core/writes-outside-root"}, SandboxDir: t.TempDir(),
		StartTimeout: slowtest.Scale(5 * time.Minute), CallTimeout: time.Minute,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	rep := e.Run(ctx, engine.Hooks{})
	if rep.HarnessError != "" {
		t.Fatalf("harness error: %s", rep.HarnessError)
	}
	recs := rep.Timeline
	found := false
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			recs = append(recs, p.Observations...)
			if p.ID != "CORE-WRITES-OUTSIDE-ROOT" {
				continue
			}
			found = p.Verdict == packs.Failed && anyFinding(p, "changed a file outside its root: created root-evil/written-by-server.txt")
			if !found {
				t.Errorf("%s: verdict %s, findings %v; want the write to root-evil found past the limit", p.ID, p.Verdict, p.Findings)
			}
		}
	}
	counted := ""
	for _, r := range recs {
		if r.Observer == "files" && r.Kind == observers.KindLoss && r.Data[observers.KeyReason] == "entries" && r.Data[observers.KeyPath] == "root" {
			counted = r.Summary
		}
	}
	if !strings.HasPrefix(counted, "1") || !strings.Contains(counted, "beyond the limit of 100000") {
		t.Errorf("no files loss record counts the entries under root past the limit (last: %q)", counted)
	}
	if !found {
		t.Errorf("writes-outside-root did not run")
	}
}
