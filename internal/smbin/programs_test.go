package smbin

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name       string
		prog       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string // substring; "" means stderr must be empty
	}{
		{"canary without args", "sm-canary", nil, 0, "SEALMARK-CANARY-EXECUTED\n", ""},
		{"canary joins its args", "sm-canary", []string{"tok-1", "a b"}, 0, "SEALMARK-CANARY-EXECUTED tok-1 a b\n", ""},
		{"echo without args is an empty array", "sm-echo", nil, 0, "[]\n", ""},
		{"echo keeps each arg whole", "sm-echo", []string{"a b", "$(id)", "--x=1"}, 0, `["a b","$(id)","--x=1"]` + "\n", ""},
		{"echo does not escape html", "sm-echo", []string{"<a>&"}, 0, `["<a>&"]` + "\n", ""},
		{"echo escapes quotes and newlines", "sm-echo", []string{"q\"\n"}, 0, `["q\"\n"]` + "\n", ""},
		{"sleep zero", "sm-sleep", []string{"0"}, 0, "", ""},
		{"sleep a fraction", "sm-sleep", []string{"0.001"}, 0, "", ""},
		{"sleep without arg", "sm-sleep", nil, 2, "", "usage: sm-sleep"},
		{"sleep with two args", "sm-sleep", []string{"1", "2"}, 2, "", "usage: sm-sleep"},
		{"sleep not a number", "sm-sleep", []string{"soon"}, 2, "", `invalid duration "soon"`},
		{"sleep negative", "sm-sleep", []string{"-1"}, 2, "", "invalid duration"},
		{"sleep NaN", "sm-sleep", []string{"NaN"}, 2, "", "invalid duration"},
		{"sleep infinite", "sm-sleep", []string{"+Inf"}, 2, "", "invalid duration"},
		{"sleep beyond a Duration", "sm-sleep", []string{"1e12"}, 2, "", "invalid duration"},
		{"spew zero", "sm-spew", []string{"0"}, 0, "", ""},
		{"spew small", "sm-spew", []string{"5"}, 0, "xxxxx", ""},
		{"spew without arg", "sm-spew", nil, 2, "", "usage: sm-spew"},
		{"spew negative", "sm-spew", []string{"-1"}, 2, "", `invalid byte count "-1"`},
		{"spew fraction", "sm-spew", []string{"1.5"}, 2, "", "invalid byte count"},
		{"spew above the maximum", "sm-spew", []string{"17179869185"}, 2, "", "invalid byte count"},
		{"unknown program", "sm-nope", nil, 2, "", `unknown program "sm-nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(tt.prog, tt.args, &stdout, &stderr)
			if code != tt.wantCode {
				t.Errorf("exit status = %d, want %d", code, tt.wantCode)
			}
			if got := stdout.String(); got != tt.wantStdout {
				t.Errorf("stdout = %q, want %q", got, tt.wantStdout)
			}
			checkStderr(t, stderr.String(), tt.wantStderr)
		})
	}
}

// checkStderr wants got empty when want is "", else containing want.
func checkStderr(t *testing.T, got, want string) {
	t.Helper()
	if want == "" && got != "" {
		t.Errorf("stderr = %q, want it empty", got)
	}
	if !strings.Contains(got, want) {
		t.Errorf("stderr = %q, want it to contain %q", got, want)
	}
}

// countWriter counts bytes and writes and remembers whether any byte was not 'x'.
type countWriter struct {
	n      int64
	writes int
	other  bool
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.writes++
	w.n += int64(len(p))
	if len(bytes.Trim(p, "x")) > 0 {
		w.other = true
	}
	return len(p), nil
}

func TestSpewWritesExactlyNBytesInChunks(t *testing.T) {
	for _, n := range []int64{1, spewChunk - 1, spewChunk, spewChunk + 1, 3*spewChunk + 17} {
		var w countWriter
		var stderr bytes.Buffer
		if code := Run("sm-spew", []string{itoa(n)}, &w, &stderr); code != 0 {
			t.Fatalf("sm-spew %d: exit status %d, stderr %q", n, code, stderr.String())
		}
		if w.n != n {
			t.Errorf("sm-spew %d: wrote %d bytes", n, w.n)
		}
		if w.other {
			t.Errorf("sm-spew %d: wrote something other than 'x'", n)
		}
		if want := int((n + spewChunk - 1) / spewChunk); w.writes != want {
			t.Errorf("sm-spew %d: %d writes, want %d", n, w.writes, want)
		}
	}
}

// failWriter accepts ok bytes, then fails every write with err.
type failWriter struct {
	ok  int
	err error
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.ok <= 0 {
		return 0, w.err
	}
	n := min(len(p), w.ok)
	w.ok -= n
	return n, nil
}

func TestSpewStopsOnWriteError(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantCode   int
		wantStderr string
	}{
		{"broken pipe is quiet", syscall.EPIPE, 0, ""},
		{"wrapped broken pipe is quiet", &wrapErr{syscall.EPIPE}, 0, ""},
		{"other errors are reported", errors.New("disk on fire"), 1, "sm-spew: disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			w := &failWriter{ok: spewChunk, err: tt.err}
			if code := Run("sm-spew", []string{itoa(1 << 30)}, w, &stderr); code != tt.wantCode {
				t.Errorf("exit status = %d, want %d", code, tt.wantCode)
			}
			checkStderr(t, stderr.String(), tt.wantStderr)
		})
	}
}

func TestSpewReportsShortWrite(t *testing.T) {
	var stderr bytes.Buffer
	if code := Run("sm-spew", []string{"10"}, shortWriter{}, &stderr); code != 1 {
		t.Errorf("exit status = %d, want 1", code)
	}
	checkStderr(t, stderr.String(), io.ErrShortWrite.Error())
}

func TestCanaryAndEchoReportWriteErrors(t *testing.T) {
	for _, prog := range []string{"sm-canary", "sm-echo"} {
		var stderr bytes.Buffer
		if code := Run(prog, []string{"a"}, &failWriter{err: errors.New("closed")}, &stderr); code != 1 {
			t.Errorf("%s: exit status = %d, want 1", prog, code)
		}
		checkStderr(t, stderr.String(), prog+": closed")
	}
}

func TestProgramName(t *testing.T) {
	tests := []struct {
		argv0  string
		want   string
		wantOK bool
	}{
		{"sm-echo", "sm-echo", true},
		{"/tmp/sealmark-1/bin/sm-canary", "sm-canary", true},
		{"./sm-sleep", "sm-sleep", true},
		{"sm-spew.exe", "sm-spew", true},
		{"sm-spew.EXE", "sm-spew", true},
		{"sealmark", "", false},
		{"/usr/bin/sm-echo2", "", false},
		{"sm-echo.sh", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := programName(tt.argv0)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("programName(%q) = %q, %v; want %q, %v", tt.argv0, got, ok, tt.want, tt.wantOK)
		}
	}
}

type wrapErr struct{ err error }

func (e *wrapErr) Error() string { return "write /dev/stdout: " + e.err.Error() }
func (e *wrapErr) Unwrap() error { return e.err }

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
