//go:build !unix

package smbin

// openGuard is 0 where the platform has no O_NOFOLLOW or O_NONBLOCK.
const openGuard = 0
