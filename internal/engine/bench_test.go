package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/internal/session"
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
		e, err := engine.New(engine.Config{Command: self, Args: []string{fixture.Verb}, SandboxDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if rep := e.Run(context.Background(), engine.Hooks{}); rep.HarnessError != "" {
			b.Fatal(rep.HarnessError)
		}
	}
}
