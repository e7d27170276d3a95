//go:build !linux

package contain

// MountPoints does nothing: mount namespaces are Linux's.
func MountPoints(tmp string, paths ...string) error { return nil }
