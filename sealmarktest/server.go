package sealmarktest

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/report"
)

var (
	reportsMu sync.Mutex
	reports   = map[string]*report.Report{} // by test name
)

// Server tests the MCP server that cfg describes: it builds a sandbox (gone
// at the test's cleanup), starts the server once per pack and runs each
// pack as a subtest named by the pack, each probe as a subtest named by the
// probe, so go test -run Packs/core/secret-echo runs one probe from a test
// named TestPacks. It runs the same loop as sealmark run, so both give the
// same report for the same server and settings.
//
// A finding at or above cfg.FailOn fails its probe's subtest, printed once
// at the probe's own source position with its id, severity, confidence,
// CWE and evidence; lower ones, and those the baseline accepts, are logged.
// A probe that does not apply is skipped with the reason. A probe at or
// above cfg.FailOn that ended inconclusive fails its subtest, and a pack
// whose every probe was inconclusive or not applicable (INCOMPLETE) fails
// its pack's subtest, as sealmark run exits 3 for them; with
// cfg.AllowInconclusive they are skipped with the reason. A server that
// does not start fails the subtest of the pack that tried, with the end of
// the server log, and skips every later pack ("server did not start (see
// core)"). Every wait ends before the test's deadline (go test -timeout),
// leaving time to stop the server and delete the sandbox.
//
// Server fails at once, running nothing, unless the package's TestMain
// calls Main: without it the server would run uncontained.
func Server(t *testing.T, cfg Config) {
	t.Helper()
	if !mainRan.Load() {
		t.Fatal("sealmarktest: Server needs sealmarktest.Main, which contains the server: add\n\n\tfunc TestMain(m *testing.M) { sealmarktest.Main(m) }\n\nto this package's tests (no server was started)")
	}
	ec, err := cfg.engine(caller())
	if err != nil {
		t.Fatalf("sealmarktest: %v", err)
	}
	ec.Log = logWriter{t}
	e, err := engine.New(ec)
	if err != nil {
		t.Fatalf("sealmarktest: %v", err)
	}
	t.Cleanup(func() { e.Close() }) // a panic in the loop still deletes the sandbox
	ctx := t.Context()
	if deadline, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-margin(time.Until(deadline))))
		defer cancel()
	}
	rep := e.RunT(ctx, goT{t}, engine.Hooks{})
	reportsMu.Lock()
	reports[t.Name()] = rep
	reportsMu.Unlock()
}

// caller is the base name of the test file that called Server, the file
// its Config's rows are written in; "" when the stack cannot be read.
func caller() string {
	_, file, _, ok := runtime.Caller(2) // caller, Server, its caller
	if !ok {
		return ""
	}
	return filepath.Base(file)
}

// margin is how long before the test's deadline the run stops, so that the
// server is stopped and the sandbox deleted before go test panics: a tenth
// of the time left, between 1s and 10s.
func margin(left time.Duration) time.Duration {
	return min(max(left/10, time.Second), 10*time.Second)
}

// goT is the run loop's T for go test: every step is a subtest.
type goT struct{ t *testing.T }

func (g goT) Run(name string, f func(engine.T)) bool {
	return g.t.Run(name, func(t *testing.T) { f(goT{t}) })
}

// Log and Error write without Sealmark's own file:line (t.Output): a
// finding is shown at its probe's position.
func (g goT) Log(msg string) { g.write("", msg) }

func (g goT) Error(pos, msg string) {
	g.write(pos, msg)
	g.t.Fail()
}

func (g goT) Skip(why string) {
	g.write("", why)
	g.t.SkipNow()
}

func (g goT) write(pos, msg string) {
	if pos != "" {
		msg = pos + ": " + msg
	}
	io.WriteString(g.t.Output(), strings.TrimRight(msg, "\n")+"\n")
}

// logWriter sends the engine's warnings to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	fmt.Fprintln(w.t.Output(), strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
