package session_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/session"
)

// slowStart is how long slowChild waits before it reads: past the 500 ms
// after which the old start sent a ping.
const slowStart = 1500 * time.Millisecond

// slowChild is a modern server slow to start: it reads nothing for
// slowStart, then reads what is buffered in one read, as a Node server's
// stdin listener does, and logs each read to stderr ("READ <bytes>"),
// until it answered server/discover ("ANSWERED"). It answers a discover
// with a DiscoverResult and any other request with an empty result.
func slowChild() {
	time.Sleep(slowStart)
	var pending []byte
	buf := make([]byte, 64<<10)
	answered := false
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 && !answered {
			fmt.Fprintf(os.Stderr, "READ %q\n", buf[:n])
		}
		pending = append(pending, buf[:n]...)
		for {
			line, rest, ok := bytes.Cut(pending, []byte("\n"))
			if !ok {
				break
			}
			pending = rest
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
				continue
			}
			if msg.Method == "server/discover" {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete"}}`+"\n", msg.ID)
				if !answered {
					fmt.Fprintln(os.Stderr, "ANSWERED")
				}
				answered = true
				continue
			}
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", msg.ID)
		}
		if err != nil {
			return
		}
	}
}

// TestDiscoverAlone: a server slow to start reads nothing before it answers
// server/discover but the discover request itself, one line, and is found
// modern. The old start sent a ping without _meta after 500 ms, which such
// a server read beside the discover: a dual-era server then pinned the
// legacy era.
func TestDiscoverAlone(t *testing.T) {
	self, err := os.Executable()
	require.NoError(t, err)
	proc, err := launch.Start(launch.Spec{Path: self, Env: []string{"SESSION_TEST_CHILD=slow"}, Dir: t.TempDir()})
	require.NoError(t, err)
	s := session.Open(proc)
	t.Cleanup(func() {
		s.Close()
		proc.Stop(time.Second, time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	in, err := s.Initialize(ctx, session.LegacyVersion)
	require.NoError(t, err)
	assert.Equal(t, session.ModernVersion, in.Version)
	assert.False(t, s.Negotiated().DiscoverUnanswered)
	assert.False(t, s.Negotiated().BothEras)

	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(string(proc.Log().Bytes()), "ANSWERED") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	var read []string
	sc := bufio.NewScanner(bytes.NewReader(proc.Log().Bytes()))
	for sc.Scan() {
		if q, ok := strings.CutPrefix(sc.Text(), "READ "); ok {
			var chunk string
			_, err := fmt.Sscanf(q, "%q", &chunk)
			require.NoError(t, err)
			read = append(read, chunk)
		}
	}
	require.NotEmpty(t, read, "the server logged no read: %s", proc.Log().Bytes())
	all := strings.Join(read, "")
	lines := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	require.Len(t, lines, 1, "the server read more than the discover before answering it: %q", all)
	var first struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, "server/discover", first.Method)
	assert.Equal(t, session.ModernVersion, first.Params.Meta[session.MetaProtocolVersion])
}
