package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal: the terminal end a program writes to,
// and the other end that reads what it wrote. It skips without one.
func openPTY(t *testing.T) (ptmx, pts *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	require.NoError(t, unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	require.NoError(t, err)
	pts, err = os.OpenFile(filepath.Join("/dev/pts", strconv.Itoa(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { pts.Close() })
	return ptmx, pts
}

// onTerminal runs sealmark with standard output a terminal and returns
// what the terminal showed.
func onTerminal(t *testing.T, args ...string) (code int, shown string) {
	t.Helper()
	return onTerminalOf(t, 0, args...)
}

// onTerminalOf is onTerminal on a terminal cols columns wide (0: the
// pseudo-terminal's default, which gives no width).
func onTerminalOf(t *testing.T, cols uint16, args ...string) (code int, shown string) {
	t.Helper()
	ptmx, pts := openPTY(t)
	if cols > 0 {
		require.NoError(t, unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: cols}))
	}
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx) // ends with EIO once the terminal end is closed
		read <- b
	}()
	var errb bytes.Buffer
	code = run(args, strings.NewReader(""), pts, &errb)
	require.NoError(t, pts.Close())
	return code, strings.ReplaceAll(string(<-read), "\r\n", "\n")
}

// onOneTerminal runs sealmark with standard output and standard error the
// same terminal, as a person runs it, and returns what the terminal showed.
func onOneTerminal(t *testing.T, args ...string) (code int, shown string) {
	t.Helper()
	ptmx, pts := openPTY(t)
	read := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(ptmx)
		read <- b
	}()
	code = run(args, strings.NewReader(""), pts, pts)
	require.NoError(t, pts.Close())
	return code, strings.ReplaceAll(string(<-read), "\r\n", "\n")
}

// TestColorOnATerminal: with --color's default (auto), the example's report
// is coloured on a terminal, plain on one when NO_COLOR has a value, and
// still within a screen above the summary.
func TestColorOnATerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the example's report on a terminal, three ways")
	}
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	code, shown := onTerminal(t, "run", "--sandbox-dir", t.TempDir(), "--example")
	require.Equal(t, 1, code, shown)
	assert.Contains(t, shown, "  \x1b[1;31mFAIL\x1b[0m  core/secret-echo")
	assert.LessOrEqual(t, len(aboveSummary(t, shown)), screen, shown)

	t.Setenv("NO_COLOR", "1")
	code, shown = onTerminal(t, "run", "--sandbox-dir", t.TempDir(), "--example")
	require.Equal(t, 1, code, shown)
	assert.NotContains(t, shown, "\x1b", "NO_COLOR turns the colour off")
	assert.Contains(t, shown, "  FAIL  core/secret-echo")
}

// TestProgressEndsBeforeTheReport: on a terminal, a last pack that does
// not apply (fs: the example takes no path) leaves its live line open;
// the run ends it, so the report starts on a line of its own.
func TestProgressEndsBeforeTheReport(t *testing.T) {
	code, shown := onOneTerminal(t, "run", "--sandbox-dir", t.TempDir(), "--packs", "core,fs", "--color=never", "--example")
	require.Equal(t, 1, code, shown)
	assert.Regexp(t, "\x1b\\[Ksealmark: fs \\(\\d+ probes\\) starting  \\d+\\.\\ds\n(?:sealmark: [^\n]*\n)*sealmark dev — STANDARD\n", shown)
	assert.Regexp(t, "(?m)^sealmark dev — STANDARD$", shown, "the report's first line is a line of its own")
	counts := regexp.MustCompile(`sealmark: core (\d+)/(\d+) `).FindAllStringSubmatch(shown, -1)
	require.NotEmpty(t, counts, shown)
	for _, c := range counts {
		done, _ := strconv.Atoi(c[1])
		total, _ := strconv.Atoi(c[2])
		assert.LessOrEqual(t, done, total, "a count passed its total: %s", c[0])
	}
	last := counts[len(counts)-1]
	assert.Equal(t, last[2], last[1], "core's last result, the drift check, completes the count: %s", last[0])
	assert.Contains(t, shown, " "+last[1]+"/"+last[2]+" tool-drift ")
}
