package sarifcheck

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/realserver"
)

// ghProblem matches one line of the multitool's report: "file(line,col):
// error GH2012: runs[0]...".
var ghProblem = regexp.MustCompile(`\): (error|warning|note) ([A-Z]+[0-9]+): (.*)$`)

// GitHub validates raw with the SARIF multitool's GitHub rules (the rules
// code scanning enforces on upload, --rule-kind Gh) and returns its
// errors, one "GH2012: message" each; nil means none. It skips t when the
// multitool (testdata/npm/sarif-multitool) is not installed or this is not
// linux/amd64, the one build of it pinned; it fails t when the tool itself
// cannot run.
func GitHub(t testing.TB, raw []byte) []string {
	t.Helper()
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned SARIF multitool is the linux-x64 build; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	tool := realserver.SARIFMultitool.Script(t)
	dir := t.TempDir()
	in, out := filepath.Join(dir, "log.sarif"), filepath.Join(dir, "validation.sarif")
	if err := os.WriteFile(in, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, "validate", "--rule-kind", "Gh", "--log", "ForceOverwrite", "--output", out, in)
	cmd.Dir = dir
	// No telemetry, no first-run files in $HOME, no ICU needed.
	cmd.Env = append(os.Environ(), "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1",
		"DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1", "HOME="+dir)
	cmd.WaitDelay = 5 * time.Second
	stdout, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(stdout, []byte("Analysis completed successfully")) {
		t.Fatalf("the SARIF multitool did not run: %v\n%s", err, stdout)
	}
	var errs []string
	for line := range strings.SplitSeq(string(stdout), "\n") {
		if m := ghProblem.FindStringSubmatch(strings.TrimSpace(line)); m != nil && m[1] == "error" {
			errs = append(errs, m[2]+": "+m[3])
		}
	}
	return errs
}
