package git

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWithoutSection proves the remote clean-up both ways: the named
// remote's section goes, with all its lines, and every other section
// stays; a name that is not there changes nothing.
func TestWithoutSection(t *testing.T) {
	cfg := "[core]\n\tbare = false\n[remote \"sealmark-t-r2\"]\n\turl = /top/canary/repo\n\tfetch = +refs/heads/*:refs/remotes/sealmark-t-r2/*\n[remote \"origin\"]\n\turl = /elsewhere\n"
	out, ok := withoutSection([]byte(cfg), `[remote "sealmark-t-r2"]`)
	assert.True(t, ok)
	assert.Equal(t, "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = /elsewhere\n", string(out))
	out, ok = withoutSection([]byte(cfg), `[remote "sealmark-t-r9"]`)
	assert.False(t, ok)
	assert.Equal(t, cfg, string(out))
}
