package main

import (
	"os"
	"path/filepath"
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
func TestEverythingTwiceIsTheSame(t *testing.T) {
	node, js := everythingServer(t)
	for name, args := range map[string][]string{
		"stdio": {"--", node, js, "stdio"},
		"http":  {"--env", "PORT={port}", "--start", node + " " + js + " streamableHttp", "--url", "http://127.0.0.1:{port}/mcp"},
	} {
		t.Run(name, func(t *testing.T) {
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
			}
			assert.Equal(t, reports[0], reports[1])
		})
	}
}
