//go:build !linux

package main

import "os"

// isTerminal reports whether f is a character device, the closest this
// platform's standard library comes to asking for a terminal.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminalWidth is 0: this platform's standard library cannot ask a
// terminal for its size.
func terminalWidth(*os.File) int { return 0 }
