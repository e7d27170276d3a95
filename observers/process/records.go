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
)

// attribute picks the token a record belongs to: a recent probe's token
// found in texts (the open probe's first), else the open probe by time.
// o.mu is held.
func (o *Observer) attribute(texts []string) (token, how string) {
	has := func(tok string) bool {
		for _, t := range texts {
			if strings.Contains(t, tok) {
				return true
			}
		}
		return false
	}
	if o.token != "" && has(o.token) {
		return o.token, "token"
	}
	for i := len(o.tokens) - 1; i >= 0; i-- {
		if t := o.tokens[i]; t != o.token && has(t) {
			return t, "token"
		}
	}
	if o.token != "" {
		return o.token, "time"
	}
	return "", ""
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
		r.Data["attributed"] = how
	}
	if len(o.pending) >= maxPending {
		o.dropped++
		return
	}
	o.pending = append(o.pending, r)
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
			Data:    map[string]string{"op": "spawned", "pid": strconv.Itoa(s.pid), "ppid": strconv.Itoa(s.ppid), "comm": comm},
		}, []string{s.comm})
		return
	}
	masked := o.maskAll(argv)
	data := o.procData("spawned", s, exe, masked)
	if truncated {
		data["truncated"] = "true"
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
	data := o.procData("execve", s, exe, masked)
	data["was"] = o.mask(before)
	if truncated {
		data["truncated"] = "true"
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
		"op":   "exec",
		"prog": o.mask(e.Prog),
		"argv": argvJSON(masked),
		"pid":  strconv.Itoa(e.PID),
		"ppid": strconv.Itoa(e.PPID),
		"cwd":  o.mask(e.Cwd),
	}
	if !e.Time.IsZero() {
		data["started"] = e.Time.UTC().Format(time.RFC3339Nano)
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
		"op":   op,
		"pid":  strconv.Itoa(s.pid),
		"ppid": strconv.Itoa(s.ppid),
		"pgid": strconv.Itoa(s.pgid),
		"sid":  strconv.Itoa(s.sid),
		"comm": o.mask(s.comm),
		"exe":  o.mask(exe),
		"argv": argvJSON(masked),
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
		Data:    map[string]string{"op": "loss"},
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

// dropReport returns a loss record for the records dropped past maxPending,
// and resets the count. o.mu is held.
func (o *Observer) dropReport(token string) []observers.Record {
	if o.dropped == 0 {
		return nil
	}
	n := o.dropped
	o.dropped = 0
	return []observers.Record{{
		Kind:     observers.KindLoss,
		Observer: o.Name(),
		Time:     time.Now(),
		Token:    token,
		Summary:  fmt.Sprintf("process observer dropped %d records past its limit of %d", n, maxPending),
		Data:     map[string]string{"op": "loss", "dropped": strconv.Itoa(n)},
	}}
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
