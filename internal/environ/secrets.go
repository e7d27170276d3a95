package environ

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/sealmark/sealmark/internal/redact"
)

// The names of the two canary variables.
const (
	CanaryVar     = "SEALMARK_CANARY"
	FakeAPIKeyVar = "SEALMARK_FAKE_API_KEY"
)

// SecretName reports whether a variable or header name looks like it holds a
// secret, by the one rule of package redact (redact.SecretName).
func SecretName(name string) bool { return redact.SecretName(name) }

// Canaries returns the two canary variables with fresh random values:
// SEALMARK_CANARY=sm-canary-<16 hex> and
// SEALMARK_FAKE_API_KEY=sk-sealmark-fake-<24 hex>.
func Canaries() []KV {
	return []KV{
		{Name: CanaryVar, Value: "sm-canary-" + randomHex(8)},
		{Name: FakeAPIKeyVar, Value: "sk-sealmark-fake-" + randomHex(12)},
	}
}

// randomHex returns n random bytes from crypto/rand as 2n hex digits.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (it crashes the program instead)
	return hex.EncodeToString(b)
}
