package table_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
)

// These tests drive a row's probe with a fake server and fake observations,
// for what a fixture server cannot easily show: lost data, a missing
// observer, shapes of answers.

type fakeServer struct {
	packs.Server // only Request is called
	answer       func(ctx context.Context) (*packs.Response, error)
	got          map[string]any
}

func (f *fakeServer) Request(ctx context.Context, method string, params any) (*packs.Response, error) {
	m := params.(map[string]any)
	f.got = m["arguments"].(map[string]any)
	if f.answer == nil {
		return &packs.Response{Result: json.RawMessage(`{"content":[{"type":"text","text":"fine"}]}`)}, nil
	}
	return f.answer(ctx)
}

type fakeObs struct {
	probe     []observers.Record
	survivors [][]observers.Record // one list per call, the last repeats
	calls     int
}

func (o *fakeObs) Probe() []observers.Record { return o.probe }
func (o *fakeObs) Pack() []observers.Record  { return o.probe }
func (o *fakeObs) Survivors() []observers.Record {
	if len(o.survivors) == 0 {
		return nil
	}
	s := o.survivors[min(o.calls, len(o.survivors)-1)]
	o.calls++
	return s
}

// fakePass is a Pass on a fake sandbox at /sb.
func fakePass(srv *fakeServer, obs *fakeObs) *packs.Pass {
	p := &packs.Pass{
		Ctx: context.Background(), Token: "tok123", Server: srv,
		Surface: &packs.Surface{Tools: []packs.Tool{{Name: "t"}}},
		Sandbox: &packs.Sandbox{Top: "/sb", Root: "/sb/root", RootEvil: "/sb/root-evil", Canary: "/sb/canary",
			OKToken: "sm-ok-1", Files: []packs.Secret{{Name: "canary/secret.txt", Value: "sm-file-secret"}}},
		Vars:        map[string]string{"sandbox": "/sb/root", "cwd": "/work", "listener": "http://127.0.0.1:9"},
		Canaries:    []packs.Secret{{Name: "SEALMARK_CANARY", Value: "sm-canary-value"}},
		CallTimeout: time.Second,
	}
	if obs != nil {
		p.Observed = obs
	}
	return p
}

// runRow runs one row's probe on p and returns its outcome.
func runRow(t *testing.T, r table.Row, p *packs.Pass) (packs.Verdict, string, []packs.Finding, []string) {
	t.Helper()
	if r.Tool == "" {
		r.Tool = "t"
	}
	if r.Name == "" {
		r.Name = "r"
	}
	pk, err := table.Pack("mine", []table.Row{r})
	require.NoError(t, err)
	p.Probe = &pk.Probes[0]
	pk.Probes[0].Run(p)
	return p.Outcome()
}

func findingTexts(fs []packs.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintln(&b, f.String())
	}
	return b.String()
}

func TestArgsExpandEverywhere(t *testing.T) {
	srv := &fakeServer{}
	args := map[string]any{
		"path": "{canary_file}",
		"list": []any{"{token}", 3, map[string]any{"u": "{listener}/{token}", "{token}": "key kept"}},
		"strs": []string{"{ok_file}", "{link_dir}/x"},
		"json": `{"a":1} {root_evil} {link_file} {canary_dir} {ok_token} {cwd} {sandbox}`,
	}
	v, _, _, _ := runRow(t, table.Row{Args: args, Expect: []table.Expect{table.Succeeds()}}, fakePass(srv, nil))
	assert.Equal(t, packs.Passed, v)
	assert.Equal(t, map[string]any{
		"path": "/sb/canary/secret.txt",
		"list": []any{"tok123", 3, map[string]any{"u": "http://127.0.0.1:9/tok123", "{token}": "key kept"}},
		"strs": []any{"/sb/root/ok.txt", "/sb/root/link-dir/x"},
		"json": `{"a":1} /sb/root-evil /sb/root/link-file /sb/canary sm-ok-1 /work /sb/root`,
	}, srv.got)
	assert.Equal(t, "{canary_file}", args["path"], "the row's own arguments are not changed")
}

func TestLostDataMakesInconclusive(t *testing.T) {
	loss := observers.Record{Kind: observers.KindLoss, Observer: "loopback", Summary: "dropped 3 connections past the limit"}
	v, reason, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.NoConnection()}}, fakePass(&fakeServer{}, &fakeObs{probe: []observers.Record{loss}}))
	assert.Empty(t, fs)
	assert.Equal(t, packs.Inconclusive, v)
	assert.Equal(t, `row r: no connection: not proven: the loopback observer lost data: dropped 3 connections past the limit`, reason)

	walk := observers.Record{Kind: observers.KindLoss, Observer: "files", Summary: "fell back to a full walk", Data: map[string]string{"reason": "fallback"}}
	v, _, _, _ = runRow(t, table.Row{Expect: []table.Expect{table.NoFileChangesOutsideRoot()}}, fakePass(&fakeServer{}, &fakeObs{probe: []observers.Record{walk}}))
	assert.Equal(t, packs.Passed, v, "a full walk is exact, not a loss")
}

func TestNoProcessObserver(t *testing.T) {
	defer table.SetProcessObserved(false)()
	v, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.Succeeds(), table.NoProgramRan(), table.NoProcessOutlived()}},
		fakePass(&fakeServer{}, &fakeObs{}))
	assert.Equal(t, packs.Failed, v)
	require.Len(t, fs, 2)
	assert.Contains(t, fs[0].Message, `row r: no program ran: cannot be checked on this run: no process observer on `)
	assert.Contains(t, fs[1].Message, `row r: no process outlived the call: cannot be checked on this run: no process observer on `)
}

func TestSucceedsAndRefusedOnProtocolError(t *testing.T) {
	srv := &fakeServer{answer: func(context.Context) (*packs.Response, error) {
		return &packs.Response{Error: &packs.RPCError{Code: -32602, Message: "bad", Data: json.RawMessage(`"more detail"`)}}, nil
	}}
	v, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.Succeeds(), table.Refused(), table.Contains("more detail")}}, fakePass(srv, nil))
	assert.Equal(t, packs.Failed, v)
	require.Len(t, fs, 1, findingTexts(fs))
	assert.Equal(t, "row r: t was refused (error -32602 (bad)), want a result without isError", fs[0].Message)
}

func TestNoCanaryNamesNeverQuotes(t *testing.T) {
	srv := &fakeServer{answer: func(context.Context) (*packs.Response, error) {
		return &packs.Response{Error: &packs.RPCError{Code: -32603, Message: "cannot open", Data: json.RawMessage(`{"content":"sm-file-secret"}`)}}, nil
	}}
	p := fakePass(srv, nil)
	p.Canaries = nil
	v, _, fs, notes := runRow(t, table.Row{Expect: []table.Expect{table.NoCanary()}}, p)
	assert.Equal(t, packs.Failed, v)
	require.Len(t, fs, 1)
	assert.Equal(t, "row r: the response of t holds the value of canary/secret.txt\n"+
		"    evidence: response: the error of tools/call t holds the value of canary/secret.txt", fs[0].String())
	assert.NotContains(t, findingTexts(fs), "sm-file-secret")
	assert.Equal(t, []string{"row r: this start has no canary variables (only the run's first start does): checked the canary files only"}, notes)

	// The text of a result is searched too: a value JSON escapes differently.
	srv.answer = func(context.Context) (*packs.Response, error) {
		return &packs.Response{Result: json.RawMessage(`{"content":[{"type":"text","text":"sm-canary\u002dvalue"}]}`)}, nil
	}
	_, _, fs, _ = runRow(t, table.Row{Expect: []table.Expect{table.NoCanary()}}, fakePass(srv, nil))
	require.Len(t, fs, 1)
	assert.Equal(t, "row r: the response of t holds the value of SEALMARK_CANARY", fs[0].Message)

	p = fakePass(&fakeServer{}, nil)
	p.Canaries, p.Sandbox = nil, nil
	_, _, fs, _ = runRow(t, table.Row{Expect: []table.Expect{table.NoCanary()}}, p)
	require.Len(t, fs, 1)
	assert.Contains(t, fs[0].Message, `row r: no canary in the response: cannot be checked on this run: no canary was planted`)
}

func TestResponseTextShapes(t *testing.T) {
	for _, tc := range []struct{ result, contains, absent string }{
		{`{"content":[{"type":"resource","resource":{"uri":"file:///x","text":"from a resource"}}]}`, "from a resource", "file:///x"},
		{`{"content":[],"structuredContent":{"k":"v"}}`, `{"k":"v"}`, "content"},
		{`{"content":[{"type":"text","text":"line \"quoted\"\nnext"}]}`, "\"quoted\"\nnext", `\"`},
		{`{"weird":1}`, `{"weird":1}`, "nothing"},
	} {
		srv := &fakeServer{answer: func(context.Context) (*packs.Response, error) {
			return &packs.Response{Result: json.RawMessage(tc.result)}, nil
		}}
		v, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.Contains(tc.contains), table.NotContains(tc.absent)}}, fakePass(srv, nil))
		assert.Equal(t, packs.Passed, v, "%s: %s", tc.result, findingTexts(fs))
	}
}

func fileRecord(op, path, from, typ string) observers.Record {
	summary := op + " " + path
	if from != "" {
		summary = "renamed " + from + " -> " + path
	}
	return observers.Record{Kind: observers.KindFile, Observer: "files", Summary: summary,
		Data: map[string]string{"op": op, "path": path, "from": from, "type": typ}}
}

func TestFileChangeRules(t *testing.T) {
	obs := &fakeObs{probe: []observers.Record{
		fileRecord("created", "root/notes", "", "dir"),
		fileRecord("created", "root/notes/a.txt", "", "file"),
		fileRecord("modified", "home/.cache", "", "file"),
		fileRecord("renamed", "root-evil/b", "root/b", "file"),
		fileRecord("deleted", "canary/id_rsa", "", "file"),
	}}
	_, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{
		table.NoFileChangesOutsideRoot(),
		table.FileChanges("{sandbox}/notes/a.txt", "home/.cache", "root/missing.txt"),
	}}, fakePass(&fakeServer{}, obs))
	assert.Equal(t, "row r: a file changed outside root/: renamed root/b -> root-evil/b\n"+
		"row r: a file changed outside root/: deleted canary/id_rsa\n"+
		"row r: an unexpected file change: renamed root/b -> root-evil/b\n"+
		"row r: an unexpected file change: deleted canary/id_rsa\n"+
		"row r: root/missing.txt did not change\n", messagesOf(fs))

	// A rename into the expected path counts as its change.
	_, _, fs, _ = runRow(t, table.Row{Expect: []table.Expect{table.FileChanges("root-evil/b", "canary/id_rsa")}},
		fakePass(&fakeServer{}, &fakeObs{probe: obs.probe[3:]}))
	assert.Empty(t, fs)

	_, _, fs, _ = runRow(t, table.Row{Expect: []table.Expect{table.FileChanges("{cwd}/x")}}, fakePass(&fakeServer{}, &fakeObs{}))
	require.Len(t, fs, 1)
	assert.Equal(t, `row r: file changes exactly {cwd}/x: cannot be checked: {cwd}/x is outside the sandbox`, fs[0].Message)
}

func messagesOf(fs []packs.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Message + "\n")
	}
	return b.String()
}

func alive(pid int, argv string) observers.Record {
	return observers.Record{Kind: observers.KindProcess, Observer: "process", Summary: fmt.Sprintf("pid %d (%s) is alive", pid, argv),
		Data: map[string]string{"op": "alive", "pid": fmt.Sprint(pid)}}
}

func TestOutlivedComparesWithBefore(t *testing.T) {
	defer table.SetProcessObserved(true)()
	defer table.SetOutlivedGrace(100 * time.Millisecond)()
	worker := alive(10, "node worker.js")
	obs := &fakeObs{survivors: [][]observers.Record{{worker}, {worker, alive(11, "sm-sleep 600")}}}
	_, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.NoProcessOutlived()}}, fakePass(&fakeServer{}, obs))
	require.Len(t, fs, 1, "the worker alive before the call is not the call's")
	assert.Equal(t, "row r: a process outlived the call: sm-sleep 600\n    evidence: process: pid 11 (sm-sleep 600) is alive", fs[0].String())

	// A child that exits within the grace did not outlive the call.
	obs = &fakeObs{survivors: [][]observers.Record{{}, {alive(12, "sh -c true")}, {}}}
	v, _, _, _ := runRow(t, table.Row{Expect: []table.Expect{table.NoProcessOutlived()}}, fakePass(&fakeServer{}, obs))
	assert.Equal(t, packs.Passed, v)
}

func TestProgramRecords(t *testing.T) {
	defer table.SetProcessObserved(true)()
	spawned := observers.Record{Kind: observers.KindProcess, Observer: "process", Summary: "pid 7 (ppid 1) spawned: sm-canary tok123",
		Data: map[string]string{"op": "spawned", "pid": "7", "argv": `["sm-canary","tok123"]`, "comm": "sm-canary"}}
	exec := observers.Record{Kind: observers.KindProcess, Observer: "process", Summary: "sm-canary ran (pid 7): sm-canary tok123",
		Data: map[string]string{"op": "exec", "pid": "7", "prog": "sm-canary", "argv": `["sm-canary","tok123"]`}}
	git := observers.Record{Kind: observers.KindProcess, Observer: "process", Summary: "pid 8 (ppid 1) spawned: /usr/bin/git status",
		Data: map[string]string{"op": "spawned", "pid": "8", "argv": `["/usr/bin/git","status"]`, "exe": "/usr/bin/git", "comm": "git"}}
	obs := &fakeObs{probe: []observers.Record{spawned, git, exec}}
	_, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.NoProgramRan(), table.NotRan("sm-canary"), table.NotRan("git"), table.NotRan("sm-echo")}},
		fakePass(&fakeServer{}, obs))
	assert.Equal(t, "row r: a program ran: sm-canary tok123\n"+
		"row r: a program ran: /usr/bin/git status\n"+
		"row r: sm-canary ran: sm-canary tok123\n"+
		"row r: git ran: /usr/bin/git status\n", messagesOf(fs))
	assert.Equal(t, "sm-canary ran (pid 7): sm-canary tok123", fs[0].Evidence[0].Detail, "one record per process: the exec log's")
}

func TestCallWithoutAnswer(t *testing.T) {
	srv := &fakeServer{answer: func(context.Context) (*packs.Response, error) {
		return nil, fmt.Errorf("tools/call t: %w: the server exited (exit status 3)", packs.ErrClosed)
	}}
	_, _, fs, _ := runRow(t, table.Row{Expect: []table.Expect{table.Succeeds(), table.Contains("x"), table.NoFileChangesOutsideRoot()}},
		fakePass(srv, &fakeObs{}))
	require.Len(t, fs, 1)
	assert.Equal(t, `row r: t gave no answer (tools/call t: the server closed its stdout: the server exited (exit status 3)), want: succeeds, contains "x"`, fs[0].Message)

	var deadline time.Duration
	srv.answer = func(ctx context.Context) (*packs.Response, error) {
		d, _ := ctx.Deadline()
		deadline = time.Until(d)
		<-ctx.Done()
		return nil, fmt.Errorf("tools/call t: %w", packs.ErrNoAnswer)
	}
	_, _, fs, _ = runRow(t, table.Row{Expect: []table.Expect{table.Within(50 * time.Millisecond), table.Succeeds(), table.Within(time.Hour)}}, fakePass(srv, nil))
	require.Len(t, fs, 1)
	assert.Equal(t, "row r: t did not answer within 50ms", fs[0].Message)
	assert.Equal(t, "session: not judged without an answer: succeeds", fs[0].Evidence[1].Observer+": "+fs[0].Evidence[1].Detail)
	assert.LessOrEqual(t, deadline, 50*time.Millisecond, "the row waits no longer than its smallest Within")

	srv.answer = func(context.Context) (*packs.Response, error) {
		time.Sleep(30 * time.Millisecond) // ignores the deadline, as a slow transport might
		return &packs.Response{Result: json.RawMessage(`{"content":[]}`)}, nil
	}
	_, _, fs, _ = runRow(t, table.Row{Expect: []table.Expect{table.Within(10 * time.Millisecond)}}, fakePass(srv, nil))
	require.Len(t, fs, 1)
	assert.Contains(t, fs[0].Message, "row r: t answered after ")
	assert.Contains(t, fs[0].Message, ", want within 10ms")
}

func TestToolListEvidence(t *testing.T) {
	p := fakePass(&fakeServer{}, nil)
	p.Surface = &packs.Surface{Tools: []packs.Tool{{Name: "a"}}, ToolsError: "page 2: no answer"}
	_, _, fs, _ := runRow(t, table.Row{Tool: "b", Expect: []table.Expect{table.Succeeds()}}, p)
	require.Len(t, fs, 1)
	assert.Equal(t, "row r: tool b is not offered by the server\n"+
		"    evidence: tools/list: the server offers a\n"+
		"    evidence: tools/list: the list could not be read completely: page 2: no answer", fs[0].String())

	srv := &fakeServer{}
	p = fakePass(srv, nil)
	p.Surface = nil
	v, _, _, _ := runRow(t, table.Row{Tool: "b", Expect: []table.Expect{table.Succeeds()}}, p)
	assert.Equal(t, packs.Passed, v, "without a tool list the call itself tells")
	assert.NotNil(t, srv.got)
}
