package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/example"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/internal/session"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/core"
	"github.com/sealmark/sealmark/packs/fs"
)

// The benchmarks below measure the harness's own cost next to the server's:
// a ping round trip straight over pipes (the server's own time) against the
// same round trip through the harness's framer, locked writer and MCP
// client; the sandbox; and a whole core run.
//
//	go test -run '^$' -bench . -benchtime 2000x ./internal/engine/

func BenchmarkPingRaw(b *testing.B) {
	self, _ := os.Executable()
	cmd := exec.Command(self, fixture.Verb)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	in := bufio.NewReader(stdout)
	b.ResetTimer()
	for i := range b.N {
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
		if _, err := in.ReadString('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPingHarness(b *testing.B) {
	self, _ := os.Executable()
	proc, err := launch.Start(launch.Spec{Path: self, Args: []string{fixture.Verb}, Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	s := session.Open(proc)
	defer func() { s.Close(); proc.Stop(time.Second, time.Second) }()
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Request(ctx, "ping", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSandbox(b *testing.B) {
	dir := b.TempDir()
	for range b.N {
		sb, err := sandbox.New(sandbox.Options{Parent: dir})
		if err != nil {
			b.Fatal(err)
		}
		if err := sb.Remove(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCoreRun(b *testing.B) {
	self, _ := os.Executable()
	dir := b.TempDir()
	for range b.N {
		e, err := engine.New(engine.Config{Catalog: catalogue.All, Command: self, Args: []string{fixture.Verb}, SandboxDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if rep := e.Run(context.Background(), engine.Hooks{}); rep.HarnessError != "" {
			b.Fatal(rep.HarnessError)
		}
	}
}

// BenchmarkCoreSplit splits a whole core run against the stdio fixture
// into the server's time and the harness's. The server's time is the sum,
// over every request the probes sent, of the time from the request leaving
// the harness to the framer reading the server's answer (the frame's
// time), plus the duration the cancellation probe asks of the call it
// cancels (cancelled-call-ms/op: no answer times it); the harness's is the
// rest of the run's wall time: starting and stopping the server and the
// sandbox, the observers, the client, and the waits the probes choose (the
// barrier after a cancelled call's end, exit grace). It reports wall-ms/op,
// server-ms/op, cancelled-call-ms/op, harness-ms/op and requests/op; -v
// logs the probes of 50 ms or more.
func BenchmarkCoreSplit(b *testing.B) {
	self, _ := os.Executable()
	benchSplit(b, []packs.Pack{core.Pack}, self, fixture.Verb)
}

// BenchmarkDefaultRunSplit is the same split for a whole default run (every
// pack, passive) against the bundled example server, what `sealmark run
// --example` runs: the harness's share of what a user waits for.
func BenchmarkDefaultRunSplit(b *testing.B) {
	self, _ := os.Executable()
	benchSplit(b, catalogue.All, self, example.Verb)
}

// BenchmarkReferenceSplit is the same split for a whole default run of
// the core and fs packs (passive) against the newest reference file
// server, @modelcontextprotocol/server-filesystem (installed by .ci/run;
// skipped without it).
func BenchmarkReferenceSplit(b *testing.B) {
	script := realserver.FilesystemLatest.CwdArg(b)
	benchSplit(b, []packs.Pack{core.Pack, fs.Pack}, "node", script, "{sandbox}")
}

// benchSplit runs the catalog against the server b.N times and reports the
// split of BenchmarkCoreSplit.
func benchSplit(b *testing.B, catalog []packs.Pack, command string, args ...string) {
	dir := b.TempDir()
	var sum split
	for range b.N {
		sum.add(runSplit(b, catalog, dir, command, args...))
	}
	sum.report(b)
}

// split is one run's (or several runs' summed) wall time and the server's
// share of it, measured from the frames' times.
type split struct {
	wall, server, cancelled time.Duration
	requests                int
	starts                  int // the sessions the probes were handed
	runs                    int
}

func (s *split) add(o split) {
	s.wall += o.wall
	s.server += o.server
	s.cancelled += o.cancelled
	s.requests += o.requests
	s.starts += o.starts
	s.runs += o.runs
}

// harness is what is left of the wall time once the server's answers (and
// the call the cancellation check cancels) are taken out.
func (s split) harness() time.Duration { return s.wall - s.server - s.cancelled }

// report gives BenchmarkCoreSplit's metrics, per run.
func (s split) report(b *testing.B) {
	b.ReportMetric(s.ms(s.wall), "wall-ms/op")
	b.ReportMetric(s.ms(s.server), "server-ms/op")
	b.ReportMetric(s.ms(s.cancelled), "cancelled-call-ms/op")
	b.ReportMetric(s.ms(s.harness()), "harness-ms/op")
	b.ReportMetric(100*float64(s.harness())/float64(s.wall), "harness-%")
	b.ReportMetric(float64(s.requests)/float64(s.runs), "requests/op")
}

// ms is d per run, in milliseconds.
func (s split) ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000 / float64(max(s.runs, 1))
}

// runSplit runs the catalog against the server once, every probe's server
// timed.
func runSplit(b *testing.B, catalog []packs.Pack, dir, command string, args ...string) split {
	b.Helper()
	return runSplitStarts(b, false, 1, catalog, dir, command, args...)
}

// runSplitStarts is runSplit with every pack on a fresh start when fresh
// is set (Config.FreshStarts).
func runSplitStarts(b *testing.B, fresh bool, jobs int, catalog []packs.Pack, dir, command string, args ...string) split {
	b.Helper()
	tm := &timedServer{}
	timed := make([]packs.Pack, len(catalog))
	for j, pk := range catalog {
		probes := make([]packs.Probe, len(pk.Probes))
		for i, pr := range pk.Probes {
			run := pr.Run
			pr.Run = func(p *packs.Pass) {
				p.Server = tm.wrap(p.Server)
				run(p)
			}
			probes[i] = pr
		}
		pk.Probes = probes
		timed[j] = pk
	}
	e, err := engine.New(engine.Config{Command: command, Args: args, SandboxDir: dir, Catalog: timed, FreshStarts: fresh, Jobs: jobs})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	rep := e.Run(context.Background(), engine.Hooks{})
	s := split{wall: time.Since(start), server: tm.total, requests: tm.n, starts: tm.sessions(), runs: 1}
	if rep.HarnessError != "" {
		b.Fatal(rep.HarnessError)
	}
	for _, pk := range rep.Packs {
		for _, p := range pk.Probes {
			// The cancelled call never answers, so no frame times it: the
			// duration the probe asked of the tool is the server's time.
			if p.ID == "CORE-CANCELLATION" && p.Verdict == packs.Passed {
				s.cancelled += core.CancelDuration
			}
			if testing.Verbose() && p.Millis >= 50 {
				b.Logf("%s: %d ms", p.ID, p.Millis)
			}
		}
	}
	return s
}

// timedServer is the pack's server with every request's server time
// added up, measured from the frames' times. Each session (a start the
// probes ran on) keeps its own place in its frames: packs that run at
// once (Config.Jobs) use several sessions at a time.
type timedServer struct {
	mu    sync.Mutex
	marks map[packs.Server]int // per session, the first frame not yet looked at
	total time.Duration
	n     int
}

// sessions is how many distinct sessions the probes were handed: the
// starts they ran on.
func (t *timedServer) sessions() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.marks)
}

// wrap makes the probe's server a timed one.
func (t *timedServer) wrap(s packs.Server) packs.Server {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.marks == nil {
		t.marks = map[packs.Server]int{}
	}
	if _, ok := t.marks[s]; !ok {
		t.marks[s] = 0
	}
	return timedView{t, s}
}

type timedView struct {
	*timedServer
	inner packs.Server
}

func (v timedView) Request(ctx context.Context, method string, params any) (*packs.Response, error) {
	t, inner := v.timedServer, v.inner
	sent := time.Now()
	resp, err := inner.Request(ctx, method, params)
	if err != nil {
		return resp, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, f := range inner.Frames(t.marks[inner]) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if f.Kind != "json" || json.Unmarshal(f.Data, &m) != nil || m.Method != "" || string(m.ID) != string(resp.ID) {
			continue
		}
		if d := f.Time.Sub(sent); d > 0 {
			t.total += d
		}
		t.n++
		t.marks[inner] = f.Seq + 1
		break
	}
	return resp, err
}

func (v timedView) Notify(ctx context.Context, method string, params any) error {
	return v.inner.Notify(ctx, method, params)
}
func (v timedView) WriteRaw(b []byte) error       { return v.inner.WriteRaw(b) }
func (v timedView) Frames(from int) []packs.Frame { return v.inner.Frames(from) }
func (v timedView) Describe(f packs.Frame) string { return v.inner.Describe(f) }
func (v timedView) Log() []byte                   { return v.inner.Log() }
func (v timedView) LogDrained() bool              { return v.inner.LogDrained() }
func (v timedView) CloseStdin() error             { return v.inner.CloseStdin() }
func (v timedView) WaitExit(d time.Duration) bool { return v.inner.WaitExit(d) }
func (v timedView) Terminate(d time.Duration) []string {
	return v.inner.Terminate(d)
}
func (v timedView) Alive() bool        { return v.inner.Alive() }
func (v timedView) ExitStatus() string { return v.inner.ExitStatus() }
func (v timedView) Transport() string  { return v.inner.Transport() }
