package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/quota"
	"github.com/sealmark/sealmark/internal/smbin"
)

// victimEnv, naming a parent directory, makes the test binary a harness
// that makes a sandbox with a quota there, prints its top and waits to be
// killed (TestQuotaGoneAfterSIGKILL).
const victimEnv = "SANDBOX_TEST_VICTIM_PARENT"

// TestMain lets this test binary act as the sm-* programs bin/ links to.
func TestMain(m *testing.M) {
	smbin.Dispatch()
	if parent := os.Getenv(victimEnv); parent != "" {
		os.Exit(victim(parent))
	}
	os.Exit(m.Run())
}

func victim(parent string) int {
	s, err := New(Options{Parent: parent, MaxBytes: 8 << 20})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	if os.Getenv(victimEnv+"_OWNER") != "" {
		if err := os.WriteFile(filepath.Join(s.Top, quota.KeptFile), []byte("owner\n"), 0o600); err != nil {
			fmt.Println("error:", err)
			return 1
		}
	}
	fmt.Println(s.Top, s.Quota)
	time.Sleep(time.Minute)
	return 0
}
