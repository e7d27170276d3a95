package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/scan"
)

// sarifRun is what code scanning reads of a SARIF log's runs.
type sarifRun struct {
	AutomationDetails struct{ ID string } `json:"automationDetails"`
	Results           []struct {
		Locations []struct {
			PhysicalLocation *struct {
				ArtifactLocation struct {
					URI       string `json:"uri"`
					URIBaseID string `json:"uriBaseId"`
				} `json:"artifactLocation"`
			} `json:"physicalLocation"`
		} `json:"locations"`
	} `json:"results"`
}

// runIn runs the CLI in a subprocess started in dir (sealmark run reads
// its working directory) and returns its exit code and stderr.
func runIn(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	self, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(self, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), cliEnv+"=1", "SEALMARK_CONFIG=")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !assert.ErrorAs(t, err, &exit) {
		return -1, errb.String()
	}
	return cmd.ProcessState.ExitCode(), errb.String()
}

func readSARIFRun(t *testing.T, path string) sarifRun {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var log struct{ Runs []sarifRun }
	require.NoError(t, json.Unmarshal(raw, &log))
	require.Len(t, log.Runs, 1)
	require.NotEmpty(t, log.Runs[0].Results, "the fixture echoes the canary: one result at least")
	return log.Runs[0]
}

// TestSARIFLocationAndCategory runs one built binary, spelled three ways
// from three directories: its results are located at the project's
// manifest or the config file, never at the binary, and its category is
// the same every time; outside a repository, with nothing to name, a
// warning says why.
func TestSARIFLocationAndCategory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: one built binary run three ways for its SARIF locations")
	}
	t.Parallel()
	self, err := os.Executable()
	require.NoError(t, err)
	repo := t.TempDir()
	for _, d := range []string{".git", "bin", "deploy", "cmd"} {
		require.NoError(t, os.Mkdir(filepath.Join(repo, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module example.com/notes\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "deploy", "sealmark.yaml"), []byte("fail_on: high\n"), 0o644))
	// The built server: git ignores bin/ in a real project.
	require.NoError(t, os.Symlink(self, filepath.Join(repo, "bin", "notes-server")))
	outside := t.TempDir() // no .git at or above, no manifest, no config

	out := t.TempDir()
	server := []string{fixture.Verb, "-flaws=echo-canary"}
	for _, tc := range []struct {
		name, dir, program string
		config             string
		want               string // the results' file; "" for none
	}{
		{"from the root", repo, "./bin/notes-server", "", "go.mod"},
		{"from a subdirectory, relative", filepath.Join(repo, "cmd"), "../bin/notes-server", "", "go.mod"},
		{"where ./sealmark.yaml is read", filepath.Join(repo, "deploy"), "../bin/notes-server", "", "deploy/sealmark.yaml"},
		{"from the root, no ./", repo, "bin/notes-server", "", "go.mod"},
		{"with --config", filepath.Join(repo, "cmd"), filepath.Join(repo, "bin", "notes-server"), "../deploy/sealmark.yaml", "deploy/sealmark.yaml"},
		{"outside a repository", outside, filepath.Join(repo, "bin", "notes-server"), "", ""},
	} {
		sarif := filepath.Join(out, strings.NewReplacer(" ", "-", "/", "-").Replace(tc.name)+".sarif")
		args := []string{"run", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s", "--probes", "CORE-SECRET-ECHO", "--sarif", sarif}
		if tc.config != "" {
			args = append(args, "--config", tc.config)
		}
		code, errOut := runIn(t, tc.dir, append(append(args, "--", tc.program), server...)...)
		require.Equal(t, 1, code, "%s: %s", tc.name, errOut)
		run := readSARIFRun(t, sarif)
		assert.Equal(t, "sealmark/notes-server/", run.AutomationDetails.ID, "%s: the category, however the command is spelled", tc.name)
		loc := run.Results[0].Locations[0].PhysicalLocation
		if tc.want == "" {
			assert.Nil(t, loc, "%s: a file outside any repository", tc.name)
			assert.Contains(t, errOut, "warning: the SARIF results have no file location (no config file was read, and no project manifest", tc.name)
			assert.Contains(t, errOut, "not inside a git repository", tc.name)
			continue
		}
		if assert.NotNil(t, loc, tc.name) {
			assert.Equal(t, tc.want, loc.ArtifactLocation.URI, "%s: never the binary", tc.name)
			assert.Equal(t, "%SRCROOT%", loc.ArtifactLocation.URIBaseID, tc.name)
		}
		assert.NotContains(t, errOut, "no file location", tc.name)
	}

	// --sarif-category wins over the default.
	sarif := filepath.Join(out, "category.sarif")
	code, errOut := runIn(t, repo, append([]string{"run", "--sandbox-dir", t.TempDir(), "--call-timeout", "2s", "--probes", "CORE-SECRET-ECHO",
		"--sarif", sarif, "--sarif-category", "mcp/notes", "--", "./bin/notes-server"}, server...)...)
	require.Equal(t, 1, code, errOut)
	assert.Equal(t, "mcp/notes/", readSARIFRun(t, sarif).AutomationDetails.ID)
}

// TestScanSARIFOptions: a scanned server's results are located at the
// client configuration that lists it when that file is in the
// repository; a server whose configuration lives elsewhere, with no
// manifest either, gets a warning naming it.
func TestScanSARIFOptions(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".vscode"), 0o755))
	inRepo := filepath.Join(repo, ".vscode", "mcp.json")
	require.NoError(t, os.WriteFile(inRepo, []byte("{}"), 0o644))
	home := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	require.NoError(t, os.WriteFile(home, []byte("{}"), 0o644))
	entries := []scan.Entry{
		{Name: "notes", Source: inRepo, Command: "npx", Args: []string{"-y", "notes-server"}},
		{Name: "files", Source: home, Command: "uvx", Args: []string{"files-server"}},
	}
	var stderr bytes.Buffer
	opts := scanSARIFOptions(entries, "mcp", repo, &stderr)
	assert.Equal(t, "mcp", opts.Category)
	assert.Equal(t, ".vscode/mcp.json", opts.Servers["notes"].ArtifactURI)
	assert.Empty(t, opts.Servers["files"].ArtifactURI, "a configuration outside the repository, and no manifest")
	assert.Contains(t, opts.Servers["files"].NoArtifact, "is outside the repository "+repo)
	assert.Contains(t, stderr.String(), "sealmark scan: warning: the SARIF results of files have no file location")
	assert.NotContains(t, stderr.String(), "of notes")

	// With a manifest in the repository, the server configured elsewhere
	// is located there.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "package.json"), []byte("{}"), 0o644))
	stderr.Reset()
	opts = scanSARIFOptions(entries, "", repo, &stderr)
	assert.Equal(t, "package.json", opts.Servers["files"].ArtifactURI)
	assert.Empty(t, stderr.String())
}
