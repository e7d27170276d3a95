package launch

import (
	"bytes"
	"os"
	"strconv"
)

// groupMembers lists the running (not zombie) processes whose process group
// is pgid, by reading /proc/*/stat.
func groupMembers(pgid int) ([]int, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, true // cannot list; kill(2) said the group exists
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		state, group, ok := parseStat(stat)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, len(pids) > 0
}

// parseStat reads the state and process group from a /proc/PID/stat line:
// "pid (comm) state ppid pgrp ...", where comm may hold spaces and parentheses.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, false
	}
	return fields[0][0], pgrp, true
}
