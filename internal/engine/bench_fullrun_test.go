package engine_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/realserver"
)

// BenchmarkReferenceDefaultRun is a whole default run (every pack,
// passive) against the newest reference file server next to that server's
// own start, both measured in each iteration, so that the ratio holds on a
// loaded machine: the server's own start is spawn to its answer to
// tools/list (initialize, initialized, tools/list straight over pipes, no
// Sealmark), the run is BenchmarkReferenceSplit's split over the catalogue.
// Besides the split's metrics it reports
//
//	own-start-ms/op   the server's spawn to its tools/list answer
//	starts/op         the starts the probes ran on (the drift check's not counted)
//	x-own-start       the run's wall / the server's own start
//	x-goal            the run's wall / (own start + the server answering the
//	                  run's requests): the goal is 2 or less
//	harness-net-%     the harness's share with the server's own time for
//	                  each start the probes ran on taken out
//
// Its sub-benchmarks are the run with its packs one after another, where
// fs and sqlite run on the start core's drift check left running
// (shared, --jobs 1), the same with every pack on a fresh start (fresh,
// --fresh-starts --jobs 1), and the run as the CLI ships it on two
// CPUs, sharing and with up to two packs at once (jobs2, --jobs 2):
// the before and after of sharing and of packs at once, in one sitting.
// With packs at once the server's time of two starts adds up while the
// wall does not, so the harness's share is no longer wall less server.
//
//	go test -run '^$' -bench ReferenceDefaultRun -benchtime 3x ./internal/engine/
func BenchmarkReferenceDefaultRun(b *testing.B) {
	b.Run("shared", func(b *testing.B) { referenceDefaultRun(b, false, 1) })
	b.Run("fresh", func(b *testing.B) { referenceDefaultRun(b, true, 1) })
	b.Run("jobs2", func(b *testing.B) { referenceDefaultRun(b, false, 2) })
}

func referenceDefaultRun(b *testing.B, fresh bool, jobs int) {
	script := realserver.FilesystemLatest.CwdArg(b)
	path := realserver.FilesystemLatest.Script(b)
	dir := b.TempDir()
	var sum split
	var own time.Duration
	for range b.N {
		own += ownStart(b, "node", path)
		sum.add(runSplitStarts(b, fresh, jobs, catalogue.All, dir, "node", script, "{sandbox}"))
	}
	sum.report(b)
	n := float64(b.N)
	ownMS := float64(own.Microseconds()) / 1000 / n
	b.ReportMetric(ownMS, "own-start-ms/op")
	b.ReportMetric(float64(sum.starts)/n, "starts/op")
	b.ReportMetric(float64(sum.wall)/float64(own), "x-own-start")
	b.ReportMetric(float64(sum.wall)/float64(own+sum.server+sum.cancelled), "x-goal")
	net := sum.harness() - time.Duration(float64(own)/n*float64(sum.starts))
	b.ReportMetric(100*float64(net)/float64(sum.wall), "harness-net-%")
}

// ownStart starts the server the way a client would, with no Sealmark in
// between, in a directory of its own it may serve, and returns the time
// from the spawn to its answer to tools/list.
func ownStart(b *testing.B, command string, args ...string) time.Duration {
	b.Helper()
	root := b.TempDir()
	cmd := exec.Command(command, append(args, root)...)
	cmd.Dir = root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	fmt.Fprint(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`+"\n")
	in := bufio.NewReader(stdout)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := answerTo(ctx, in, `"id":1`); err != nil {
		b.Fatalf("%s: initialize: %v (stderr: %s)", command, err, stderr.String())
	}
	fmt.Fprint(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	fmt.Fprint(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
	if err := answerTo(ctx, in, `"id":2`); err != nil {
		b.Fatalf("%s: tools/list: %v (stderr: %s)", command, err, stderr.String())
	}
	return time.Since(start)
}

// answerTo reads lines until one holds id (the server's answer).
func answerTo(ctx context.Context, in *bufio.Reader, id string) error {
	got := make(chan error, 1)
	go func() {
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				got <- err
				return
			}
			if strings.Contains(line, id) && !strings.Contains(line, `"method"`) {
				got <- nil
				return
			}
		}
	}()
	select {
	case err := <-got:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
