package report

import (
	"bytes"
	"testing"

	"gotest.tools/v3/golden"
)

// assertGolden compares got with testdata/name, byte for byte, showing
// the difference when they differ. gotest.tools/v3/golden owns the -update
// flag that rewrites the golden files instead:
//
//	go test ./internal/report/ -run Golden -update
func assertGolden(t *testing.T, got []byte, name string) {
	t.Helper()
	golden.Assert(t, string(got), name)
}

func TestWriteJSONGolden(t *testing.T) {
	rep := sampleReport()
	Finalize(rep, sampleRedactor())
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	assertGolden(t, buf.Bytes(), "standard.json.golden")
}

func TestWriteTextGolden(t *testing.T) {
	tests := []struct {
		name string
		rep  func() *Report
		opts TextOptions
	}{
		{"standard.txt.golden", sampleReport, TextOptions{}},
		{"custom.txt.golden", customReport, TextOptions{}},
		{"standard.verbose.txt.golden", sampleReport, TextOptions{Verbose: true}},
		{"custom.verbose.txt.golden", customReport, TextOptions{Verbose: true}},
		{"custom.color.txt.golden", customReport, TextOptions{Color: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := tt.rep()
			Finalize(rep, sampleRedactor())
			var buf bytes.Buffer
			if err := WriteTextWith(&buf, rep, tt.opts); err != nil {
				t.Fatal(err)
			}
			assertGolden(t, buf.Bytes(), tt.name)
		})
	}
}
