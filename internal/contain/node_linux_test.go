package contain_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/realserver"
)

// TestNodeFilesystemServerUnderFullContainment runs the pinned reference
// filesystem server (Node) with every layer this machine offers. It is
// told that a directory outside the sandbox is allowed too: its own check
// lets the write through, and Landlock stops it.
func TestNodeFilesystemServerUnderFullContainment(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	server := realserver.FilesystemLatest.Script(t)
	top := t.TempDir()
	root := filepath.Join(top, "root")
	require.NoError(t, os.Mkdir(root, 0o700))
	outside := t.TempDir()

	iso := contain.Probe()
	o := contain.Options{SandboxTop: top, MaxFileBytes: 1 << 20, Landlock: true, NetNS: iso.NetNS.Applied}
	t.Logf("isolation: %s", iso.For(o).Line())
	spec := launch.Spec{
		Path: node,
		Args: []string{server, root, outside},
		Env:  []string{"PATH=/usr/bin:/bin", "HOME=" + top, "TMPDIR=" + top, newMarker(t)},
		Dir:  root,
	}
	proc, err := launch.Start(wrap(t, spec, o))
	require.NoError(t, err)
	defer proc.Stop(time.Second, time.Second)

	msgs := bufio.NewReader(proc.Messages())
	call := func(id int, method string, params any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		require.NoError(t, proc.WriteRaw(append(b, '\n')))
		deadline := time.AfterFunc(10*time.Second, func() { proc.Kill() })
		defer deadline.Stop()
		for {
			line, err := msgs.ReadString('\n')
			require.NoError(t, err, "server log: %s", proc.Log().Tail(2000))
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &m))
			if m["id"] == float64(id) {
				return m
			}
		}
	}
	init := call(1, "initialize", map[string]any{
		"protocolVersion": "2024-11-05", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "contain-test", "version": "1"},
	})
	require.Contains(t, init, "result", "initialize: %v", init)
	require.NoError(t, proc.WriteRaw([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")))

	write := func(id int, path string) string {
		r := call(id, "tools/call", map[string]any{"name": "write_file", "arguments": map[string]any{"path": path, "content": "hi"}})
		return fmt.Sprint(r["result"])
	}
	inside := write(2, filepath.Join(root, "a.txt"))
	assert.NotContains(t, inside, "isError:true", inside)
	b, err := os.ReadFile(filepath.Join(root, "a.txt"))
	assert.NoError(t, err)
	assert.Equal(t, "hi", string(b))

	escaped := write(3, filepath.Join(outside, "b.txt"))
	t.Logf("write outside: %s", escaped)
	// Landlock refuses it (EACCES), or, where the path is a read-only bind
	// in the server's mount namespace, the mount does (EROFS).
	assert.True(t, strings.Contains(escaped, "EACCES") || strings.Contains(escaped, "permission denied") || strings.Contains(escaped, "EROFS"), escaped)
	assert.NoFileExists(t, filepath.Join(outside, "b.txt"))

	rep := proc.Stop(2*time.Second, time.Second)
	assert.True(t, rep.ExitedOnStdinClose, "stop: %+v", rep)
}
