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
		rep  *Report
	}{
		{"standard.txt.golden", sampleReport()},
		{"custom.txt.golden", customReport()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Finalize(tt.rep, sampleRedactor())
			var buf bytes.Buffer
			if err := WriteText(&buf, tt.rep); err != nil {
				t.Fatal(err)
			}
			assertGolden(t, buf.Bytes(), tt.name)
		})
	}
}
