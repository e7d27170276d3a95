package contain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// OwnerFile is the file in a sandbox's top directory that names the run
// owning it: the harness's pid, that process's start time and the run id.
const OwnerFile = ".sealmark-owner"

// markerName is the environment variable of the run marker
// (observers/process.MarkerName).
const markerName = "SEALMARK_RUN"

// maxOwnerFile bounds what is read of an owner file.
const maxOwnerFile = 4 << 10

// owner is the content of an OwnerFile.
type owner struct {
	Pid   int
	Start uint64 // the process's start time in clock ticks since boot; 0 where unknown
	Run   string // 16 hex digits, or "" for a run without a marker
}

// Release marks a sandbox the user keeps (--keep-sandbox) as no run's:
// its owner file goes, so a later run's SweepStale leaves the directory
// alone although the harness that made it has ended.
func Release(top string) error {
	if err := os.Remove(filepath.Join(top, OwnerFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("contain: releasing %s: %w", top, err)
	}
	return nil
}

// WriteOwner records in top (a sandbox's top directory) that the calling
// process owns it, under the run marker ("SEALMARK_RUN=<16 hex>", the bare
// 16 hex digits, or "" for a run without one). Call it right after the
// sandbox is made, before the server starts: SweepStale removes only
// directories whose owner is gone, and kills only marked processes of such
// runs.
func WriteOwner(top, marker string) error {
	run, err := runID(marker)
	if err != nil {
		return err
	}
	pid := os.Getpid()
	start, _ := processStart(pid)
	body := fmt.Sprintf("sealmark-owner 1\npid %d\nstart %d\nrun %s\n", pid, start, run)
	tmp := filepath.Join(top, OwnerFile+".tmp"+strconv.Itoa(pid))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("contain: owner file: %w", err)
	}
	_, werr := f.WriteString(body)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, filepath.Join(top, OwnerFile))
	}
	if werr != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("contain: owner file: %w", werr)
	}
	return nil
}

// runID extracts the 16 hex digits of a run marker.
func runID(marker string) (string, error) {
	id := strings.TrimPrefix(marker, markerName+"=")
	if id == "" {
		return "", nil
	}
	if len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", fmt.Errorf("contain: run marker %q is not %s=<16 hex>", marker, markerName)
	}
	return id, nil
}

// readOwner reads top's owner file. It fails when top or the file is not
// a plain directory or file of the calling user, so a file planted by
// someone else in a shared temp directory is never believed.
func readOwner(top string) (owner, error) {
	var o owner
	if err := ownedByMe(top, true); err != nil {
		return o, err
	}
	path := filepath.Join(top, OwnerFile)
	if err := ownedByMe(path, false); err != nil {
		return o, err
	}
	f, err := os.Open(path)
	if err != nil {
		return o, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxOwnerFile))
	if err != nil {
		return o, err
	}
	return parseOwner(b)
}

func parseOwner(b []byte) (owner, error) {
	var o owner
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != "sealmark-owner 1" {
		return o, errors.New("not a sealmark owner file")
	}
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		var err error
		switch key {
		case "pid":
			o.Pid, err = strconv.Atoi(val)
		case "start":
			o.Start, err = strconv.ParseUint(val, 10, 64)
		case "run":
			o.Run, err = runID(val)
		}
		if err != nil {
			return o, fmt.Errorf("owner file: %s: %w", key, err)
		}
	}
	if o.Pid <= 0 {
		return o, errors.New("owner file: no pid")
	}
	return o, nil
}
