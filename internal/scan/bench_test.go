package scan

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/packs"
)

// BenchmarkScan compares a scan of N fixture servers (the core pack) at
// --jobs 2 with the sum of the same servers' single runs, one after the
// other: ratio is the scan's wall time over that sum (0.5 would be two
// servers' whole time at once). N is SEALMARK_BENCH_SERVERS, default 20:
//
//	go test -run '^$' -bench Scan -benchtime 1x ./internal/scan/
func BenchmarkScan(b *testing.B) {
	n := 20
	if v, err := strconv.Atoi(os.Getenv("SEALMARK_BENCH_SERVERS")); err == nil && v > 0 {
		n = v
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = Entry{Name: fmt.Sprintf("s%02d", i), Source: "bench", Key: "mcpServers", Type: "stdio", Command: self, Args: []string{fixture.Verb}}
	}
	opts := func(jobs int) *Options {
		return &Options{Jobs: jobs, Cwd: b.TempDir(), Env: os.Environ(), Fetcher: &Fetcher{Dir: b.TempDir()},
			Flags: map[string]string{"packs": "core", "sandbox-dir": b.TempDir(), "call-timeout": "5s"}}
	}
	check := func(results []Result) {
		if code := ExitCode(Names(results), packs.High); code != 0 {
			b.Fatalf("the fixture servers are clean, the scan's exit code is %d: %s", code, results[0].Report.HarnessError)
		}
	}
	var single, scan time.Duration
	for b.Loop() {
		start := time.Now()
		for _, e := range entries {
			check(Run(context.Background(), []Entry{e}, opts(1)))
		}
		single += time.Since(start)
		start = time.Now()
		check(Run(context.Background(), entries, opts(2)))
		scan += time.Since(start)
	}
	b.ReportMetric(single.Seconds()/float64(b.N), "singles-s")
	b.ReportMetric(scan.Seconds()/float64(b.N), "scan-jobs2-s")
	b.ReportMetric(scan.Seconds()/single.Seconds(), "ratio")
}
