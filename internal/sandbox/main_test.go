package sandbox

import (
	"os"
	"testing"

	"github.com/sealmark/sealmark/internal/smbin"
)

// TestMain lets this test binary act as the sm-* programs bin/ links to.
func TestMain(m *testing.M) {
	smbin.Dispatch()
	os.Exit(m.Run())
}
