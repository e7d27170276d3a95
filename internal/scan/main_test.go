package scan

import (
	"os"
	"testing"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
)

// TestMain lets the test binary serve as the containment shim, the sm-*
// programs and the fixture server the benchmark scans.
func TestMain(m *testing.M) {
	report.SetWriteCheck(report.ValidateJSON) // every report a test writes matches the published schema
	contain.Dispatch()
	smbin.Dispatch()
	fixture.Dispatch()
	os.Exit(m.Run())
}
