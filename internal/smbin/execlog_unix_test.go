//go:build unix

package smbin

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestAppendExecDoesNotFollowALink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("keep\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ExecLog)); err != nil {
		t.Fatal(err)
	}
	if err := appendExec(dir, "sm-echo", []string{"sm-echo"}); err == nil {
		t.Error("appendExec through a link in place of the log succeeded, want an error")
	}
	if got, _ := os.ReadFile(outside); string(got) != "keep\n" {
		t.Errorf("link target now holds %q, want it untouched", got)
	}
}

func TestExecLogFIFODoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ExecLog), 0o600); err != nil {
		t.Fatal(err)
	}
	// A plain open of a FIFO without a peer would block forever.
	if err := appendExec(dir, "sm-echo", []string{"sm-echo"}); err == nil {
		t.Error("appendExec to a FIFO succeeded, want an error")
	}
	if _, _, err := ReadExecLog(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadExecLog of a FIFO = %v, want a not-a-regular-file error", err)
	}
}
