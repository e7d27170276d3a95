package observers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestKeysAreConstants: no code that writes or reads a record's Data
// spells a key as a literal. It scans the observers, the egress
// supervisor (internal/seccomp) and the packs for data["key"],
// rec.Data["key"] and map[string]string{"key": ...} with a key that
// keys.go names; each must use the constant.
func TestKeysAreConstants(t *testing.T) {
	known := keyValues(t)
	var bad []string
	for _, root := range []string{".", "../internal/seccomp", "../packs"} {
		bad = append(bad, literalKeys(t, root, known)...)
	}
	if len(bad) > 0 {
		t.Errorf("Data keys spelled as literals (use the observers.Key... constant):\n%s", strings.Join(bad, "\n"))
	}
}

// TestKeysAreConstantsCatchesALiteral: the scan finds each of the three
// forms in a file written for it.
func TestKeysAreConstantsCatchesALiteral(t *testing.T) {
	dir := t.TempDir()
	src := "package x\n\nfunc f(data map[string]string, r struct{ Data map[string]string }) {\n" +
		"\t_ = data[\"pid\"]\n\t_ = r.Data[\"op\"]\n\t_ = map[string]string{\"path\": \"x\", \"Location\": \"y\"}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := literalKeys(t, dir, map[string]bool{"pid": true, "op": true, "path": true})
	if len(got) != 3 {
		t.Errorf("want the three literals found, got %q", got)
	}
}

// keyValues are the values of the Key constants of keys.go.
func keyValues(t *testing.T) map[string]bool {
	f, err := parser.ParseFile(token.NewFileSet(), "keys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Values) == 1 && strings.HasPrefix(vs.Names[0].Name, "Key") {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				v, _ := strconv.Unquote(lit.Value)
				out[v] = true
			}
		}
		return true
	})
	if len(out) < 30 {
		t.Fatalf("keys.go names only %d keys: the scan would miss", len(out))
	}
	return out
}

// literalKeys lists "file:line: key" for each known key spelled as a
// literal in the Go files (tests left out) below root.
func literalKeys(t *testing.T, root string, known map[string]bool) []string {
	var bad []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		lit := func(e ast.Expr) (string, bool) {
			b, ok := e.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return "", false
			}
			v, _ := strconv.Unquote(b.Value)
			return v, known[v]
		}
		report := func(e ast.Expr, key string) {
			bad = append(bad, fset.Position(e.Pos()).String()+": "+key)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				inspect(fn.Body, lit, report)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// inspect reports the literal keys in the code of one function body (a
// package-level table such as packs/table's Placeholders is no record).
func inspect(body ast.Node, lit func(ast.Expr) (string, bool), report func(ast.Expr, string)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			var name string
			switch x := n.X.(type) {
			case *ast.Ident:
				name = x.Name
			case *ast.SelectorExpr:
				name = x.Sel.Name
			}
			if name == "data" || name == "Data" {
				if k, ok := lit(n.Index); ok {
					report(n.Index, k)
				}
			}
		case *ast.CompositeLit:
			m, ok := n.Type.(*ast.MapType)
			if !ok || !isString(m.Key) || !isString(m.Value) {
				return true
			}
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := lit(kv.Key); ok {
						report(kv.Key, k)
					}
				}
			}
		}
		return true
	})
}

func isString(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "string"
}
