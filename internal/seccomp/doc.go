// Package seccomp answers the seccomp user notifications of a contained
// server: every destination it sends to or connects to and every program
// it executes is recorded, what the policy allows goes on, the rest fails
// with ENETUNREACH. Every file it opens for writing, every entry it tries
// to delete, rename, link or make (and every file it truncates by path)
// and every signal it sends to another process is recorded too, and
// always goes on. The
// records go to a Sink (observers/egress's Observer keeps them for the
// probes); the containment shim installs the filter and internal/contain
// hands the listener over.
//
//	sup := seccomp.Supervise(listenerFD, seccomp.Ports(ports...), sink)
//	// ... the server runs; sink.Add gets a record per filtered call ...
//	problems := sup.Stop(2 * time.Second) // from now on filtered calls fail with ENOSYS
//
// The filter (installed by the containment shim, see internal/contain)
// sends connect, sendto with an address, sendmsg, sendmmsg, execve and
// execveat here; open, openat and creat when their flags ask to write
// (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC or O_APPEND: a read-only open never
// leaves the kernel) and openat2 always (its flags are in a struct the
// filter cannot read: Supervise reads them and lets a read-only one go on
// unrecorded); unlinkat, renameat, renameat2, linkat, symlinkat, mkdirat,
// mknodat and truncate, and on amd64 unlink, rmdir, rename, link, symlink,
// mkdir and mknod too (arm64 has only the *at forms); kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo
// and pidfd_send_signal. It denies io_uring_setup and every foreign ABI
// (x32, i386) itself. Supervise reads each call's sockaddr (or msghdr,
// or path and argv) from the caller's memory with process_vm_readv,
// every read bounded in size and in time, and trusts what it read only
// after SECCOMP_IOCTL_NOTIF_ID_VALID says the caller is still the one
// blocked in the call. Then it answers: SECCOMP_USER_NOTIF_FLAG_CONTINUE
// for an allowed destination, any exec, any open, any change to an entry
// and any signal,
// ENETUNREACH for the rest.
//
// Records: Kind observers.KindSocket with Data op ("connect", "sendto",
// "sendmsg", "sendmmsg"), family ("inet", "inet6", "unix", "netlink",
// "af<N>", or "unreadable" when the address could not be read), addr,
// port, pid and verdict ("allow" or "deny"); Kind observers.KindProcess
// with Data op="exec", path, argv (a JSON array, at most 64 arguments
// and 8 KiB), pid (the process: a thread's exec names its thread group,
// with tid the thread when it is not the first), ppid (its parent),
// found and verdict="allow", and start="true" on the server's own start
// (the first exec, never attributed to a probe). The answer comes before
// the kernel runs the exec and never tells how it ended, so found says
// whether the path (resolved as an open's is) names, under the caller's
// own root, a file to run: "true", "false" (no such file: the kernel
// answers ENOENT or ENOTDIR, and nothing runs, as in every miss of a PATH
// search) or "not-executable" (a directory, or a file without an execute
// bit: EACCES); absent when that could not be told (a magic link such as
// /proc/self/exe, a lookup that failed or took longer than a read may). A sendmsg
// without an address (a connected socket) is let through unrecorded.
//
// Opens, changes to entries and signals are observations only: the answer is always CONTINUE
// (verdict="continue"), and Landlock, the namespaces and the kernel
// decide what becomes of the call; the record says what was tried, not
// how it ended. They are Kind observers.KindProcess (something a process
// of the server did), not KindFile: the files observer's KindFile records
// are changes that happened, with paths relative to the sandbox top, and
// their readers take every KindFile record for one. An open for writing
// is Data op="open-write", syscall ("open", "openat", "openat2",
// "creat"), path (absolute: a relative path is joined, and cleaned
// lexically, to the caller's working directory, or to what its directory
// descriptor names, read from /proc/PID/cwd or /proc/PID/fd/N; then given
// holds the path as the caller gave it, and dirfd the descriptor), flags
// (the access mode and O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_TMPFILE,
// O_DIRECTORY, O_NOFOLLOW, O_PATH as they apply, e.g.
// "O_WRONLY|O_CREAT|O_TRUNC"), pid and verdict="continue", with error
// when the path (or openat2's struct) could not be read. A change to an
// entry is Data op "remove" (unlink, unlinkat, rmdir), "rename" (rename,
// renameat, renameat2), "link" (link, linkat, symlink, symlinkat),
// "mkdir" (mkdir, mkdirat), "mknod" (mknod, mknodat) or "truncate",
// syscall, path (absolute, resolved as an open's is: what is removed,
// renamed, created or truncated), "to" for a rename (its destination,
// absolute), "target" for a link (a hard link's existing file, absolute;
// a symbolic link's contents as given), given, to_given, target_given and
// dirfd, to_dirfd, target_dirfd for relative paths, flags
// ("AT_REMOVEDIR", "RENAME_EXCHANGE", "AT_SYMLINK_FOLLOW", ... as they
// apply), mode (mkdir, mknod: "0755", "S_IFIFO|0644"), length (truncate),
// pid and verdict="continue", with error when a path could not be read or
// resolved. Every one is recorded, inside the sandbox or not: the
// probes judge where it points. A signal is
// Data op="signal", syscall ("kill", "tkill", "tgkill",
// "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal"), signal
// (its name, "SIGWINCH"; "0" for signal 0, a check that the target
// exists; the number for a real-time signal), target (the pid, or
// negative process group, as the caller gave it: a pid in the caller's
// own pid namespace, which with namespaces is not the harness's;
// "pidfd:N" for pidfd_send_signal, with target_pid, the process as the
// harness sees it), tid for tgkill, pid (the caller, as the harness sees
// it) and verdict="continue". A signal a process sends to itself (a
// runtime preempting its own threads, raise, abort) is let through
// unrecorded. The path a record shows was read before the kernel reads
// it again: another thread of the server can change it in between.
//
// What it is not: a boundary. A CONTINUE is checked before the kernel
// reads the address again, so another thread of the server can change
// it in between; a raw or packet socket sends without any of these
// calls. The network namespace is the hard block; this is the observer
// (and the only block where namespaces are refused).
//
// It fails closed: once the listener is closed, by Stop or because the
// harness died, every filtered call of the server and of anything it
// left behind fails with ENOSYS ("function not implemented") for good,
// opens for writing, changes to entries and signals to other processes
// included.
//
// Cost: a notified call waits for the harness's answer, tens of
// microseconds (see BenchmarkIntercepted in internal/contain); a read-only
// open, and any call the filter does not name, costs a few BPF
// instructions in the kernel and no round trip.
//
// Anywhere but Linux, Supervise answers nothing and tells its sink so in a
// loss record.
package seccomp
