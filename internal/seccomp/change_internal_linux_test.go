package seccomp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"
)

func TestChangeFlags(t *testing.T) {
	assert.Equal(t, "", changeFlags("unlinkat", 0), "a plain unlink")
	assert.Equal(t, "AT_REMOVEDIR", changeFlags("unlinkat", unix.AT_REMOVEDIR))
	assert.Equal(t, "RENAME_EXCHANGE", changeFlags("renameat2", unix.RENAME_EXCHANGE))
	assert.Equal(t, "RENAME_NOREPLACE|RENAME_WHITEOUT", changeFlags("renameat2", unix.RENAME_NOREPLACE|unix.RENAME_WHITEOUT))
	assert.Equal(t, "AT_SYMLINK_FOLLOW|AT_EMPTY_PATH", changeFlags("linkat", unix.AT_SYMLINK_FOLLOW|unix.AT_EMPTY_PATH))
	assert.Equal(t, "0x100000", changeFlags("linkat", 0x100000), "an unknown bit as a number")
	assert.Equal(t, "0x200", changeFlags("renameat2", unix.AT_REMOVEDIR), "unlinkat's flag means nothing to renameat2")
}

func TestFileMode(t *testing.T) {
	assert.Equal(t, "0755", fileMode("mkdir", 0o755))
	assert.Equal(t, "1777", fileMode("mkdir", 0o1777))
	assert.Equal(t, "S_IFIFO|0600", fileMode("mknod", unix.S_IFIFO|0o600))
	assert.Equal(t, "S_IFCHR|0666", fileMode("mknod", unix.S_IFCHR|0o666))
	assert.Equal(t, "S_IFREG|0644", fileMode("mknod", 0o644), "no type: a regular file")
}

// TestChangeCalls checks the table against the calls' argument lists: a
// path and a descriptor on different arguments, the second path (if any)
// on yet others.
func TestChangeCalls(t *testing.T) {
	for nr, c := range changeCalls {
		used := map[int]bool{}
		for _, i := range []int{c.path, c.dirfd, c.second, c.secondDir, c.link, c.flags, c.mode, c.length} {
			if i < 0 {
				continue
			}
			assert.False(t, used[i], "%s (%d): argument %d read twice", c.name, nr, i)
			assert.Less(t, i, 6, c.name)
			used[i] = true
		}
		assert.Contains(t, []string{"remove", "rename", "link", "mkdir", "mknod", "truncate"}, c.op, c.name)
		assert.GreaterOrEqual(t, c.path, 0, c.name)
		if c.op == "rename" {
			assert.GreaterOrEqual(t, c.second, 0, "%s has a destination", c.name)
		}
	}
	assert.Len(t, changeCalls, 15, "every call, with a distinct number each (the legacy ones negative off amd64)")
}
