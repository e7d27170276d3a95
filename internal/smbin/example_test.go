package smbin_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/sealmark/sealmark/internal/smbin"
)

func ExampleRun() {
	smbin.Run("sm-echo", []string{"a b", "; sm-canary"}, os.Stdout, os.Stderr)
	smbin.Run("sm-canary", []string{"tok-42"}, os.Stdout, os.Stderr)
	// Output:
	// ["a b","; sm-canary"]
	// SEALMARK-CANARY-EXECUTED tok-42
}

// A bin directory as a sandbox makes it: the helper, and each program a
// link to it. (Not run by go test: it builds the helper when the cache has
// none.)
func ExampleInstallHelper() {
	bin, err := os.MkdirTemp("", "bin-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(bin)
	helper, err := smbin.InstallHelper(bin)
	if err != nil {
		fmt.Println("no helper; link bin/sm-* to the harness binary instead:", err)
		return
	}
	for _, n := range smbin.Names {
		if err := os.Symlink(filepath.Base(helper), filepath.Join(bin, n)); err != nil {
			panic(err)
		}
	}
	out, _ := exec.Command(filepath.Join(bin, "sm-echo"), "a b").Output()
	fmt.Print(string(out)) // ["a b"]
}
