//go:build !linux

package process

// readStatFile reads a /proc/PID/stat file (only Linux has one).
func readStatFile(path string, buf []byte) ([]byte, error) {
	b, _, err := readBounded(path, len(buf))
	return b, err
}
