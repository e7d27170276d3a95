package contain

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
)

// processStart returns the start time of process pid in clock ticks since
// boot (field 22 of /proc/PID/stat).
func processStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	return strconv.ParseUint(string(f[19]), 10, 64)
}

// alive reports whether the owner process still runs: its pid exists and,
// when the start time is known, has that start time (not a reused pid).
func (o owner) alive() bool {
	start, err := processStart(o.Pid)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // cannot tell: keep its sandbox
	}
	return o.Start == 0 || start == o.Start
}
