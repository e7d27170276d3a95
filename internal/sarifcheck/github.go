package sarifcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
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
// errors, one "GH2012: message" each, after the upload rules the multitool
// does not check (see uploadable); nil means none. It skips t when the
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
	errs := uploadable(raw)
	for line := range strings.SplitSeq(string(stdout), "\n") {
		if m := ghProblem.FindStringSubmatch(strings.TrimSpace(line)); m != nil && m[1] == "error" {
			errs = append(errs, m[2]+": "+m[3])
		}
	}
	return errs
}

// uploadable checks what code scanning's upload enforces and the
// multitool's GitHub rules do not: every result has a location with a
// physicalLocation.artifactLocation.uri. One result without fails the
// whole upload ("locationFromSarifResult: expected at least one location",
// "expected a physical location").
func uploadable(raw []byte) []string {
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation *struct {
						ArtifactLocation struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &log); err != nil {
		return []string{"UPLOAD: the log does not parse: " + err.Error()}
	}
	var errs []string
	for ri, run := range log.Runs {
		for i, res := range run.Results {
			ok := len(res.Locations) > 0
			for _, l := range res.Locations {
				ok = ok && l.PhysicalLocation != nil && l.PhysicalLocation.ArtifactLocation.URI != ""
			}
			if !ok {
				errs = append(errs, fmt.Sprintf("UPLOAD: runs[%d].results[%d] (%s) names no file (physicalLocation.artifactLocation.uri): code scanning refuses the whole upload", ri, i, res.RuleID))
			}
		}
	}
	return errs
}
