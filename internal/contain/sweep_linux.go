package contain

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Bounds of the marked-process sweep.
const (
	maxEnviron = 1 << 20         // bytes read of one /proc/PID/environ
	killWait   = 2 * time.Second // for the killed processes to exit
)

// killMarked sends SIGKILL to every process (but this one and its
// ancestors) whose environment holds SEALMARK_RUN=<id> for an id in runs,
// and waits up to killWait for them to exit. Each is held by a pidfd from
// before its environment is read, so a reused pid is never signalled.
func killMarked(runs map[string]bool) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []string{fmt.Sprintf("could not look for marked processes: %v", err)}
	}
	skip := ancestors(os.Getpid())
	var did []string
	var killed []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip[pid] {
			continue
		}
		pfd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue
		}
		run := markedRun(pid)
		if !runs[run] {
			unix.Close(pfd)
			continue
		}
		if err := unix.PidfdSendSignal(pfd, unix.SIGKILL, nil, 0); err != nil {
			did = append(did, fmt.Sprintf("could not kill pid %d of stale run %s: %v", pid, run, err))
			unix.Close(pfd)
			continue
		}
		did = append(did, fmt.Sprintf("killed pid %d of stale run %s", pid, run))
		killed = append(killed, pfd)
	}
	waitExited(killed, killWait)
	for _, fd := range killed {
		unix.Close(fd)
	}
	return did
}

// markedRun returns the run id in process pid's environment, or "".
func markedRun(pid int) string {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxEnviron))
	prefix := []byte(markerName + "=")
	for _, kv := range bytes.Split(b, []byte{0}) {
		if id, ok := bytes.CutPrefix(kv, prefix); ok {
			return string(id)
		}
	}
	return ""
}

// ancestors returns pid and the pids of its ancestors.
func ancestors(pid int) map[int]bool {
	seen := map[int]bool{}
	for pid > 0 && !seen[pid] && len(seen) < 1024 {
		seen[pid] = true
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		i := bytes.LastIndexByte(b, ')')
		f := bytes.Fields(b[i+1:])
		if i < 0 || len(f) < 2 {
			break
		}
		pid, _ = strconv.Atoi(string(f[1]))
	}
	return seen
}

// waitExited waits until every pidfd reports its process exited, or d
// passed.
func waitExited(pidfds []int, d time.Duration) {
	deadline := time.Now().Add(d)
	for len(pidfds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		fds := make([]unix.PollFd, len(pidfds))
		for i, fd := range pidfds {
			fds[i] = unix.PollFd{Fd: int32(fd), Events: unix.POLLIN}
		}
		if _, err := unix.Poll(fds, int(left.Milliseconds())+1); err != nil && err != unix.EINTR {
			return
		}
		var still []int
		for i, p := range fds {
			if p.Revents == 0 {
				still = append(still, pidfds[i])
			}
		}
		pidfds = still
	}
}
