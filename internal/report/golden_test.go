package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// updateGoldenEnv rewrites the golden files instead of comparing with them:
//
//	SEALMARK_UPDATE_GOLDEN=1 go test ./internal/report/
//
// An environment variable, not a flag: gotest.tools/v3/golden owns -update,
// and a second -update flag panics. (gotest.tools needs go-cmp, which go.sum
// does not hold yet; once it does, assertGolden can become golden.Assert.)
const updateGoldenEnv = "SEALMARK_UPDATE_GOLDEN"

// assertGolden compares got with testdata/name.
func assertGolden(t *testing.T, got []byte, name string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv(updateGoldenEnv) != "" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("update %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file: %v (run with %s=1 to create it)", err, updateGoldenEnv)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("%s: line %d differs (run with %s=1 to accept)\n got: %q\nwant: %q\n--- got ---\n%s", path, i+1, updateGoldenEnv, g, w, got)
			return
		}
	}
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
