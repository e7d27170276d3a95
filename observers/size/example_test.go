package size_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sealmark/sealmark/observers/size"
)

func ExampleStart() {
	top, _ := os.MkdirTemp("", "sandbox")
	defer os.RemoveAll(top)
	w := size.Start(size.Options{
		Top:      top,
		MaxBytes: 64 << 10,
		OnExceed: func(total int64) { /* stop the sandbox's processes */ },
	})
	w.Begin("probe-1")
	// The probe makes the server write 1 MiB into the sandbox.
	_ = os.WriteFile(filepath.Join(top, "big.bin"), make([]byte, 1<<20), 0o600)
	for _, r := range w.Collect("probe-1") {
		fmt.Println(r.Kind, r.Data["op"], r.Data["limit"])
	}
	w.Close()
	// Output: size exceeded 65536
}
