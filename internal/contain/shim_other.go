//go:build !linux

package contain

import (
	"fmt"
	"os"
	"runtime"
)

func shimMain([]string) int {
	fmt.Fprintf(os.Stderr, "sealmark-contain: no shim on %s\n", runtime.GOOS)
	return 125
}
