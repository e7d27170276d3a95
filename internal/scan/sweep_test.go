package scan

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/fixture"
)

// syncBuffer is a bytes.Buffer safe for the scan's workers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSweepIsNoServersLine: what a server's start removes of an earlier,
// dead run (here a sandbox whose owner pid now names another process) is
// logged as the scan's, not under the name of the server that happened to
// start first.
func TestSweepIsNoServersLine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run after a dead run's sandbox")
	}
	parent := t.TempDir()
	stale := filepath.Join(parent, "sealmark-0000000000000002")
	require.NoError(t, os.MkdirAll(stale, 0o700))
	owner := fmt.Sprintf("sealmark-owner 1\npid %d\nstart 1\nrun \n", os.Getpid())
	require.NoError(t, os.WriteFile(filepath.Join(stale, contain.OwnerFile), []byte(owner), 0o600))

	self, err := os.Executable()
	require.NoError(t, err)
	var log syncBuffer
	Run(context.Background(), []Entry{{Name: "notes", Source: "t", Key: "mcpServers", Type: "stdio", Command: self, Args: []string{fixture.Verb}}},
		&Options{Cwd: t.TempDir(), Fetcher: &Fetcher{Dir: t.TempDir(), Env: os.Environ()}, Log: &log,
			Flags: map[string]string{"packs": "core", "sandbox-dir": parent}})
	assert.NoDirExists(t, stale, "the dead run's sandbox is swept")
	var swept []string
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "stale run") {
			swept = append(swept, l)
		}
	}
	require.NotEmpty(t, swept, "the sweep is logged:\n%s", log.String())
	for _, l := range swept {
		assert.True(t, strings.HasPrefix(l, "sealmark: stale run: "), "a sweep line carries no server's name: %q", l)
	}
}
