package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestListFitsTheTerminal: without COLUMNS, list cuts its rows to the
// width the terminal reports.
func TestListFitsTheTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "")
	_, pts := openPTY(t)
	require.NoError(t, unix.IoctlSetWinsize(int(pts.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 90}))
	assert.Equal(t, 90, terminalWidth(pts))
	assert.Equal(t, 90, listWidth(pts, ""))
	assert.Equal(t, 50, listWidth(pts, "50"), "COLUMNS wins")
	code, shown := onTerminalOf(t, 90, "list")
	require.Equal(t, 0, code)
	assert.Equal(t, 90, longest(shown), "%s", shown)
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.Equal(t, 0, terminalWidth(null))
	assert.Equal(t, defaultListWidth, listWidth(null, "wide"), "a COLUMNS that is no number is ignored")
}
