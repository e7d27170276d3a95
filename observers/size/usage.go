package size

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// errStopped ends a walk the Watcher no longer needs.
var errStopped = errors.New("size: walk stopped")

// readBatch is how many directory entries are read at a time.
const readBatch = 256

// Usage returns the bytes allocated to top and everything under it. Entries
// that vanish during the walk are skipped; other entries that cannot be read
// are skipped too, and the error says how many there were. The total counts
// what could be read.
func Usage(top string) (int64, error) {
	return usage(top, nil)
}

// usage is Usage that gives up with errStopped once stop is closed.
func usage(top string, stop <-chan struct{}) (int64, error) {
	fi, err := os.Lstat(top)
	if err != nil {
		return 0, fmt.Errorf("size: %w", err)
	}
	links := map[fileID]bool{}
	total := allocated(fi, links)
	if !fi.IsDir() {
		return total, nil
	}
	var first error
	failed := 0
	note := func(err error) {
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		failed++
		if first == nil {
			first = err
		}
	}
	stack := []string{top}
	for len(stack) > 0 {
		dir := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := os.OpenFile(dir, os.O_RDONLY|openDirFlags, 0)
		if err != nil {
			note(err)
			continue
		}
		for {
			select {
			case <-stop:
				f.Close()
				return total, errStopped
			default:
			}
			entries, err := f.ReadDir(readBatch)
			for _, e := range entries {
				info, ierr := e.Info() // lstat: links are not followed
				if ierr != nil {
					note(ierr)
					continue
				}
				total += allocated(info, links)
				if info.IsDir() {
					stack = append(stack, filepath.Join(dir, e.Name()))
				}
			}
			if err != nil {
				if !errors.Is(err, io.EOF) {
					note(err)
				}
				break
			}
		}
		f.Close()
	}
	if failed > 0 {
		return total, fmt.Errorf("size: %d entries under %s could not be read; first: %w", failed, top, first)
	}
	return total, nil
}
