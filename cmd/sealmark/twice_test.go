package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/reportcmp"
)

// TestEverythingTwiceIsTheSame runs the core pack twice against the real
// server-everything, over stdio and started for its streamable HTTP URL:
// the two JSON reports are identical apart from timing fields (started,
// finished, millis, each record's time) and the kernel's numbers for the
// same things (a pid, an inode, the ephemeral port of the server's listener
// in an observation's evidence), so a diff or a baseline sees only what
// changed in the server. Finding messages and fingerprints carry none of
// these.
//
// One count is the server's own and varies: once the tool sweep calls
// toggle-simulated-logging, server-everything sends a log notification at a
// random level every 5 s (its server/logging.js), filtered by the level
// the harness set, so how many stdout lines it wrote, and the line number
// of a later frame quoted in evidence, differ between two runs. Those
// numbers are masked (stdoutCounts); the lines and messages themselves are
// still compared.
func TestEverythingTwiceIsTheSame(t *testing.T) {
	t.Parallel() // its runs are sandboxed and mostly wait on the server
	node, js := everythingServer(t)
	for name, args := range map[string][]string{
		"stdio": {"--", node, js, "stdio"},
		"http":  {"--env", "PORT={port}", "--start", node + " " + js + " streamableHttp", "--url", "http://127.0.0.1:{port}/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the two transports' runs are apart: their own sandboxes and ports
			var reports [2]string
			for i := range reports {
				path := filepath.Join(t.TempDir(), "r.json")
				code, out, errOut := sealmark(t, append([]string{"run", "--quiet", "--packs", "core", "--sandbox-dir", t.TempDir(),
					"--timeout", "30s", "--json", path}, args...)...)
				require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
				raw, err := os.ReadFile(path)
				require.NoError(t, err)
				reports[i], err = reportcmp.Timeless(raw)
				require.NoError(t, err)
				reports[i] = stdoutCounts.ReplaceAllStringFunc(reports[i], func(m string) string { return digits.ReplaceAllString(m, "N") })
			}
			assert.Equal(t, reports[0], reports[1])
		})
	}
}

// stdoutCounts finds the numbers that count or place stdout lines: "line 28:"
// in evidence, "66 stdout lines", "66 messages checked".
var (
	stdoutCounts = regexp.MustCompile(`line \d+: |\b\d+ (?:stdout lines|messages checked)`)
	digits       = regexp.MustCompile(`\d+`)
)
