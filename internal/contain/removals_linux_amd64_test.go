package contain_test

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// legacyChanges makes the path-only calls only amd64 has, by number
// (golang.org/x/sys makes the *at ones), in the working directory, and
// tries unlink and rename outside, in outside.
func legacyChanges(r result, outside string) {
	ptr := func(s string) *byte {
		b, _ := unix.BytePtrFromString(s)
		return b
	}
	// a1 is a second path, or a mode when num is set
	call := func(key string, nr uintptr, a0, a1 *byte, num uintptr) {
		arg1 := uintptr(unsafe.Pointer(a1))
		if a1 == nil {
			arg1 = num
		}
		_, _, e := unix.Syscall(nr, uintptr(unsafe.Pointer(a0)), arg1, 0)
		runtime.KeepAlive(a0)
		runtime.KeepAlive(a1)
		r[key] = errText(errnoErr(e))
	}
	call("l-mkdir", unix.SYS_MKDIR, ptr("ldir"), nil, 0o700)
	call("l-rmdir", unix.SYS_RMDIR, ptr("ldir"), nil, 0)
	call("l-mknod", unix.SYS_MKNOD, ptr("lfifo"), nil, unix.S_IFIFO|0o600)
	call("l-rename", unix.SYS_RENAME, ptr("lfifo"), ptr("lfifo2"), 0)
	call("l-link", unix.SYS_LINK, ptr("lfifo2"), ptr("lhard"), 0)
	call("l-symlink", unix.SYS_SYMLINK, ptr("/etc/passwd"), ptr("lsym"), 0)
	call("l-unlink", unix.SYS_UNLINK, ptr("lsym"), nil, 0)
	call("l-outside-unlink", unix.SYS_UNLINK, ptr(outside+"/keep"), nil, 0)
	call("l-outside-rename", unix.SYS_RENAME, ptr(outside+"/keep"), ptr(outside+"/moved"), 0)
}

// legacyWant are the records legacyChanges leaves, dir being its working
// directory.
func legacyWant(dir, outside string) []change {
	return []change{
		{"mkdir", "mkdir", dir + "/ldir", "", "0700"},
		{"remove", "rmdir", dir + "/ldir", "", ""},
		{"mknod", "mknod", dir + "/lfifo", "", "S_IFIFO|0600"},
		{"rename", "rename", dir + "/lfifo", dir + "/lfifo2", ""},
		{"link", "link", dir + "/lhard", dir + "/lfifo2", ""},
		{"link", "symlink", dir + "/lsym", "/etc/passwd", ""},
		{"remove", "unlink", dir + "/lsym", "", ""},
		{"remove", "unlink", outside + "/keep", "", ""},
		{"rename", "rename", outside + "/keep", outside + "/moved", ""},
	}
}
