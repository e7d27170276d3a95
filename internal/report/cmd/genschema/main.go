// Command genschema writes the report's JSON Schema (report.JSONSchema),
// with each property described by its field's doc comment in the model's
// source, to the file its argument names, docs/report.schema.json:
//
//	go generate ./internal/report
//
// Its test fails when the committed file differs from what it generates.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/sealmark/sealmark/internal/report"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genschema FILE")
		os.Exit(2)
	}
	b, err := generate()
	if err == nil {
		err = os.WriteFile(os.Args[1], b, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "genschema: %v\n", err)
		os.Exit(1)
	}
}

// module is the module path; sources maps the packages whose types the
// report holds to their directories in the module.
const module = "github.com/sealmark/sealmark"

var sources = []string{"internal/report", "packs", "observers"}

// generate is the schema file: report.JSONSchema with descriptions,
// indented, followed by a newline.
func generate() ([]byte, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	docs, err := fieldDocs(root)
	if err != nil {
		return nil, err
	}
	s, err := report.JSONSchema()
	if err != nil {
		return nil, err
	}
	describe(s.Defs["report"], reflect.TypeFor[report.Report](), docs)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	// jsonschema.Schema's own MarshalJSON escapes <, > and & (json.Marshal
	// does); the descriptions read better as written ("<redacted>").
	// Within JSON strings the two forms are the same text.
	out := buf.Bytes()
	for esc, c := range map[string]string{`\u003c`: "<", `\u003e`: ">", `\u0026`: "&"} {
		out = bytes.ReplaceAll(out, []byte(esc), []byte(c))
	}
	return out, nil
}

// moduleRoot is the nearest directory at or above the working directory
// holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// fieldDocs maps "importpath.Type.Field" to the field's doc comment (or
// its line comment), as one paragraph.
func fieldDocs(root string) (map[string]string, error) {
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, rel := range sources {
		dir := filepath.Join(root, rel)
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok {
					return true
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					return true
				}
				for _, fld := range st.Fields.List {
					text := fld.Doc.Text()
					if text == "" {
						text = fld.Comment.Text()
					}
					for _, id := range fld.Names {
						if text != "" {
							docs[module+"/"+rel+"."+ts.Name.Name+"."+id.Name] = strings.Join(strings.Fields(text), " ")
						}
					}
				}
				return true
			})
		}
	}
	return docs, nil
}

// describe sets the description of each property of s, the schema of
// struct type t, from its field's doc comment, and recurses into the
// fields' own structs (through pointers, slices and maps).
func describe(s *jsonschema.Schema, t reflect.Type, docs map[string]string) {
	for s != nil && t != nil {
		switch t.Kind() {
		case reflect.Pointer:
			t = t.Elem()
			continue
		case reflect.Slice, reflect.Array:
			s, t = s.Items, t.Elem()
			continue
		case reflect.Map:
			s, t = s.AdditionalProperties, t.Elem()
			continue
		case reflect.Struct:
			if t.PkgPath() == "time" {
				return
			}
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" || !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				p := s.Properties[name]
				if p == nil {
					continue
				}
				if d := docs[t.PkgPath()+"."+t.Name()+"."+f.Name]; d != "" && p.Description == "" {
					p.Description = d
				}
				describe(p, f.Type, docs)
			}
		}
		return
	}
}
