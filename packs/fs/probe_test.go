package fs

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// fakeServer answers tools/call with handle; it stands in for a server
// where the engine's session would be, with no observers. The methods the
// fs probes never call come from the nil embedded Server.
type fakeServer struct {
	packs.Server
	handle func(tool string, args map[string]any) (string, error)
	alive  bool
}

func (f *fakeServer) Request(_ context.Context, _ string, params any) (*packs.Response, error) {
	m := params.(map[string]any)
	text, err := f.handle(m["name"].(string), m["arguments"].(map[string]any))
	if err != nil {
		return nil, err
	}
	isErr := strings.HasPrefix(text, "Error")
	b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isErr})
	return &packs.Response{Result: b}, nil
}

func (f *fakeServer) Alive() bool { return f.alive }

func (f *fakeServer) ExitStatus() string {
	if f.alive {
		return ""
	}
	return "exit status 1"
}

// runProbe runs one probe of the pack against the fake server.
func runProbe(t *testing.T, sb *packs.Sandbox, name, tools string, srv *fakeServer) (packs.Verdict, string, []packs.Finding) {
	t.Helper()
	var findings []packs.Finding
	v, reason, _ := runProbeOf(t, Pack, sb, name, tools, srv, map[string]any{}, &findings)
	return v, reason, findings
}

// runProbeOf runs one probe of pk with the start's shared state, and
// returns its notes (and its findings into found, when given).
func runProbeOf(t *testing.T, pk packs.Pack, sb *packs.Sandbox, name, tools string, srv *fakeServer, shared map[string]any, found ...*[]packs.Finding) (packs.Verdict, string, []string) {
	t.Helper()
	var list []packs.Tool
	require.NoError(t, json.Unmarshal([]byte(tools), &list))
	for _, pr := range pk.Probes {
		if pr.Name != name {
			continue
		}
		p := &packs.Pass{
			Ctx: context.Background(), Probe: &pr, Token: "smtok-00112233445566aa", Server: srv,
			Surface: &packs.Surface{Tools: list}, Sandbox: sb, Active: true, CallTimeout: time.Second, Shared: shared,
		}
		pr.Run(p)
		v, reason, findings, notes := p.Outcome()
		for _, f := range found {
			*f = findings
		}
		return v, reason, notes
	}
	t.Fatalf("no probe %s", name)
	return "", "", nil
}

const writeTool = `[{"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}]`

// writeAnywhere is a server with no containment at all.
func writeAnywhere(tool string, args map[string]any) (string, error) {
	p, _ := args["path"].(string)
	if err := os.WriteFile(p, []byte(args["content"].(string)), 0o644); err != nil {
		return "Error: " + err.Error(), nil
	}
	return "ok", nil
}

func TestWriteProbeWithoutObserversLooksItself(t *testing.T) {
	sb := newSandbox(t)
	v, _, findings := runProbe(t, sb, "write-prefix-sibling", writeTool, &fakeServer{handle: writeAnywhere, alive: true})
	require.Equal(t, packs.Failed, v)
	require.Len(t, findings, 1)
	assert.Equal(t, packs.Critical, findings[0].Severity)
	assert.Contains(t, findings[0].Message, `write_file(path="{sandbox}-evil/sealmark-smtok-00112233445566aa-w2") changed the sandbox outside the root: found root-evil/sealmark-`)
	assert.Equal(t, "sandbox", findings[0].Evidence[0].Observer)
	assert.Empty(t, inspect(sb, "smtok-00112233445566aa", true), "the probe restored the sandbox")
}

// TestFailedControlIsNoFileTool: a guessed tool whose control fails (a
// benign call inside the root did not work) is taken for no file tool, with
// a note: alone, the probe is not applicable with the reason, and a later
// probe of the same start leaves it out without calling it again; a tool a
// hint names stays a file tool whose failed control leaves the probe
// inconclusive.
func TestFailedControlIsNoFileTool(t *testing.T) {
	sb := newSandbox(t)
	calls := 0
	refuseAll := func(string, map[string]any) (string, error) { calls++; return "Error: nothing is allowed", nil }
	v, reason, _ := runProbe(t, sb, "write-traversal", writeTool, &fakeServer{handle: refuseAll, alive: true})
	assert.Equal(t, packs.NotApplicable, v, "a tool that cannot write inside the root is no file tool")
	assert.Contains(t, reason, "no tool passed its control (a benign call inside the root), so none is taken for a file tool: write_file: a write inside the root did not take effect")

	readTool := `[{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}]`
	v, reason, _ = runProbe(t, sb, "read-traversal", readTool, &fakeServer{handle: refuseAll, alive: true})
	assert.Equal(t, packs.NotApplicable, v)
	assert.Contains(t, reason, `read_file: read_file(path="{sandbox}/ok.txt") did not return what root/ok.txt holds`)

	// Two probes of one start: the second leaves read_file out uncalled.
	shared := map[string]any{}
	calls = 0
	for _, name := range []string{"read-traversal", "read-prefix-sibling"} {
		v, reason, notes := runProbeOf(t, Pack, sb, name, readTool, &fakeServer{handle: refuseAll, alive: true}, shared)
		assert.Equal(t, packs.NotApplicable, v, name)
		assert.Contains(t, reason, "read_file: read_file(", name)
		assert.Contains(t, notes, `left out as no file tool, its path guess failed the control: read_file: read_file(path="{sandbox}/ok.txt") did not return what root/ok.txt holds (a result)`, name)
	}
	assert.Equal(t, 1, calls, "the control is called once per start")

	hinted := Hinted(Hint{Tool: "read_file", Role: Read, Path: "path"})
	v, reason, _ = runProbeOf(t, hinted, sb, "read-traversal", readTool, &fakeServer{handle: refuseAll, alive: true}, map[string]any{})
	assert.Equal(t, packs.Inconclusive, v, "a hinted file tool that refuses everything has not shown it is confined")
	assert.Contains(t, reason, `control failed: read_file: read_file(path="{sandbox}/ok.txt") did not return what root/ok.txt holds`)
}

func TestNoAnswerAndExitAreInconclusive(t *testing.T) {
	sb := newSandbox(t)
	readTool := `[{"name":"read_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}}]`
	hangOnEscape := func(_ string, args map[string]any) (string, error) {
		if args["path"] == sb.Root+"/ok.txt" {
			return sb.OKToken, nil
		}
		return "", packs.ErrNoAnswer
	}
	v, reason, _ := runProbe(t, sb, "read-prefix-sibling", readTool, &fakeServer{handle: hangOnEscape, alive: true})
	assert.Equal(t, packs.Inconclusive, v)
	assert.Contains(t, reason, `no answer to read_file(path="{sandbox}-evil/evil.txt")`)

	srv := &fakeServer{alive: true}
	srv.handle = func(_ string, args map[string]any) (string, error) {
		if args["path"] == sb.Root+"/ok.txt" {
			return sb.OKToken, nil
		}
		srv.alive = false
		return "", packs.ErrClosed
	}
	v, reason, _ = runProbe(t, sb, "read-traversal", readTool, srv)
	assert.Equal(t, packs.Inconclusive, v)
	assert.Contains(t, reason, "the server exited (exit status 1)")
}

func TestLinkProbesNotApplicableWithoutLinks(t *testing.T) {
	sb := newSandbox(t)
	require.NoError(t, os.Remove(sb.Root+"/link-file"))
	v, reason, _ := runProbe(t, sb, "read-link-file", writeTool, &fakeServer{handle: writeAnywhere, alive: true})
	assert.Equal(t, packs.NotApplicable, v)
	assert.Contains(t, reason, "root/link-file could not be made")
	_, err := os.Lstat(sb.Root + "/link-file")
	assert.True(t, os.IsNotExist(err), "restore does not make a link the platform did not")
}

// fakeObserved hands out records as a files observer would.
type fakeObserved struct{ recs []observers.Record }

func (f *fakeObserved) Probe() []observers.Record     { return f.recs }
func (f *fakeObserved) Pack() []observers.Record      { return f.recs }
func (f *fakeObserved) Survivors() []observers.Record { return nil }

// TestSweepCatchesWhatTheLookMisses: a write outside the root under a name
// the probe did not choose is found by the files observer at the end.
func TestSweepCatchesWhatTheLookMisses(t *testing.T) {
	sb := newSandbox(t)
	obs := &fakeObserved{}
	leaked := sb.Canary + "/leaked.txt"
	srv := &fakeServer{alive: true, handle: func(_ string, args map[string]any) (string, error) {
		p := args["path"].(string)
		if strings.HasPrefix(p, sb.Root+"/sealmark-") { // the control
			return "ok", os.WriteFile(p, nil, 0o644)
		}
		if len(obs.recs) == 0 {
			obs.recs = append(obs.recs, observers.Record{Kind: observers.KindFile, Summary: "created canary/leaked.txt (0 bytes)",
				Data: map[string]string{"op": "created", "path": "canary/leaked.txt", "type": "file"}})
			return "ok", os.WriteFile(leaked, nil, 0o644)
		}
		return "Error: denied", nil
	}}
	var list []packs.Tool
	require.NoError(t, json.Unmarshal([]byte(writeTool), &list))
	probe := writeProbe(forms[0], nil)
	p := &packs.Pass{Ctx: context.Background(), Probe: &probe, Token: "smtok-99", Server: srv, Surface: &packs.Surface{Tools: list},
		Sandbox: sb, Active: true, CallTimeout: time.Second, Shared: map[string]any{}, Observed: obs}
	probe.Run(p)
	v, _, findings, _ := p.Outcome()
	require.Equal(t, packs.Failed, v)
	require.Len(t, findings, 1)
	assert.Equal(t, "the probe's calls of write_file changed the sandbox outside the root: created canary/leaked.txt (0 bytes)", findings[0].Message)
	assert.Equal(t, []packs.Evidence{{Observer: "files", Detail: "created canary/leaked.txt (0 bytes)"}}, findings[0].Evidence)
	_, err := os.Lstat(leaked)
	assert.True(t, os.IsNotExist(err), "restore removed what the observer saw created")
}
