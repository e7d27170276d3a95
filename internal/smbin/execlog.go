package smbin

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// ExecLog is the name of the log file in the bin directory. Every sm-* run
// appends one JSON object on one line: an [Exec].
const ExecLog = ".exec.log"

// Exec is one line of the exec log: one run of an sm-* program.
type Exec struct {
	Prog string    `json:"prog"` // the program, e.g. "sm-canary"
	Argv []string  `json:"argv"` // the whole argv, argv[0] as the caller wrote it
	PID  int       `json:"pid"`
	PPID int       `json:"ppid"`
	Cwd  string    `json:"cwd"`  // working directory; "" when it could not be read
	Time time.Time `json:"time"` // start, written as RFC 3339 with nanoseconds
}

// MaxExecLog bounds how much of the exec log [ReadExecLog] reads.
const MaxExecLog = 8 << 20

// maxExecLine bounds one line of the exec log: longer lines are skipped.
const maxExecLine = 256 << 10

// ReadExecLog reads the exec log in dir (a sandbox's bin directory). A
// missing log means nothing ran: no entries and no error. It reads at most
// [MaxExecLog] bytes, refuses anything but a regular file, and skips lines that are not a well-formed [Exec] (a
// server can write into bin too); skipped counts them.
func ReadExecLog(dir string) (execs []Exec, skipped int, err error) {
	f, err := os.OpenFile(filepath.Join(dir, ExecLog), os.O_RDONLY|openGuard, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read exec log: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("read exec log: %s is not a regular file", f.Name())
	}
	sc := bufio.NewScanner(io.LimitReader(f, MaxExecLog))
	sc.Buffer(make([]byte, 0, 4096), maxExecLine)
	for sc.Scan() {
		var e Exec
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Prog == "" {
			skipped++
			continue
		}
		execs = append(execs, e)
	}
	if err := sc.Err(); err != nil {
		// An overlong line ends the scan; what came before still counts.
		return execs, skipped + 1, nil
	}
	return execs, skipped, nil
}

// appendExec appends one [Exec] line for prog to dir's exec log, in a single
// write on a file opened with O_APPEND, so concurrent runs do not interleave.
// It does not follow a link in place of the log.
func appendExec(dir, prog string, argv []string) error {
	cwd, _ := os.Getwd()
	line, err := json.Marshal(Exec{
		Prog: prog,
		Argv: argv,
		PID:  os.Getpid(),
		PPID: os.Getppid(),
		Cwd:  cwd,
		Time: time.Now(),
	})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, ExecLog), os.O_WRONLY|os.O_APPEND|os.O_CREATE|openGuard, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(line, '\n'))
	cerr := f.Close()
	return errors.Join(werr, cerr)
}

// binDir is the directory a program started as argv0 lives in: the
// directory part of argv0, or, when argv0 has no slash, of its match in PATH.
// Links are not resolved: the bin directory is where the link is.
func binDir(argv0 string) (string, error) {
	p := argv0
	if !strings.ContainsAny(argv0, `/\`) {
		found, err := exec.LookPath(argv0)
		if err != nil && !errors.Is(err, exec.ErrDot) {
			return "", err
		}
		p = found
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.Dir(abs), nil
}
