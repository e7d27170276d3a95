package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestReadJSONRoundTrip(t *testing.T) {
	for _, rep := range []*Report{sampleReport(), customReport()} {
		Finalize(rep, sampleRedactor())
		var first bytes.Buffer
		if err := WriteJSON(&first, rep); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(first.Bytes(), []byte("}\n")) {
			t.Errorf("JSON does not end in a newline: %q", first.Bytes()[max(0, first.Len()-10):])
		}
		got, err := ReadJSON(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("ReadJSON: %v", err)
		}
		if got.Class != rep.Class || got.Packs[0].Probes[0].ID != rep.Packs[0].Probes[0].ID || !got.Started.Equal(rep.Started) {
			t.Errorf("read back %+v, want %+v", got, rep)
		}
		var second bytes.Buffer
		if err := WriteJSON(&second, got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Errorf("round trip changed the report:\n--- written ---\n%s\n--- rewritten ---\n%s", first.Bytes(), second.Bytes())
		}
	}
}

func TestReadJSONIgnoresUnknownFields(t *testing.T) {
	rep, err := ReadJSON(strings.NewReader(`{"schema":"sealmark.report/v1","class":"STANDARD","futureField":{"x":1}}`))
	if err != nil {
		t.Fatalf("ReadJSON: %v", err)
	}
	if rep.Class != Standard {
		t.Errorf("Class = %q, want %q", rep.Class, Standard)
	}
}

func TestReadJSONRejects(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // each must appear in the error
	}{
		{"wrong schema", `{"schema":"sealmark.report/v2","class":"STANDARD"}`, []string{`"sealmark.report/v2"`, SchemaVersion}},
		{"other tool", `{"schema":"sarif-2.1.0"}`, []string{`"sarif-2.1.0"`, SchemaVersion}},
		{"no schema", `{"class":"STANDARD"}`, []string{"no schema", SchemaVersion}},
		{"not an object", `[1,2]`, []string{"read JSON"}},
		{"not JSON", `sealmark dev — STANDARD`, []string{"read JSON"}},
		{"empty", ``, []string{"read JSON"}},
		{"trailing data", `{"schema":"sealmark.report/v1"} {}`, []string{"read JSON"}},
		{"bad severity", `{"schema":"sealmark.report/v1","packs":[{"probes":[{"severity":"dire"}]}]}`, []string{"dire"}},
	}
	for _, tt := range tests {
		rep, err := ReadJSON(strings.NewReader(tt.in))
		if err == nil {
			t.Errorf("%s: ReadJSON = %+v, want an error", tt.name, rep)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tt.name, err, w)
			}
		}
	}
}

// spaces is an endless stream of spaces that counts what was read.
type spaces struct{ n int64 }

func (s *spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	s.n += int64(len(p))
	return len(p), nil
}

func TestReadJSONIsBounded(t *testing.T) {
	tail := &spaces{}
	in := io.MultiReader(strings.NewReader(`{"schema":"sealmark.report/v1"}`), tail)
	_, err := ReadJSON(in)
	if err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Fatalf("ReadJSON(endless input) error = %v, want one about the 64 MiB bound", err)
	}
	if tail.n > MaxJSONBytes+64<<10 {
		t.Errorf("read %d bytes of an endless input, want at most about %d", tail.n, MaxJSONBytes)
	}
}

func TestWriteJSONDoesNotEscapeMasks(t *testing.T) {
	rep := &Report{Class: Standard, Server: Server{Env: []EnvEntry{{Name: "API_KEY", Value: "<redacted>"}}}}
	Finalize(rep, nil)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"value": "<redacted>"`) {
		t.Errorf("mask not written as is:\n%s", buf.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func TestWritersReportWriteErrors(t *testing.T) {
	rep := sampleReport()
	Finalize(rep, nil)
	if err := WriteJSON(failingWriter{}, rep); err == nil {
		t.Error("WriteJSON to a failing writer returned nil")
	}
	if err := WriteText(failingWriter{}, rep); err == nil {
		t.Error("WriteText to a failing writer returned nil")
	}
}
