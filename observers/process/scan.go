package process

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// scanProcs reads the stat line of every process under root (normally
// "/proc"). A process that vanishes meanwhile is left out.
func scanProcs(root string) (map[int]stat, error) {
	d, err := os.Open(root)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	procs := make(map[int]stat, 128)
	buf := make([]byte, maxStat)
	for {
		names, err := d.Readdirnames(256)
		for _, name := range names {
			pid, perr := strconv.Atoi(name)
			if perr != nil || pid <= 0 {
				continue
			}
			b, rerr := readStatFile(root+"/"+name+"/stat", buf)
			if rerr != nil {
				continue // gone meanwhile
			}
			if s, ok := parseStat(b); ok && s.pid == pid {
				procs[pid] = s
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(names) == 0) {
			return procs, nil
		}
		if err != nil {
			return procs, err
		}
	}
}

// details reads a process's exe and command line. gone is true when the
// process had exited (or was a zombie) before its command line could be read.
func details(root string, pid int) (exe string, argv []string, truncated, gone bool) {
	dir := filepath.Join(root, strconv.Itoa(pid))
	exe, _ = os.Readlink(filepath.Join(dir, "exe")) // kernel threads, other users, races: keep going
	b, truncated, err := readBounded(filepath.Join(dir, "cmdline"), maxCmdline)
	if err != nil {
		return exe, nil, false, isGone(err)
	}
	argv = parseCmdline(b, truncated)
	if len(b) == 0 {
		// An empty command line is a zombie or an exiting process: nothing
		// of the run is a kernel thread.
		return exe, nil, false, true
	}
	return exe, argv, truncated, false
}

func isGone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// hasMarker reports whether the environment of pid holds the entry marker
// ("NAME=VALUE"). It streams the file, reading at most maxEnviron bytes,
// and keeps nothing of it.
func hasMarker(root string, pid int, marker string) bool {
	if marker == "" {
		return false
	}
	f, err := os.Open(filepath.Join(root, strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, maxEnviron), 4096)
	want := []byte(marker)
	for {
		entry, err := r.ReadSlice(0)
		long := false
		for errors.Is(err, bufio.ErrBufferFull) { // an entry longer than the buffer is not the marker
			long = true
			_, err = r.ReadSlice(0)
		}
		if !long && bytes.Equal(bytes.TrimSuffix(entry, []byte{0}), want) {
			return true
		}
		if err != nil {
			return false
		}
	}
}
