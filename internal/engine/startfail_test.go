package engine_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
)

// elapsed stands for the time a failed start took, which varies.
var elapsed = regexp.MustCompile(`after [0-9.]+m?s before`)

// TestStartFailureSaysWhy: a server that needs a host socket, a lock
// directory and a cache file outside the sandbox, and exits when
// containment refuses them, ends
// as a start error that says, word for word, that it exited, with its
// status and after how long (not "within 5s"), what containment refused
// while it started, what to do, and the end of its log. No prefix is
// doubled.
func TestStartFailureSaysWhy(t *testing.T) {
	sock := newHostSocket(t, t.TempDir())
	cache := filepath.Join(t.TempDir(), "cache.txt")
	require.NoError(t, os.WriteFile(cache, []byte("old\n"), 0o644))
	cfg := fixtureConfig(t, "die-at-start")
	cfg.Args = append(cfg.Args, "-unix-socket", sock.path, "-outside-file", cache)
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	iso := rep.Sandbox.Isolation
	for _, layer := range []string{"mounts=ro-host", "unix=sandbox-only"} {
		if !strings.Contains(iso, layer) {
			t.Skipf("needs %s: %s", layer, iso)
		}
	}
	want := "pack core: the server exited with status 3 after {elapsed} before answering initialize; " +
		"containment refused, while it started: connect unix " + sock.path + ": refused (outside the sandbox); " +
		"mkdir " + cache + ".lock: refused (outside the sandbox); " +
		"open " + cache + " (O_WRONLY|O_CREAT|O_TRUNC): refused (outside the sandbox). " +
		"If the server needs these: declare a database or socket it must reach (sandbox.services, --service), " +
		"stage the files it reads at start into the sandbox (server.files) and point its paths at {sandbox}, " +
		"or, as the last resort, turn a layer off (--layers-off; the run becomes CUSTOM)\n" +
		"server log (last lines):\n" +
		"starting\n" +
		"database: dial unix " + sock.path + ": connect: permission denied\n" +
		"lock: mkdir " + cache + ".lock: read-only file system\n" +
		"cache: open " + cache + ": read-only file system\n" +
		"fatal: cannot start\n"
	got := elapsed.ReplaceAllString(rep.HarnessError, "after {elapsed} before")
	// the report may name the argument's directory by a stable name
	got = strings.ReplaceAll(got, "{install}/cache.txt", cache)
	assert.Equal(t, want, got)
	assert.False(t, sock.reached(), "the host socket was reached")
	b, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(b), "the cache file outside the sandbox changed")
	assert.NoDirExists(t, cache+".lock", "the lock directory outside the sandbox was made")
}

// TestStartFailureUncontained: the same server with the layers off reaches
// the socket and writes the file, then exits all the same: the message
// says it exited, and quotes nothing as refused.
func TestStartFailureUncontained(t *testing.T) {
	sock := newHostSocket(t, t.TempDir())
	cache := filepath.Join(t.TempDir(), "cache.txt")
	require.NoError(t, os.WriteFile(cache, []byte("old\n"), 0o644))
	cfg := fixtureConfig(t, "die-at-start")
	cfg.Args = append(cfg.Args, "-unix-socket", sock.path, "-outside-file", cache)
	cfg.LayersOff = []string{"landlock", "seccomp", "namespaces"}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	want := "pack core: the server exited with status 3 after {elapsed} before answering initialize\n" +
		"server log (last lines):\n" +
		"starting\n" +
		"database: <nil>\n" +
		"lock: <nil>\n" +
		"cache: <nil>\n" +
		"fatal: cannot start\n"
	assert.Equal(t, want, elapsed.ReplaceAllString(rep.HarnessError, "after {elapsed} before"))
	assert.True(t, sock.reached(), "the uncontained server did not reach the socket")
	b, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.Equal(t, "cache\n", string(b))
	assert.DirExists(t, cache+".lock")
}

// TestStartFailureWords: each way a start fails says what happened, once,
// word for word: a server that exits (its status, after how long), one
// that never answers (the bound and the setting to raise), one whose
// initialize answer is over the message limit (at once, not at the
// bound), a URL where nothing listens; no prefix is doubled.
func TestStartFailureWords(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: each way a start fails, waited out")
	}
	t.Run("exits", func(t *testing.T) {
		cfg := fixtureConfig(t, "")
		cfg.Command, cfg.Args = "sh", []string{"-c", "sleep 0.1; exit 2"}
		rep := runOnce(t, cfg)
		assert.Regexp(t, `^pack core: the server exited with status 2 after \d+\.\d+s before answering initialize \(the server log is empty\)$`, rep.HarnessError)
	})
	t.Run("never-answers", func(t *testing.T) {
		cfg := fixtureConfig(t, "hang-init")
		cfg.StartTimeout = 2 * time.Second
		rep := runOnce(t, cfg)
		assert.Equal(t, "pack core: no answer to initialize within 2s: raise timeouts.start (--timeout) if the server needs longer to start\n"+
			"server log (last lines):\nsealmark-fixture ready\n", rep.HarnessError)
	})
	t.Run("huge-init", func(t *testing.T) {
		cfg := fixtureConfig(t, "huge-init")
		cfg.StartTimeout = time.Minute
		begun := time.Now()
		rep := runOnce(t, cfg)
		assert.Equal(t, "pack core: the answer to initialize was over the 8 MiB message limit, so the harness stopped reading it\n"+
			"server log (last lines):\nsealmark-fixture ready\n", rep.HarnessError)
		// A bound far from the start timeout, not a speed test: the
		// answer already came, so nothing waits for it.
		assert.Less(t, time.Since(begun), cfg.StartTimeout/3, "the run waited for an answer that had come")
	})
	t.Run("started-exits", func(t *testing.T) {
		cfg := fixtureConfig(t, "")
		cfg.Command, cfg.Args = "", nil
		cfg.Start, cfg.URL = "sh -c 'sleep 0.1; exit 3'", "http://127.0.0.1:{port}/mcp"
		rep := runOnce(t, cfg)
		assert.Regexp(t, `^pack core: server\.start: the server exited with status 3 after \d+\.\d+s before 127\.0\.0\.1:\d+ accepted connections \(the server log is empty\)$`, rep.HarnessError)
	})
	t.Run("started-never-listens", func(t *testing.T) {
		cfg := fixtureConfig(t, "")
		cfg.Command, cfg.Args = "", nil
		cfg.Start, cfg.URL, cfg.StartTimeout = "sleep 60", "http://127.0.0.1:{port}/mcp", 2*time.Second
		rep := runOnce(t, cfg)
		assert.Regexp(t, `^pack core: server\.start: nothing listened on 127\.0\.0\.1:\d+ within 2s: raise timeouts\.start \(--timeout\) if the server needs longer to start \(the server log is empty\)$`, rep.HarnessError)
	})
	t.Run("nothing-listens", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close()) // a loopback port nothing listens on
		cfg := fixtureConfig(t, "")
		cfg.Command, cfg.Args, cfg.URL = "", nil, "http://"+addr+"/mcp"
		rep := runOnce(t, cfg)
		assert.Equal(t, "pack core: nothing listens on "+addr+": start the server first, or give server.start (--start) to have it started in the sandbox", rep.HarnessError)
	})
}

// runOnce runs cfg's packs once and returns the report.
func runOnce(t *testing.T, cfg engine.Config) *report.Report {
	t.Helper()
	cfg.Packs = []string{"core"}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	return e.Run(t.Context(), engine.Hooks{})
}
