package catalogue_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// doc:begin toy-observer
// toyObserver is the guide's observer: it records every name that
// appears in one directory, attributed to the probe whose Collect first
// sees it.
type toyObserver struct {
	dir  string
	mu   sync.Mutex
	seen map[string]bool // the names already there or already recorded
}

// maxToyRecords bounds one Collect; what it leaves out is a loss record.
const maxToyRecords = 100

// newToyObserver watches dir; what is there already is no change.
func newToyObserver(dir string) (*toyObserver, error) {
	o := &toyObserver{dir: dir, seen: map[string]bool{}}
	_, err := o.appeared()
	return o, err
}

func (o *toyObserver) Name() string { return "toy" }

// Begin needs nothing: Collect attributes what appeared since the last
// Collect to the token it is given.
func (o *toyObserver) Begin(token string) {}

func (o *toyObserver) Collect(token string) []observers.Record {
	now := time.Now()
	names, err := o.appeared()
	if err != nil {
		return []observers.Record{{Kind: observers.KindLoss, Observer: o.Name(), Time: now, Token: token,
			Summary: "cannot read the watched directory: " + err.Error(), Data: map[string]string{observers.KeyOp: "loss"}}}
	}
	var out []observers.Record
	for i, name := range names {
		if i == maxToyRecords {
			out = append(out, observers.Record{Kind: observers.KindLoss, Observer: o.Name(), Time: now, Token: token,
				Summary: fmt.Sprintf("%d more names not recorded", len(names)-i), Data: map[string]string{observers.KeyOp: "loss"}})
			break
		}
		out = append(out, observers.Record{Kind: observers.KindFile, Observer: o.Name(), Time: now, Token: token,
			Summary: "appeared: " + name, Data: map[string]string{observers.KeyOp: "created", observers.KeyPath: name}})
	}
	return out
}

// Close returns what appeared since the last Collect, owned by no probe.
func (o *toyObserver) Close() []observers.Record { return o.Collect("") }

// appeared lists the names in dir not seen before, sorted, and marks
// them seen.
func (o *toyObserver) appeared() ([]string, error) {
	entries, err := os.ReadDir(o.dir)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, e := range entries {
		if !o.seen[e.Name()] {
			o.seen[e.Name()] = true
			out = append(out, e.Name())
		}
	}
	return out, nil
}

// doc:end toy-observer

// doc:begin toy-observer-probe
// toyWatch is a pack whose one probe calls a tool and judges the toy
// observer's records, read by their keys' names.
var toyWatch = packs.Pack{
	Name: "toy-watch",
	Doc:  "a toy pack: a tool call makes nothing appear in root-evil",
	Probes: []packs.Probe{{
		ID:       "TOY-NOTHING-APPEARS",
		Name:     "nothing-appears",
		Severity: packs.High,
		Doc:      "a call of read_note must make nothing appear in root-evil",
		Run: func(p *packs.Pass) {
			if _, err := p.Call("read_note", map[string]any{"name": "a"}); err != nil {
				p.Inconclusive("read_note: %v", err)
				return
			}
			for _, r := range p.Observed.Probe() {
				if r.Observer == "toy" && r.Kind == observers.KindFile {
					p.Reportf("%s appeared in root-evil", r.Data[observers.KeyPath]).Evidencef("toy", "%s", r.Summary)
				}
			}
		},
	}},
}

// doc:end toy-observer-probe

// doc:begin toy-observer-test
// TestToyObserver proves the toy observer both ways: on the correct
// fixture server it records nothing and the probe passes; on its twin
// that writes root-evil/written-by-server.txt on every tool call it
// records that name in the probe that made the call. The isolation line
// names it.
func TestToyObserver(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	for flaws, want := range map[string]packs.Verdict{
		"":              packs.Passed,
		"write-outside": packs.Failed,
	} {
		e, err := engine.New(engine.Config{
			Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
			Catalog: append(slices.Clone(catalogue.All), toyWatch),
			Packs:   []string{"toy-watch"}, SandboxDir: t.TempDir(),
			Observers: []engine.Observe{func(sb *packs.Sandbox) (observers.Observer, error) {
				return newToyObserver(sb.RootEvil) // the engine line
			}},
		})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		rep := e.Run(ctx, engine.Hooks{})
		cancel()
		require.Empty(t, rep.HarnessError)
		assert.Contains(t, rep.Sandbox.Isolation, ",toy,", "the isolation line names the observer")
		require.Len(t, rep.Packs, 1)
		got := rep.Packs[0].Probes[0]
		require.Equal(t, want, got.Verdict, "flaws %q: %+v", flaws, got)
		var toy []string
		for _, r := range got.Observations {
			if r.Observer == "toy" {
				toy = append(toy, r.Summary)
			}
		}
		if want == packs.Passed {
			assert.Empty(t, toy, "flaws %q", flaws)
			continue
		}
		assert.Equal(t, []string{"appeared: written-by-server.txt"}, toy)
		require.Len(t, got.Findings, 1)
		assert.Equal(t, "written-by-server.txt appeared in root-evil", got.Findings[0].Message)
	}
}

// doc:end toy-observer-test

// TestAddingAnObserverDoc keeps docs/adding-an-observer.md's code equal
// to this file's, as TestAddingAPackDoc does for the pack guide.
func TestAddingAnObserverDoc(t *testing.T) {
	checkDoc(t, "../../docs/adding-an-observer.md", "toyobserver_test.go")
}

// TestToyObserverIsBounded: a Collect that meets more new names than the
// bound records the bound and says how many it left out.
func TestToyObserverIsBounded(t *testing.T) {
	dir := t.TempDir()
	o, err := newToyObserver(dir)
	require.NoError(t, err)
	for i := range maxToyRecords + 5 {
		require.NoError(t, os.WriteFile(fmt.Sprintf("%s/f%03d", dir, i), nil, 0o644))
	}
	recs := o.Collect("tok")
	require.Len(t, recs, maxToyRecords+1)
	last := recs[len(recs)-1]
	assert.Equal(t, observers.KindLoss, last.Kind)
	assert.Equal(t, "5 more names not recorded", last.Summary)
	assert.Empty(t, o.Close(), "nothing new since")
}
