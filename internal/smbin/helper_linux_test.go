package smbin

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSelfCheckWaitsOutABusyCopy: a copy still open for writing somewhere
// (a child forked while it was being written holds the descriptor until
// it execs) fails to start with ETXTBSY for a moment; the self-check tries
// again rather than blaming the binary.
func TestSelfCheckWaitsOutABusyCopy(t *testing.T) {
	c := testCache(t)
	src, err := c.binary()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), HelperName)
	if err := copyExecutable(src, p); err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, func() { w.Close() })
	if err := selfCheck(p); err != nil {
		t.Errorf("selfCheck of a copy busy for 100 ms: %v", err)
	}
}
