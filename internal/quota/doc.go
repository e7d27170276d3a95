// Package quota bounds a directory's size with a filesystem of its own: a
// tmpfs of the limit's size mounted on the directory, so a write past the
// limit fails inside that write with ENOSPC instead of being noticed by a
// sampler after the fact. Mounting one needs CAP_SYS_ADMIN (a root
// harness); elsewhere Mount says why it could not, and the caller falls
// back to sampling.
//
//	if err := quota.Mount(dir, 64<<20); err != nil {
//		log.Printf("size sampled, not enforced: %v", err)
//	}
//	defer quota.Unmount(dir)
//	used, free, _ := quota.Usage(dir)
//
// A harness killed with SIGKILL cannot unmount: Guard starts a process
// that does it once the harness is gone, so no tmpfs of a dead run stays
// mounted in the host's mount namespace. Try asks whether Mount would work
// without mounting anything anywhere.
//
// The filesystem is memory-backed: what a server writes there lives in
// RAM (charged to the writer's memory cgroup) until the directory is
// unmounted.
package quota
