package sealmark_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/example"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/slowtest"
)

var (
	binOnce sync.Once
	binDir  string // holds bin/sealmark; under the temp directory, not in it
	binPath string
	binErr  error
)

// sealmarkBinary builds the sealmark command once for the whole test
// binary and returns its path.
func sealmarkBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		goCmd, err := exec.LookPath("go")
		if err != nil {
			binErr = err
			return
		}
		if binDir, binErr = os.MkdirTemp("", "docsamples-"); binErr != nil {
			return
		}
		cleanup.Add(func() { os.RemoveAll(binDir) }) // run by sealmarktest.Main after the tests
		binPath = filepath.Join(binDir, "bin", "sealmark")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goCmd, "build", "-o", binPath, "./cmd/sealmark")
		cmd.Dir = "."
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build ./cmd/sealmark: %v\n%s", err, out)
		}
	})
	if errors.Is(binErr, exec.ErrNotFound) {
		t.Skip("no go command on PATH")
	}
	require.NoError(t, binErr)
	return binPath
}

// sealmark runs the sealmark binary in dir with env added to this
// process's environment, and returns its standard output and error.
func sealmark(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string) {
	t.Helper()
	bin := sealmarkBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(10*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "SEALMARK_CONFIG=", "NO_COLOR=1", "SEALMARK_TIMEOUT="+startBound), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("sealmark %s did not end within its deadline:\n%s%s", strings.Join(args, " "), out.String(), errb.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("sealmark %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String()
}

// fixtureArgs is this test binary as the fixture server with flaws (its
// TestMain, in example_test.go, dispatches it).
func fixtureArgs(t *testing.T, flaws string) []string {
	self, err := os.Executable()
	require.NoError(t, err)
	return []string{self, fixture.Verb, "-flaws=" + flaws}
}

// The output samples of the README and the docs are kept equal to real
// runs. A sample is a fenced block preceded by a marker line:
//
//	<!-- sample: sealmark run --example -->    the block is that command's output
//	<!-- sample: cwd=testdata/npm/fs-0.6.2 --> the block's "$ sealmark ..." lines are
//	                                           the commands, each followed by its output,
//	                                           run in that directory (of the module)
//	<!-- sample: gen=scan -->                  the output of a generator below
//
// Every other line of the block must be a line of the real output, in
// order and next to the one before it, after both are normalised (times,
// pids, ports, the padding of columns); a line whose text starts with "..."
// or "(" stands for lines left out, and a line ending in " …" for a line
// that begins with what precedes it. Every bare fenced block (no language)
// of the pages in samplePages is a marked sample or is marked
// <!-- not a sample: why -->. Samples that run a real server skip, saying
// why, when it is not installed, and under -short.

// samplePages are the pages whose samples are checked, from the module root.
var samplePages = []string{
	"README.md", "docs/cli.md", "docs/config.md", "docs/go-test.md", "docs/scan.md",
	"docs/ci.md", "docs/containment.md", "docs/observers.md", "docs/performance.md",
	"docs/reports.md", "docs/text-report.md", "docs/pinning.md", "docs/sarif.md", "docs/git-probes.md",
	"docs/fleet.md", "docs/paths.md", "docs/sdk-calibration.md", "docs/report-schema.md", "docs/precision.md",
	"docs/packs/core.md", "docs/packs/fs.md", "docs/packs/effects.md", "docs/packs/git.md",
	"docs/packs/exec.md", "docs/packs/sqlite.md", "docs/packs/db.md",
}

// sampleMarker matches a marker line.
var sampleMarker = regexp.MustCompile(`^<!-- (sample|not a sample): ?(.*?) -->$`)

// sample is one marked block.
type sample struct {
	page, marker, block string
}

// pageSamples returns the marked samples of a page, and fails t for a bare
// fenced block (no language: output) with no marker on the line before it.
// A fence may be indented (in a list); so may its marker, and the block's
// lines lose the fence's indentation.
func pageSamples(t *testing.T, root, page string) []sample {
	raw, err := os.ReadFile(filepath.Join(root, page))
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	var out []sample
	for i := 0; i < len(lines); i++ {
		fence := strings.TrimLeft(lines[i], " ")
		if !strings.HasPrefix(fence, "```") {
			continue
		}
		indent, lang := len(lines[i])-len(fence), strings.TrimPrefix(fence, "```")
		var body []string
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			l := lines[i]
			if len(l) >= indent && strings.TrimSpace(l[:indent]) == "" {
				l = l[indent:]
			}
			body = append(body, l)
		}
		start := i - len(body) - 1
		var m []string
		if start > 0 {
			m = sampleMarker.FindStringSubmatch(strings.TrimSpace(lines[start-1]))
		}
		switch {
		case m != nil && m[1] == "sample":
			out = append(out, sample{page, m[2], strings.Join(body, "\n")})
		case m == nil && lang == "":
			t.Errorf("%s:%d: an output block with no <!-- sample: ... --> marker", page, start+1)
		}
	}
	return out
}

// volatile are the parts of a line that differ between two runs.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|ms|s|m)\b`), "{time}"}, // 9.9s, 1m24.4s
	{regexp.MustCompile(`\bpid \d+`), "pid {pid}"},
	{regexp.MustCompile(`(127\.0\.0\.1|\[::1\]|\[::ffff:127\.0\.0\.1\]|localhost|0x7f000001|2130706433):(\d+|\{[a-z_]+\})`), "$1:{port}"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "{date}"},
}

// columns matches the padding of a report's columns (and of the lines
// under a row), which depends on the other rows of the same run.
var columns = regexp.MustCompile(`  +`)

func normalise(line string) string {
	line = strings.TrimRight(line, " ")
	line = columns.ReplaceAllString(line, "  ")
	for _, v := range volatile {
		line = v.re.ReplaceAllString(line, v.with)
	}
	return line
}

// elided reports whether a sample line stands for lines left out.
func elided(line string) bool {
	s := strings.TrimSpace(line)
	return strings.HasPrefix(s, "...") || strings.HasPrefix(s, "(")
}

// checkExcerpt fails t unless the lines of want are lines of got, in
// order: the first anywhere, each next one the line after the last unless
// an elision ("...") stands between them. Blank lines are compared too.
func checkExcerpt(t *testing.T, where string, want []string, got string) {
	t.Helper()
	for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
		want = want[:len(want)-1]
	}
	real := strings.Split(got, "\n")
	for i := range real {
		real[i] = normalise(real[i])
	}
	at, skip := 0, true // skip: lines may be left out before the next
	for _, w := range want {
		if elided(w) {
			skip = true
			continue
		}
		n := normalise(w)
		prefix, cut := strings.CutSuffix(n, " …") // a line cut short: the real one begins so
		found := false
		for at < len(real) {
			at++
			if real[at-1] == n || cut && strings.HasPrefix(real[at-1], prefix) {
				found = true
				break
			}
			if !skip {
				break
			}
		}
		if !found {
			how := "the line after the previous one"
			if skip {
				how = "anywhere after the previous one"
			}
			t.Errorf("%s: the sample's line is not %s in the real output:\n  %s\n--- real output ---\n%s", where, how, w, got)
			return
		}
		skip = false
	}
}

// sampleCmd is one "$ sealmark ..." line of a sample: its environment and
// arguments.
type sampleCmd struct {
	env, args []string
}

// parseCommand reads a sample's command line (its continuation lines
// joined): VAR=value words, then sealmark and its arguments, up to a #.
func parseCommand(t *testing.T, line string) sampleCmd {
	var c sampleCmd
	words := strings.Fields(line)
	for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
		c.env = append(c.env, words[0])
		words = words[1:]
	}
	require.NotEmpty(t, words, "an empty command: %q", line)
	require.Equal(t, "sealmark", words[0], "a sample command runs sealmark: %q", line)
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "#") {
			break
		}
		c.args = append(c.args, w)
	}
	return c
}

// startBound bounds a server's start in the samples' runs: a loaded
// machine's starts take longer than the default's 30 s allows, and the
// bound shows in no sample.
const startBound = "120s"

// runCLI runs a sample's command in dir (so {cwd} is dir) and returns
// its standard output.
func runCLI(t *testing.T, dir string, c sampleCmd) string {
	t.Helper()
	out, _ := sealmark(t, dir, c.env, c.args...)
	return out
}

// needs skips t when what a sample's commands need is missing: node and
// the pinned server's install for a directory of testdata/npm, PostgreSQL
// for a command given an admin DSN.
func needs(t *testing.T, dir string, cmds []sampleCmd) {
	t.Helper()
	if strings.Contains(dir, "testdata/npm/") {
		if testing.Short() {
			t.Skip("-short: a real server's run")
		}
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not on PATH: the sample's real server cannot run")
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
			t.Skipf("%s is not installed: run npm ci there, as .ci/run does", dir)
		}
	}
	for _, c := range cmds {
		for _, e := range c.env {
			if strings.HasPrefix(e, "SEALMARK_DB_ADMIN_DSN=") {
				conn, err := net.DialTimeout("tcp", "127.0.0.1:5432", 2*time.Second)
				if err != nil {
					t.Skip("no PostgreSQL on 127.0.0.1:5432: the db sample cannot run")
				}
				conn.Close()
			}
		}
	}
}

// generators make the output of samples whose command needs this test
// binary's own servers.
var generators = map[string]func(t *testing.T) string{
	"table-failure": goTestTable,
	// tool-pin: the fixture notes server pinned, then run with a tool's
	// description changed.
	"tool-pin": func(t *testing.T) string {
		lock := filepath.Join(t.TempDir(), "sealmark.lock.json")
		out, errOut := sealmark(t, t.TempDir(), nil, append([]string{"pin", "--lock", lock, "--sandbox-dir", t.TempDir(), "--quiet", "--"}, fixtureArgs(t, "")...)...)
		require.FileExists(t, lock, "%s%s", out, errOut)
		out, _ = sealmark(t, t.TempDir(), nil, append([]string{"run", "--lock", lock, "--probes", "core/tool-pin", "--sandbox-dir", t.TempDir(), "--quiet", "--"}, fixtureArgs(t, "shadowing-description")...)...)
		return strings.ReplaceAll(out, filepath.Dir(lock)+string(filepath.Separator), "") // the lock's directory is the test's
	},
	// sarif-no-location: what the CLI says on stderr when a SARIF log's
	// results have no file to point at: run in an empty directory (x,
	// shown as /tmp/x) outside any repository.
	"sarif-no-location": func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "x")
		require.NoError(t, os.Mkdir(dir, 0o700))
		_, errOut := sealmark(t, dir, []string{"GIT_CEILING_DIRECTORIES=" + filepath.Dir(dir)},
			"run", "--example", "--quiet", "--packs", "core", "--sarif", "out.sarif")
		return strings.ReplaceAll(errOut, dir, "/tmp/x")
	},
	// scan: the table of a scan of one client config holding the bundled
	// example, a fixture server, a program that does not exist and a
	// remote URL (never contacted).
	"scan": func(t *testing.T) string {
		cfg := filepath.Join(t.TempDir(), "mcp.json")
		calendar := fixtureArgs(t, "wrong-unknown-method-code")
		raw, err := json.Marshal(map[string]any{"mcpServers": map[string]any{
			"notes":    map[string]any{"command": sealmarkBinary(t), "args": []string{example.Verb}},
			"calendar": map[string]any{"command": calendar[0], "args": calendar[1:]},
			"broken":   map[string]any{"command": "/nonexistent/mcp-server"},
			"remote":   map[string]any{"url": "https://mcp.example.com/mcp"},
		}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(cfg, raw, 0o600))
		out, _ := sealmark(t, t.TempDir(), nil, "scan", "--quiet", "--jobs", "2", "--packs", "core", "--timeout", startBound, "--sandbox-dir", t.TempDir(), "--cache-dir", t.TempDir(), cfg)
		return out
	},
}

// tableSample is the go test door with docs/go-test.md's first row, run
// against the fixture notes server that writes outside its root on every
// call: what a user's go test prints.
const tableSample = `package server_test

import (
	"os"
	"testing"

	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/table"
	"github.com/sealmark/sealmark/sealmarktest"
)

func TestMain(m *testing.M) { fixture.Dispatch(); sealmarktest.Main(m) }

func TestPacks(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sealmarktest.Server(t, sealmarktest.Config{
		Command: self, Args: []string{fixture.Verb, "-flaws=write-outside"},
		Probes: []table.Row{{
			Name: "add-stays-inside", Tool: "add_note", Args: map[string]any{"title": "{token}"},
			Expect:   []table.Expect{table.NoFileChangesOutsideRoot(), table.NotRan("sm-canary")},
			Severity: packs.Critical,
		}},
	})
}
`

// goTestTable builds tableSample with go test -c in a package of its own
// laid over the module with -overlay, so nothing is written into the
// repository, runs it, and returns its output.
func goTestTable(t *testing.T) string {
	if testing.Short() {
		t.Skip("-short: builds and runs a go test binary")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "server_test.go")
	require.NoError(t, os.WriteFile(file, []byte(tableSample), 0o600))
	pkg := "internal/docsample" // no such directory: the overlay makes it
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{
		filepath.Join(root, pkg, "server_test.go"): file,
	}})
	require.NoError(t, err)
	ofile := filepath.Join(tmp, "overlay.json")
	require.NoError(t, os.WriteFile(ofile, overlay, 0o600))
	ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(10*time.Minute))
	defer cancel()
	bin := filepath.Join(tmp, "docsample.test")
	build := exec.CommandContext(ctx, goCmd, "test", "-vet=off", "-c", "-o", bin, "-overlay="+ofile, "./"+pkg)
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "the sample's test does not build:\n%s", out)
	// The test binary runs as go test runs it, in a directory of its own
	// (the package's does not exist).
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^TestPacks$/^mine$/^add-stays-inside$")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err = cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "the sample's test did not end within its deadline:\n%s", out)
	require.Error(t, err, "the row passed against a server that writes outside its root:\n%s", out)
	return string(out)
}

func TestDocSamplesAreRealRuns(t *testing.T) {
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	count := 0
	for _, page := range samplePages {
		for i, s := range pageSamples(t, root, page) {
			count++
			s := s
			t.Run(strings.ReplaceAll(page, "/", "_")+"#"+strconv.Itoa(i+1), func(t *testing.T) {
				t.Parallel()
				checkSample(t, root, s)
			})
		}
	}
	assert.Greater(t, count, 8, "the pages hold fewer samples than expected")
}

// checkSample runs one sample's commands and compares the block with
// their output.
func checkSample(t *testing.T, root string, s sample) {
	where := s.page + " (" + s.marker + ")"
	if gen, ok := strings.CutPrefix(s.marker, "gen="); ok {
		g, found := generators[gen]
		require.True(t, found, "%s: no generator %q", where, gen)
		checkExcerpt(t, where, strings.Split(s.block, "\n"), g(t))
		return
	}
	dir, marker := root, s.marker
	if rest, ok := strings.CutPrefix(marker, "cwd="); ok {
		rel, after, _ := strings.Cut(rest, " ")
		dir, marker = filepath.Join(root, rel), strings.TrimSpace(after)
	}
	if marker != "" { // the marker is the command; the block its output
		c := parseCommand(t, marker)
		needs(t, dir, []sampleCmd{c})
		checkExcerpt(t, where, strings.Split(s.block, "\n"), runCLI(t, dir, c))
		return
	}
	// The block's own "$ " lines are the commands.
	type part struct {
		cmd  sampleCmd
		want []string
	}
	var parts []part
	lines := strings.Split(s.block, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(l, "$ ") {
			require.NotEmpty(t, parts, "%s: output before any $ command", where)
			parts[len(parts)-1].want = append(parts[len(parts)-1].want, l)
			continue
		}
		full := strings.TrimPrefix(l, "$ ")
		for strings.HasSuffix(full, `\`) && i+1 < len(lines) {
			i++
			full = strings.TrimSuffix(full, `\`) + " " + strings.TrimSpace(lines[i])
		}
		parts = append(parts, part{cmd: parseCommand(t, full)})
	}
	require.NotEmpty(t, parts, "%s: a sample with no command", where)
	var cmds []sampleCmd
	for _, p := range parts {
		cmds = append(cmds, p.cmd)
	}
	needs(t, dir, cmds)
	for _, p := range parts {
		checkExcerpt(t, where+": $ sealmark "+strings.Join(p.cmd.args, " "), p.want, runCLI(t, dir, p.cmd))
	}
}

// TestNormaliseTimes: a time a loaded run prints in minutes matches the
// sample's seconds, as any other time does.
func TestNormaliseTimes(t *testing.T) {
	sample := normalise("calendar  direct    warn     CORE-UNKNOWN-METHOD medium  9.9s")
	for _, real := range []string{"calendar  direct    warn     CORE-UNKNOWN-METHOD medium  1m24.4s", "calendar  direct    warn     CORE-UNKNOWN-METHOD medium  1h2m3s"} {
		if got := normalise(real); got != sample {
			t.Errorf("normalise(%q) = %q, want %q", real, got, sample)
		}
	}}
