package session_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/session"
)

// The test binary doubles as a tiny server: it asks the client for
// sampling, logs what the client answered to stderr, and answers every
// request with an empty result.
func TestMain(m *testing.M) {
	fixture.Dispatch()
	if os.Getenv("SESSION_TEST_CHILD") == "slow" {
		slowChild() // handshake_test.go
		os.Exit(0)
	}
	if os.Getenv("SESSION_TEST_CHILD") == "huge" {
		hugeChild() // cut_child_test.go
		os.Exit(0)
	}
	if os.Getenv("SESSION_TEST_CHILD") == "1" {
		fmt.Println(`{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}}`)
		in := bufio.NewScanner(os.Stdin)
		for in.Scan() {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(in.Bytes(), &msg) != nil {
				continue
			}
			switch {
			case string(msg.ID) == `"srv-1"`:
				fmt.Fprintf(os.Stderr, "GOT %s\n", in.Bytes())
			case msg.Method != "" && msg.ID != nil:
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", msg.ID)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func start(t *testing.T) (*launch.Process, *session.Session) {
	self, err := os.Executable()
	require.NoError(t, err)
	proc, err := launch.Start(launch.Spec{Path: self, Env: []string{"SESSION_TEST_CHILD=1"}, Dir: t.TempDir()})
	require.NoError(t, err)
	s := session.Open(proc)
	t.Cleanup(func() {
		s.Close()
		proc.Stop(time.Second, time.Second)
	})
	return proc, s
}

// TestServerRequestsAreDeclined: the harness declares no capability, so a
// sampling request is recorded and answered with an error.
func TestServerRequestsAreDeclined(t *testing.T) {
	proc, s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := s.Request(ctx, "ping", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(res.Result))

	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(string(proc.Log().Bytes()), "GOT") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.Contains(t, string(proc.Log().Bytes()), `"code":-32601`, "the sampling request got an error")
	assert.Equal(t, []string{"sampling/createMessage"}, s.ServerRequests())
}

// TestDescribeNamesTheRequest: a response frame is traced back to the
// harness request it answers; a server request frame is not.
func TestDescribeNamesTheRequest(t *testing.T) {
	_, s := start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Request(ctx, "tools/call", map[string]any{"name": "read_note", "arguments": map[string]any{}})
	require.NoError(t, err)
	var described []string
	for _, f := range s.Frames(0) {
		described = append(described, s.Describe(f))
	}
	assert.Equal(t, []string{"", "tools/call read_note"}, described)
}

// TestDeadIsClosed: once the server is gone, a request fails at once with
// the exit status, and Alive says so.
func TestDeadIsClosed(t *testing.T) {
	proc, s := start(t)
	require.NoError(t, proc.CloseStdin())
	require.True(t, proc.WaitExit(5*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := s.Request(ctx, "ping", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exit status 0")
	assert.False(t, s.Alive())
}

// TestEraRace: a server slower to start (slow-start: 1.5 s) than the wait
// for server/discover (100 ms here) gets initialize beside the discover. A
// modern-only server's DiscoverResult still wins (it refuses initialize),
// a legacy server's -32601 still leads to its initialize, one that ignores
// the discover gets the legacy handshake, and a dual-era server, which
// answers both, is ErrBothEras: its session may be in either era, and the
// caller starts it afresh (InitializeAs), which gives a clean modern
// session.
func TestEraRace(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a slow-starting server against the discover wait")
	}
	saved := session.DiscoverBound
	session.DiscoverBound = 100 * time.Millisecond
	t.Cleanup(func() { session.DiscoverBound = saved })
	self, err := os.Executable()
	require.NoError(t, err)
	open := func(flaws string) *session.Session {
		proc, err := launch.Start(launch.Spec{Path: self, Args: []string{fixture.Verb, "-flaws=" + flaws}, Dir: t.TempDir()})
		require.NoError(t, err)
		s := session.Open(proc)
		t.Cleanup(func() {
			s.Close()
			proc.Stop(time.Second, time.Second)
		})
		return s
	}
	for _, tc := range []struct {
		flaws, want string
		both        bool
	}{
		{"modern,slow-start", "2026-07-28", false},
		{"slow-start", "2025-11-25", false},
		{"no-unknown-method-answer,slow-start", "2025-11-25", false},
		{"modern-dual-era,slow-start", "2026-07-28", true},
	} {
		s := open(tc.flaws)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		in, err := s.Initialize(ctx, session.LegacyVersion)
		cancel()
		assert.Equal(t, tc.both, s.Negotiated().BothEras, "fixture -flaws=%q", tc.flaws)
		if tc.both {
			require.ErrorIs(t, err, session.ErrBothEras)
			s = open("modern-dual-era")
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			in, err = s.InitializeAs(ctx, session.EraModern, session.LegacyVersion)
			cancel()
			require.NoError(t, err)
			res, err := s.Request(context.Background(), "tools/list", nil)
			require.NoError(t, err)
			assert.Contains(t, string(res.Result), `"resultType":"complete"`, "the fresh start's session is modern")
		}
		require.NoError(t, err, tc.flaws)
		assert.Equal(t, tc.want, in.Version, "fixture -flaws=%q", tc.flaws)
		assert.Equal(t, "sealmark-fixture", in.Server.Name)
	}
}

// TestDiscoverIgnored: a legacy server that ignores server/discover gets
// the legacy handshake once DiscoverBound passes, and the session says so.
func TestDiscoverIgnored(t *testing.T) {
	saved := session.DiscoverBound
	session.DiscoverBound = 300 * time.Millisecond
	t.Cleanup(func() { session.DiscoverBound = saved })
	self, err := os.Executable()
	require.NoError(t, err)
	proc, err := launch.Start(launch.Spec{Path: self, Args: []string{fixture.Verb, "-flaws=no-unknown-method-answer"}, Dir: t.TempDir()})
	require.NoError(t, err)
	s := session.Open(proc)
	t.Cleanup(func() {
		s.Close()
		proc.Stop(time.Second, time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	in, err := s.Initialize(ctx, session.LegacyVersion)
	require.NoError(t, err)
	assert.Equal(t, "2025-11-25", in.Version)
	assert.True(t, s.Negotiated().DiscoverUnanswered)
	assert.False(t, s.Negotiated().BothEras)
}
