package sealmarktest

import (
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
)

// Main is a TestMain for a package that uses Server:
//
//	func TestMain(m *testing.M) { sealmarktest.Main(m) }
//
// It lets the test binary act as the containment shim and the sandbox's
// sm-* programs (Server refuses to run without it), runs the tests, stops
// every server and deletes every sandbox on Ctrl-C, SIGTERM and SIGHUP,
// and writes the JSON reports of the Server calls that ran, keyed by test
// name ({"TestPacks": {report}, ...}), to -sealmark.report=PATH or
// $SEALMARK_REPORT when one is named. When no Server call ran (go test
// -run selected none) it writes nothing and fails nothing.
func Main(m *testing.M) {
	contain.Dispatch() // the containment shim, before anything else
	smbin.Dispatch()
	mainRan.Store(true)
	path := flag.String("sealmark.report", os.Getenv("SEALMARK_REPORT"), "write the Sealmark JSON report to this `file`")
	// On a signal, stop every server and delete every sandbox, then exit
	// 128+n. The tests may finish meanwhile (their server was just killed):
	// they must not exit 0 before the cleanup is done.
	var caught atomic.Value
	handled := make(chan struct{})
	stop := cleanup.OnSignal(func(sig os.Signal) {
		caught.Store(sig)
		cleanup.Exit()
		close(handled)
		os.Exit(cleanup.ExitCode(sig))
	})
	code := m.Run()
	stop()
	if sig, ok := caught.Load().(os.Signal); ok {
		<-handled
		os.Exit(cleanup.ExitCode(sig))
	}
	cleanup.Run()
	if *path != "" {
		if err := writeReport(*path); err != nil {
			fmt.Fprintf(os.Stderr, "sealmarktest: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

// mainRan is set by Main: Server refuses to run without it.
var mainRan atomic.Bool

func writeReport(path string) error {
	reportsMu.Lock()
	defer reportsMu.Unlock()
	if len(reports) == 0 {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing the report: %v", err)
	}
	if err := report.WriteJSONSet(f, reports); err != nil {
		f.Close()
		return fmt.Errorf("writing the report %s: %v", path, err)
	}
	return f.Close()
}
