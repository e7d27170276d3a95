package catalogue

import (
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/config"
)

// TestConfigChecksRowsAtTheirLine pins that the configuration, which knows
// no pack, still names a bad table row at its line through the table
// pack's check the catalogue gives it, and accepts a good one.
func TestConfigChecksRowsAtTheirLine(t *testing.T) {
	bad := "server:\n  command: x\nprobes:\n  - name: Bad Name\n    tool: read_note\n    expect: [refused]\n"
	_, _, err := config.Parse("sealmark.yaml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), `sealmark.yaml:4: probes: row Bad Name: the name "Bad Name" is not kebab-case`) {
		t.Errorf("Parse of a bad row = %v, want it named at line 4", err)
	}
	good := strings.Replace(bad, "Bad Name", "refuses-dotdot", 1)
	if _, _, err := config.Parse("sealmark.yaml", []byte(good)); err != nil {
		t.Errorf("Parse of a good row: %v", err)
	}
}
