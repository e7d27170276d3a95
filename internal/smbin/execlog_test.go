package smbin

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestAppendExecThenRead(t *testing.T) {
	dir := t.TempDir()
	before := time.Now().Add(-time.Second)
	if err := appendExec(dir, "sm-echo", []string{"/x/bin/sm-echo", "a b"}); err != nil {
		t.Fatal(err)
	}
	if err := appendExec(dir, "sm-canary", []string{"sm-canary", "tok"}); err != nil {
		t.Fatal(err)
	}

	raw, err := os.ReadFile(filepath.Join(dir, ExecLog))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("exec log has %d lines, want one per run:\n%s", len(lines), raw)
	}
	for _, field := range []string{`"prog":`, `"argv":`, `"pid":`, `"ppid":`, `"cwd":`, `"time":`} {
		if !strings.Contains(lines[0], field) {
			t.Errorf("exec log line %s lacks field %s", lines[0], field)
		}
	}

	execs, skipped, err := ReadExecLog(dir)
	if err != nil || skipped != 0 || len(execs) != 2 {
		t.Fatalf("ReadExecLog = %d execs, %d skipped, %v; want 2, 0, nil", len(execs), skipped, err)
	}
	wd, _ := os.Getwd()
	e := execs[0]
	if e.Prog != "sm-echo" || !reflect.DeepEqual(e.Argv, []string{"/x/bin/sm-echo", "a b"}) {
		t.Errorf("first exec = %s %q, want sm-echo [/x/bin/sm-echo \"a b\"]", e.Prog, e.Argv)
	}
	if e.PID != os.Getpid() || e.PPID != os.Getppid() || e.Cwd != wd {
		t.Errorf("first exec pid, ppid, cwd = %d, %d, %s; want %d, %d, %s", e.PID, e.PPID, e.Cwd, os.Getpid(), os.Getppid(), wd)
	}
	if e.Time.Before(before) {
		t.Errorf("first exec time %v is before the run", e.Time)
	}
	if execs[1].Prog != "sm-canary" || !reflect.DeepEqual(execs[1].Argv, []string{"sm-canary", "tok"}) {
		t.Errorf("second exec = %s %q, want sm-canary [sm-canary tok]", execs[1].Prog, execs[1].Argv)
	}

	if runtime.GOOS != "windows" {
		fi, err := os.Stat(filepath.Join(dir, ExecLog))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != 0o600 {
			t.Errorf("exec log mode = %v, want 0600", got)
		}
	}
}

func TestReadExecLog(t *testing.T) {
	good := `{"prog":"sm-echo","argv":["sm-echo"],"pid":7,"ppid":1,"cwd":"/r","time":"2025-01-01T00:00:00.5Z"}`
	tests := []struct {
		name        string
		content     string
		wantProgs   []string
		wantSkipped int
	}{
		{"empty", "", nil, 0},
		{"one entry", good + "\n", []string{"sm-echo"}, 0},
		{"no final newline", good, []string{"sm-echo"}, 0},
		{"garbage between entries", good + "\nnot json\n{}\n" + good + "\n", []string{"sm-echo", "sm-echo"}, 2},
		{"overlong line ends the read", good + "\n" + strings.Repeat("a", maxExecLine+1) + "\n" + good + "\n", []string{"sm-echo"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, ExecLog), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			execs, skipped, err := ReadExecLog(dir)
			if err != nil {
				t.Fatal(err)
			}
			var progs []string
			for _, e := range execs {
				progs = append(progs, e.Prog)
			}
			if !reflect.DeepEqual(progs, tt.wantProgs) || skipped != tt.wantSkipped {
				t.Errorf("ReadExecLog = %q, %d skipped; want %q, %d skipped", progs, skipped, tt.wantProgs, tt.wantSkipped)
			}
		})
	}
	t.Run("first exec decoded", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ExecLog), []byte(good+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		execs, _, _ := ReadExecLog(dir)
		want := Exec{Prog: "sm-echo", Argv: []string{"sm-echo"}, PID: 7, PPID: 1, Cwd: "/r", Time: time.Date(2025, 1, 1, 0, 0, 0, 5e8, time.UTC)}
		if len(execs) != 1 || !reflect.DeepEqual(execs[0], want) {
			t.Errorf("ReadExecLog = %+v, want [%+v]", execs, want)
		}
	})
}

func TestReadExecLogMissingIsEmpty(t *testing.T) {
	execs, skipped, err := ReadExecLog(t.TempDir())
	if execs != nil || skipped != 0 || err != nil {
		t.Errorf("ReadExecLog of a directory without a log = %v, %d, %v; want nil, 0, nil", execs, skipped, err)
	}
}

func TestReadExecLogRefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ExecLog), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadExecLog(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("ReadExecLog of a directory log = %v, want a not-a-regular-file error", err)
	}
}

func TestBinDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("PATH lookup of an extensionless file does not apply on Windows")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sm-echo"), []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Chdir(dir)
	tests := []struct {
		argv0   string
		want    string
		wantErr bool
	}{
		{filepath.Join(dir, "sm-echo"), dir, false},
		{"sm-echo", dir, false},                     // no slash: found in PATH
		{"./sm-echo", dir, false},                   // relative with a slash: against the working directory
		{"sm-not-there", "", true},                  // no slash and not in PATH
		{"/elsewhere/sm-echo", "/elsewhere", false}, // links are not resolved, existence not needed
	}
	for _, tt := range tests {
		got, err := binDir(tt.argv0)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("binDir(%q) = %q, %v; want %q, error %v", tt.argv0, got, err, tt.want, tt.wantErr)
		}
	}
}
