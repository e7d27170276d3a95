package table

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// Row is one case of a server's own: a tool call and what must hold about
// it. Pack turns rows into probes.
type Row struct {
	// Name is kebab-case and becomes the go test -run segment
	// (Packs/<pack>/<name>).
	Name string
	// ID is the stable id in reports and baselines; default "USER-" and the
	// name in upper case (refuses-dotdot → USER-REFUSES-DOTDOT).
	ID string
	// Tool is the tool to call; a tool the server does not offer fails the
	// row.
	Tool string
	// Args are the call's arguments. Strings may hold placeholders (see
	// Placeholders), in nested maps and lists too; map keys are taken as
	// written.
	Args map[string]any
	// Expect is what must hold; every expectation is judged and each broken
	// one is a finding of its own.
	Expect []Expect
	// Severity of the row's findings; the zero value means High. A row
	// cannot be Info: a finding that never fails has no place in a table.
	Severity packs.Severity
	// Doc states the rule in one line; default the tool and the
	// expectations ("read_note: refused, no canary in the response").
	Doc string
	// Source is the file the row is written in ("server_test.go",
	// "sealmark.yaml"), for go test's lines: what the row reports shows at
	// its file and name, "sealmark.yaml (row read-note)", or at its name
	// alone without one. sealmarktest sets it.
	Source string
	// Check is optional Go logic a table cannot express. It runs after the
	// expectations, with the same Pass the built-in probes get and the row's
	// call's response (nil when err is set); what it reports fails the row.
	Check func(p *packs.Pass, res *packs.Response, err error)
}

// Pack checks the rows and turns them into a pack named name, one probe per
// row, in order. It reports every problem at once, each naming its row:
//
//	row refuses-dotdot: unknown placeholder {sandbx} (known: {canary_dir} ...)
//
// The pack applies to every server and its probes are not active: a row
// runs whether or not the run is, since its author chose the call.
func Pack(name string, rows []Row) (packs.Pack, error) {
	var errs []error
	if !packs.ValidName(name) {
		errs = append(errs, fmt.Errorf("pack %q: the name is not kebab-case (like my-server)", name))
	}
	if len(rows) == 0 {
		errs = append(errs, fmt.Errorf("pack %s: no rows", name))
	}
	pk := packs.Pack{Name: name, Doc: fmt.Sprintf("the user's own probes (%d rows)", len(rows)), User: true}
	seenName, seenID := map[string]bool{}, map[string]bool{}
	for i, r := range rows {
		pr, rowErrs := r.probe(i)
		errs = append(errs, rowErrs...)
		if seenName[pr.Name] {
			errs = append(errs, fmt.Errorf("%s: another row has this name", where(r, i)))
		}
		if seenID[pr.ID] {
			errs = append(errs, fmt.Errorf("%s: another row has the id %s", where(r, i), pr.ID))
		}
		seenName[pr.Name], seenID[pr.ID] = true, true
		pk.Probes = append(pk.Probes, pr)
	}
	if len(errs) > 0 {
		return packs.Pack{}, errors.Join(errs...)
	}
	return pk, nil
}

// where names a row in an error: "row refuses-dotdot", or "row 3" (counting
// from 1) when it has no usable name.
func where(r Row, i int) string {
	if r.Name != "" && !strings.ContainsAny(r.Name, "\n\r") && len(r.Name) <= 80 {
		return "row " + r.Name
	}
	return fmt.Sprintf("row %d", i+1)
}

// probe checks one row and builds its probe.
func (r Row) probe(i int) (packs.Probe, []error) {
	at := where(r, i)
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(at+": "+format, args...))
	}
	if !packs.ValidName(r.Name) {
		fail("the name %q is not kebab-case (like refuses-dotdot)", r.Name)
	}
	id := r.ID
	if id == "" {
		id = "USER-" + strings.ToUpper(r.Name)
	}
	if !packs.ValidID(id) {
		fail("the id %q is not of the form USER-RULE (upper case, dash-separated)", id)
	}
	if strings.TrimSpace(r.Tool) == "" {
		fail("no tool")
	}
	walkStrings(map[string]any(r.Args), func(s string) {
		if m := unknownPlaceholder(s); m != "" {
			fail("args: %v", unknownError(m))
		}
	})
	if len(r.Expect) == 0 && r.Check == nil {
		fail("no expectation and no Check: the row could never fail")
	}
	for _, e := range r.Expect {
		if err := e.check(); err != nil {
			fail("%v", err)
		}
	}
	sev := r.Severity
	switch {
	case sev == packs.Info:
		sev = packs.High
	case sev < packs.Info || sev > packs.Critical:
		fail("severity %s is not one of low, medium, high, critical", sev)
	}
	doc := r.Doc
	if doc == "" {
		doc = r.defaultDoc()
	}
	if strings.ContainsAny(doc, "\n\r") {
		fail("doc must be one line")
	}
	pr := packs.Probe{ID: id, Name: r.Name, Severity: sev, Doc: doc, Source: r.position()}
	row := r
	row.Expect = append([]Expect(nil), r.Expect...)
	pr.Run = func(p *packs.Pass) { run(p, row) }
	return pr, errs
}

// position is where go test shows what the row reports: its file and name.
func (r Row) position() string {
	if r.Source == "" {
		return "row " + r.Name
	}
	return r.Source + " (row " + r.Name + ")"
}

// defaultDoc is the tool and the expectations: "read_note: refused, no
// canary in the response".
func (r Row) defaultDoc() string {
	parts := make([]string, 0, len(r.Expect))
	for _, e := range r.Expect {
		parts = append(parts, e.String())
	}
	if r.Check != nil {
		parts = append(parts, "and the row's own check")
	}
	return r.Tool + ": " + strings.Join(parts, ", ")
}
