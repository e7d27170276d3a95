package table_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// notesRows are five cases a notes server pins for itself.
var notesRows = []table.Row{{
	Name:     "add-stays-inside",
	Tool:     "add_note",
	Args:     map[string]any{"title": "{token}"},
	Expect:   []table.Expect{table.NoFileChangesOutsideRoot(), table.NotRan("sm-canary")},
	Severity: packs.Critical,
}, {
	Name:   "reads-note",
	Tool:   "read_note",
	Args:   map[string]any{"name": "groceries"},
	Expect: []table.Expect{table.Succeeds(), table.Contains("remember the milk"), table.NoCanary()},
}, {
	Name:   "refuses-nameless",
	Tool:   "read_note",
	Expect: []table.Expect{table.Refused()},
}, {
	Name:   "no-callback",
	Tool:   "list_notes",
	Args:   map[string]any{"url": "{listener}/{token}"},
	Expect: []table.Expect{table.NoConnection()},
}, {
	Name:   "answers-fast",
	Tool:   "slow_op",
	Args:   map[string]any{"seconds": 0},
	Expect: []table.Expect{table.Succeeds(), table.Within(5 * time.Second)},
}}

// Example builds a pack from five rows and shows the probes it holds.
func Example() {
	pk, err := table.Pack("notes", notesRows)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pk.Probes {
		fmt.Printf("%s %s: %s\n", p.ID, p.Severity, p.Doc)
	}
	// Output:
	// USER-ADD-STAYS-INSIDE critical: add_note: no file change outside root/, sm-canary did not run
	// USER-READS-NOTE high: read_note: succeeds, contains "remember the milk", no canary in the response
	// USER-REFUSES-NAMELESS high: read_note: refused
	// USER-NO-CALLBACK high: list_notes: no connection
	// USER-ANSWERS-FAST high: slow_op: succeeds, within 5s
}

// Example_failure runs the five rows against a notes server that writes
// outside its root on every call, and prints what a user sees.
func Example_failure() {
	pk, err := table.Pack("notes", notesRows)
	if err != nil {
		fmt.Println(err)
		return
	}
	self, _ := os.Executable() // this test binary doubles as the notes server
	dir, err := os.MkdirTemp("", "table-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	e, err := engine.New(engine.Config{
		Command: self, Args: []string{fixture.Verb, "-flaws=write-outside"}, SandboxDir: dir,
		Catalog: []packs.Pack{pk}, StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := e.Run(context.Background(), engine.Hooks{})
	for _, p := range rep.Packs[0].Probes {
		fmt.Println(p.Verdict, p.Name)
		for _, f := range p.Findings {
			fmt.Printf("    %s %s: %s\n", p.ID, f.Severity, f)
		}
	}
	// Output:
	// fail add-stays-inside
	//     USER-ADD-STAYS-INSIDE critical: row add-stays-inside: a file changed outside root/: created root-evil/written-by-server.txt (23 bytes)
	//     evidence: files: created root-evil/written-by-server.txt (23 bytes)
	// pass reads-note
	// pass refuses-nameless
	// pass no-callback
	// pass answers-fast
}

// ExamplePack_error shows that a definition error is found before anything
// runs, naming the row.
func ExamplePack_error() {
	_, err := table.Pack("notes", []table.Row{{
		Name:   "refuses-dotdot",
		Tool:   "read_note",
		Args:   map[string]any{"name": "{sandbx}/../canary/secret.txt"},
		Expect: []table.Expect{table.Refused()},
	}})
	fmt.Println(err)
	// Output:
	// row refuses-dotdot: args: unknown placeholder {sandbx} (known: {canary_dir} {canary_file} {cwd} {link_dir} {link_file} {listener} {ok_file} {ok_token} {port} {root_evil} {sandbox} {sandbox_home} {token} {upstream})
}

// ExampleParseRows reads rows as written under probes: in sealmark.yaml.
func ExampleParseRows() {
	rows, err := table.ParseRows([]byte(`
- name: refuses-nameless
  tool: read_note
  expect: [refused, {not_contains: "{sandbox}"}, {within: 2s}]
  severity: medium
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	pk, err := table.Pack("notes", rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := pk.Probes[0]
	fmt.Printf("%s %s: %s\n", p.ID, p.Severity, p.Doc)
	// Output:
	// USER-REFUSES-NAMELESS medium: read_note: refused, does not contain "{sandbox}", within 2s
}
