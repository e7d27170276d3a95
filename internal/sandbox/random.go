package sandbox

import (
	"crypto/rand"
	"encoding/hex"
)

// randomHex returns n random bytes from crypto/rand as 2n hex digits.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b)
}

// newSecret returns a fresh canary string.
func newSecret() string { return "sm-secret-" + randomHex(12) }
