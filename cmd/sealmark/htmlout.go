package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
	"github.com/sealmark/sealmark/packs"
)

// checkHTMLPath is preflight for --html: its directory exists and the path
// is not a directory, checked before any server starts.
func checkHTMLPath(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("flag --html: the directory %q does not exist", dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("flag --html: %q is a directory", path)
	}
	return nil
}

// writeHTML writes the servers' reports as one HTML page (report.WriteHTML)
// to path; an empty path writes nothing.
func writeHTML(path string, named []scan.Named, failOn packs.Severity) error {
	if path == "" {
		return nil
	}
	return writeWith(path, func(w io.Writer) error { return report.WriteHTML(w, named, failOn) })
}
