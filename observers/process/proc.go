package process

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
)

// Proc is one process as /proc showed it.
type Proc struct {
	PID, PPID, PGID, SID int
	Exe                  string   // the executable's path; "" when it could not be read
	Argv                 []string // the command line, masked by Options.Secrets
	Start                uint64   // start time in clock ticks since boot: with PID, its identity
}

// ident is a process's identity: a pid is reused, a pid with its start time
// is not.
type ident struct {
	pid   int
	start uint64
}

// stat is what one /proc/PID/stat line says.
type stat struct {
	pid, ppid, pgid, sid int
	state                byte
	comm                 string
	start                uint64
}

func (s stat) id() ident { return ident{s.pid, s.start} }

// alive reports whether the process still runs: a zombie is dead but not yet
// reaped by its parent.
func (s stat) alive() bool { return s.state != 'Z' && s.state != 'X' && s.state != 'x' }

// Bounds on what is read from /proc for one process.
const (
	maxStat    = 4 << 10
	maxCmdline = 64 << 10
	maxEnviron = 8 << 20 // larger than the kernel lets an exec pass
)

// parseStat parses a /proc/PID/stat line: "pid (comm) state ppid pgrp
// session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime cutime
// cstime priority nice num_threads itrealvalue starttime ...". The comm may
// hold spaces and parentheses, so it ends at the last ')'.
func parseStat(b []byte) (stat, bool) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return stat{}, false
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return stat{}, false
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return stat{}, false
	}
	s := stat{pid: pid, state: f[0][0], comm: string(b[open+1 : end])}
	var errs [4]error
	s.ppid, errs[0] = strconv.Atoi(string(f[1]))
	s.pgid, errs[1] = strconv.Atoi(string(f[2]))
	s.sid, errs[2] = strconv.Atoi(string(f[3]))
	s.start, errs[3] = strconv.ParseUint(string(f[19]), 10, 64)
	if errors.Join(errs[:]...) != nil {
		return stat{}, false
	}
	return s, true
}

// parseCmdline splits a /proc/PID/cmdline read into its arguments. When the
// read was cut at the bound (truncated), the last argument is incomplete and
// is dropped, so no fragment of a secret escapes the masking.
func parseCmdline(b []byte, truncated bool) []string {
	if truncated {
		if i := bytes.LastIndexByte(b, 0); i >= 0 {
			b = b[:i+1]
		} else {
			b = nil
		}
	}
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	argv := make([]string, len(parts))
	for i, p := range parts {
		argv[i] = string(p)
	}
	return argv
}

// readBounded reads at most max bytes of the file at path and reports
// whether there was more.
func readBounded(path string, max int) ([]byte, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if len(b) > max {
		return b[:max], true, err
	}
	return b, false, err
}

// argvJSON is argv as a JSON array.
func argvJSON(argv []string) string {
	if argv == nil {
		argv = []string{}
	}
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false) // keep masks such as "<redacted>" readable
	_ = enc.Encode(argv)
	return strings.TrimSuffix(sb.String(), "\n")
}

// maxShown bounds the command line in a record's Summary.
const maxShown = 300

// shellLine joins argv with spaces, quoting arguments that are not plain
// words, for a Summary. It is cut after maxShown bytes.
func shellLine(argv []string) string {
	var sb strings.Builder
	for i, a := range argv {
		if i > 0 {
			sb.WriteByte(' ')
		}
		if plainWord(a) {
			sb.WriteString(a)
		} else {
			sb.WriteString(strconv.Quote(a))
		}
		if sb.Len() > maxShown {
			s := sb.String()
			for cut := maxShown; cut > 0; cut-- { // do not split a UTF-8 sequence
				if s[cut]&0xC0 != 0x80 {
					return s[:cut] + "…"
				}
			}
			return "…"
		}
	}
	return sb.String()
}

func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_./=:,+@%", r):
		default:
			return false
		}
	}
	return true
}
