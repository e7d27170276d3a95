package scan

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStepsNameFetchAndEachPack: Options.Step hears a server's fetch and
// each pack it runs, numbered, so a long fetch or run shows progress.
func TestStepsNameFetchAndEachPack(t *testing.T) {
	var mu sync.Mutex
	var steps []string
	step := func(server, what string) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, server+": "+what)
	}
	fakeTool(t, "npm", `echo "npm error 404 Not Found" >&2; exit 1`)
	Run(context.Background(), []Entry{{Name: "x", Type: "stdio", Command: "npx", Args: []string{"-y", "nope@1.0.0"}}},
		&Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: t.TempDir(), Env: os.Environ()}, Step: step})
	assert.Equal(t, []string{"x: fetching nope@1.0.0"}, steps)

	self, err := os.Executable()
	require.NoError(t, err)
	steps = nil
	Run(context.Background(), []Entry{{Name: "f", Source: "t", Key: "mcpServers", Type: "stdio", Command: self, Args: []string{fixture.Verb}}},
		&Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: t.TempDir(), Env: os.Environ()}, Step: step, Flags: map[string]string{"packs": "core"}})
	assert.Equal(t, []string{"f: pack 1/1 core"}, steps)
}
