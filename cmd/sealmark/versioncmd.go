package main

import (
	"fmt"
	"io"

	"github.com/sealmark/sealmark/internal/report"
)

// versionCmd prints "sealmark VERSION": the release a release build names
// (GoReleaser sets main.version with -ldflags "-X main.version=v1.4.0", see
// .goreleaser.yaml), else what the build information says (the module's
// version for go install ...@v1.4.0, or the commit of a build from a
// checkout: devel-3f1c0e9a7b2d).
func versionCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "sealmark version: takes no arguments, got %q\n", args)
		return report.ExitUsage
	}
	fmt.Fprintf(stdout, "sealmark %s\n", version)
	return report.ExitClean
}
