package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			var reports [2]any
			for i := range reports {
				path := filepath.Join(t.TempDir(), "r.json")
				code, out, errOut := sealmark(t, append([]string{"run", "--quiet", "--packs", "core", "--sandbox-dir", t.TempDir(),
					"--timeout", "30s", "--json", path}, args...)...)
				require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
				raw, err := os.ReadFile(path)
				require.NoError(t, err)
				require.NoError(t, json.Unmarshal(raw, &reports[i]))
				reports[i] = withoutTiming(reports[i])
			}
			a, _ := json.MarshalIndent(reports[0], "", " ")
			b, _ := json.MarshalIndent(reports[1], "", " ")
			assert.Equal(t, string(a), string(b))
		})
	}
}

// kernelNumbers are a pid or a port in an observation's text.
var kernelNumbers = regexp.MustCompile(`(pid |\]:|\d:)\d+`)

// withoutTiming drops the timing fields from a decoded JSON report, and
// the kernel's numbers from observation records and evidence.
func withoutTiming(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"started", "finished", "millis", "time"} {
			delete(v, k)
		}
		if data, ok := v["data"].(map[string]any); ok && v["kind"] != nil {
			for _, k := range []string{"pid", "ppid", "inode", "port"} {
				delete(data, k)
			}
		}
		for _, k := range []string{"summary", "detail"} {
			if s, ok := v[k].(string); ok {
				v[k] = kernelNumbers.ReplaceAllString(s, "${1}N")
			}
		}
		for k, x := range v {
			v[k] = withoutTiming(x)
		}
	case []any:
		for i, x := range v {
			v[i] = withoutTiming(x)
		}
	}
	return v
}
