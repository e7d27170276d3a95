//go:build !linux

package launch

// atStartNice runs fork: only Linux keeps a niceness for each thread, so
// elsewhere a server inherits the harness's.
func atStartNice(fork func() error) error { return fork() }
