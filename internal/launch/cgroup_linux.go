package launch

import "syscall"

// intoCgroup makes the program start in the cgroup whose directory fd is.
func intoCgroup(attr *syscall.SysProcAttr, fd int) error {
	attr.UseCgroupFD = true
	attr.CgroupFD = fd
	return nil
}
