package engine

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNetworkHint(t *testing.T) {
	for log, want := range map[string]bool{
		"npm error code EAI_AGAIN\nnpm error syscall getaddrinfo\n":                                 true,
		"error: Failed to fetch: `https://pypi.org/simple/x/`\n  Caused by: Could not resolve host": true,
		"dial tcp: connect: network is unreachable":                                                 true,
		"sealmark-fixture ready\n":                                                                  false,
	} {
		got := networkHint(log, "/usr/bin/node")
		assert.Equal(t, want, got != "", log)
		if want && !strings.Contains(log, "dial tcp") { // a fetch in the log
			assert.Contains(t, got, "Install the package first")
		}
	}
}

// TestNetworkHintNpxOnlyOnDownload: the launcher advice is given only when
// a download was attempted (a launcher ran, or the log shows a fetch); a
// server of its own that failed to resolve a name gets the service advice.
func TestNetworkHintNpxOnlyOnDownload(t *testing.T) {
	own := "Error: getaddrinfo ENOTFOUND api.example.com\n    at GetAddrInfoReqWrap.onlookup"
	got := networkHint(own, "/home/me/.cache/sealmark/npm/bin/some-server")
	assert.NotContains(t, got, "npx")
	assert.Contains(t, got, "sandbox.services")
	assert.Contains(t, networkHint(own, "npx"), "cannot download a package")
}
