package process

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strconv"
)

// MarkerName is the environment variable that carries the run marker.
const MarkerName = "SEALMARK_RUN"

// Marker returns a fresh run marker, "SEALMARK_RUN=" and 16 hex digits, for
// Options.Marker and every server's environment.
func Marker() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return MarkerName + "=" + hex.EncodeToString(b[:])
}

// sameProc reports whether the process id.pid is still the one with id's
// start time.
func sameProc(root string, id ident) bool {
	b, _, err := readBounded(filepath.Join(root, strconv.Itoa(id.pid), "stat"), maxStat)
	if err != nil {
		return false
	}
	s, ok := parseStat(b)
	return ok && s.pid == id.pid && (id.start == 0 || s.start == id.start)
}
