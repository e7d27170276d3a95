//go:build !linux

package launch

import (
	"errors"
	"syscall"
)

// intoCgroup fails: only Linux starts a program in a cgroup.
func intoCgroup(*syscall.SysProcAttr, int) error {
	return errors.New("launch: Spec.CgroupFD needs Linux")
}
