package smbin_test

import (
	"os"

	"github.com/sealmark/sealmark/internal/smbin"
)

func ExampleRun() {
	smbin.Run("sm-echo", []string{"a b", "; sm-canary"}, os.Stdout, os.Stderr)
	smbin.Run("sm-canary", []string{"tok-42"}, os.Stdout, os.Stderr)
	// Output:
	// ["a b","; sm-canary"]
	// SEALMARK-CANARY-EXECUTED tok-42
}
