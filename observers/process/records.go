package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/internal/ledger"
)

// attribute picks the token a record belongs to: a recent probe's token
// found in texts (the newest first), else the open probe by time. o.mu is
// held.
func (o *Observer) attribute(texts []string) (token, how string) {
	tok, how := o.book.Attribute([]byte(strings.Join(texts, "\x00")), o.token)
	if how == ledger.ByNone {
		return "", ""
	}
	return tok, how
}

// add keeps r for Collect or Close, within maxPending. o.mu is held.
func (o *Observer) add(r observers.Record, texts []string) {
	r.Observer = o.Name()
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	tok, how := o.attribute(texts)
	r.Token = tok
	if how != "" {
		r.Data[observers.KeyAttributed] = how
	}
	o.book.Add(r) // past maxPending, counted and reported as a loss
}

// spawned records a process seen for the first time. o.mu is held.
func (o *Observer) spawned(s stat, now time.Time) {
	exe, argv, truncated, gone := details(o.root, s.pid)
	comm := o.mask(s.comm)
	if gone && argv == nil {
		o.add(observers.Record{
			Kind:    observers.KindLoss,
			Time:    now,
			Summary: fmt.Sprintf("process %d (%s) exited before its argv could be read", s.pid, comm),
			Data:    map[string]string{observers.KeyOp: "spawned", observers.KeyPid: strconv.Itoa(s.pid), observers.KeyPpid: strconv.Itoa(s.ppid), observers.KeyComm: comm},
		}, []string{s.comm})
		return
	}
	masked := o.maskAll(argv)
	data := o.procData(observers.OpSpawned, s, exe, masked)
	if truncated {
		data[observers.KeyTruncated] = "true"
	}
	o.add(observers.Record{
		Kind:    observers.KindProcess,
		Time:    now,
		Summary: fmt.Sprintf("pid %d (ppid %d) spawned: %s", s.pid, s.ppid, shown(masked, comm)),
		Data:    data,
	}, argv)
}

// execve records a process that now runs another program. o.mu is held.
func (o *Observer) execve(s stat, before string, now time.Time) {
	if before == harnessComm && (o.isTracked(s.pid) || o.isWrapped(s.id()) || o.isInfra(s)) {
		return // the harness's containment shim exec'ing the server it wraps
	}
	exe, argv, truncated, gone := details(o.root, s.pid)
	if gone && argv == nil {
		return // it exited meanwhile; its spawn was recorded
	}
	masked := o.maskAll(argv)
	data := o.procData(observers.OpExecve, s, exe, masked)
	data[observers.KeyWas] = o.mask(before)
	if truncated {
		data[observers.KeyTruncated] = "true"
	}
	o.add(observers.Record{
		Kind:    observers.KindProcess,
		Time:    now,
		Summary: fmt.Sprintf("pid %d now runs: %s", s.pid, shown(masked, o.mask(s.comm))),
		Data:    data,
	}, argv)
}

// execLine records one line of the exec log. o.mu is held.
func (o *Observer) execLine(e smbin.Exec, now time.Time) {
	masked := o.maskAll(e.Argv)
	data := map[string]string{
		observers.KeyOp:   "exec",
		observers.KeyProg: o.mask(e.Prog),
		observers.KeyArgv: argvJSON(masked),
		observers.KeyPid:  strconv.Itoa(e.PID),
		observers.KeyPpid: strconv.Itoa(e.PPID),
		observers.KeyCwd:  o.mask(e.Cwd),
	}
	if !e.Time.IsZero() {
		data[observers.KeyStarted] = e.Time.UTC().Format(time.RFC3339Nano)
	}
	o.add(observers.Record{
		Kind:    observers.KindProcess,
		Time:    now,
		Summary: fmt.Sprintf("%s ran (pid %d): %s", o.mask(e.Prog), e.PID, shown(masked, o.mask(e.Prog))),
		Data:    data,
	}, e.Argv)
}

// procData is the Data every record about a process carries.
func (o *Observer) procData(op string, s stat, exe string, masked []string) map[string]string {
	return map[string]string{
		observers.KeyOp:   op,
		observers.KeyPid:  strconv.Itoa(s.pid),
		observers.KeyPpid: strconv.Itoa(s.ppid),
		observers.KeyPgid: strconv.Itoa(s.pgid),
		observers.KeySid:  strconv.Itoa(s.sid),
		observers.KeyComm: o.mask(s.comm),
		observers.KeyExe:  o.mask(exe),
		observers.KeyArgv: argvJSON(masked),
	}
}

// shown is the command line for a Summary, or the comm when argv is empty.
func shown(argv []string, comm string) string {
	if len(argv) == 0 {
		return "[" + comm + "]"
	}
	return shellLine(argv)
}

// lossf records a loss attributed to the open probe. o.mu is held.
func (o *Observer) lossf(format string, args ...any) {
	o.add(observers.Record{
		Kind:    observers.KindLoss,
		Summary: fmt.Sprintf(format, args...),
		Data:    map[string]string{observers.KeyOp: "loss"},
	}, nil)
}

// lossOnce records a loss the first time key is seen. o.mu is held.
func (o *Observer) lossOnce(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if key == "" {
		key = msg
	}
	if o.lost[key] {
		return
	}
	o.lost[key] = true
	o.lossf("%s", msg)
}

// harnessComm is the harness binary's comm (its name, cut to 15 bytes as
// the kernel keeps it): a tracked leader that was the harness's shim
// becomes the server by exec, which is not the server's doing.
var harnessComm = func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	name := filepath.Base(exe)
	if len(name) > 15 {
		name = name[:15]
	}
	return name
}()

// isTracked reports whether pid is a leader this observer tracks. o.mu is held.
func (o *Observer) isTracked(pid int) bool {
	for _, t := range o.tracked {
		if t.pid == pid {
			return true
		}
	}
	return false
}
