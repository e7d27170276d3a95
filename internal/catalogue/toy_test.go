package catalogue_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	fixture.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

// doc:begin toy-pack
// toyPack is the guide's pack: one probe that no tool description
// carries a secret of the server's environment.
var toyPack = packs.Pack{
	Name: "toy",
	Doc:  "a toy pack: tool descriptions carry no secret",
	Probes: []packs.Probe{{
		ID:       "TOY-CANARY-IN-DESCRIPTION",
		Name:     "canary-in-description",
		Severity: packs.High,
		CWE:      "CWE-200",
		Doc:      "no tool description may contain a secret of the server's environment",
		Run: func(p *packs.Pass) {
			for _, t := range p.Surface.Tools {
				for _, c := range p.Canaries {
					if strings.Contains(t.Description, c.Value) {
						p.Reportf("the description of %s carries the value of %s", t.Name, c.Name)
					}
				}
			}
		},
	}},
}

// doc:end toy-pack

// doc:begin toy-test
// TestToyPack proves the toy pack both ways: the correct fixture
// server fails nothing; its twin whose read_note description ends with
// a canary fails the one probe.
func TestToyPack(t *testing.T) {
	require.Empty(t, toyPack.Check())
	self, err := os.Executable()
	require.NoError(t, err)
	for flaws, want := range map[string]packs.Verdict{
		"":                      packs.Passed,
		"canary-in-description": packs.Failed,
	} {
		e, err := engine.New(engine.Config{
			Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
			Catalog: append(slices.Clone(catalogue.All), toyPack), // the catalogue line
			Packs:   []string{"toy"}, SandboxDir: t.TempDir(),
		})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		rep := e.Run(ctx, engine.Hooks{})
		cancel()
		require.Empty(t, rep.HarnessError)
		require.Len(t, rep.Packs, 1)
		got := rep.Packs[0].Probes[0]
		assert.Equal(t, want, got.Verdict, "flaws %q: %+v", flaws, got)
		if want == packs.Failed {
			require.Len(t, got.Findings, 1)
			assert.Contains(t, got.Findings[0].Message, "the description of read_note carries the value of SEALMARK_FAKE_API_KEY")
		}
	}
}

// doc:end toy-test

// TestAddingAPackDoc keeps docs/adding-a-pack.md's code equal to this
// file's: every block the guide shows between its "doc:" markers is the
// test's own code, so the guide's steps are the ones TestToyPack takes.
func TestAddingAPackDoc(t *testing.T) {
	checkDoc(t, "../../docs/adding-a-pack.md", "toy_test.go")
}

// checkDoc requires every ```go block of the guide that opens with a
// "// doc:begin NAME" line to equal the source's block of that name.
func checkDoc(t *testing.T, guide, source string) {
	doc, err := os.ReadFile(guide)
	require.NoError(t, err)
	src, err := os.ReadFile(source)
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n// doc:begin ([a-z-]+)\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.NotEmpty(t, blocks, "the guide shows no marked code")
	for _, b := range blocks {
		re := regexp.MustCompile(`(?s)// doc:begin ` + regexp.QuoteMeta(b[1]) + "\n(.*?)// doc:end " + regexp.QuoteMeta(b[1]) + "\n")
		m := re.FindStringSubmatch(string(src))
		require.NotNil(t, m, "%s: no block %s", source, b[1])
		assert.Equal(t, strings.TrimSpace(m[1]), strings.TrimSpace(b[2]), "%s's block %s differs from %s's", guide, b[1], source)
	}
}
