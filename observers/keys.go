package observers

// Record.Data keys. Observers (and the egress supervisor in
// internal/seccomp) set them and probes read them through these names, so
// a key is spelled in one place; TestKeysAreConstants keeps it so. Values
// are strings.
const (
	// KeyOp: what happened: "connect", "exec", "open-write", "signal", "spawn", "listen", "loss", ... (every observer).
	KeyOp = "op"
	// KeyArgv: a process's arguments, a JSON array (process, egress exec records).
	KeyArgv = "argv"
	// KeyPath: a file path: relative to the sandbox top for files records (a watched directory for a files loss of entries), absolute for opens and execs; the request path for upstream records.
	KeyPath = "path"
	// KeyVerdict: what containment answered: "allow", "deny" or "continue" (egress).
	KeyVerdict = "verdict"
	// KeyPort: a TCP or UDP port (sockets, egress).
	KeyPort = "port"
	// KeyTarget: the pid or process group a signal was sent to, as the caller gave it (egress).
	KeyTarget = "target"
	// KeyProg: the sandbox program (sm-canary, sm-echo, ...) an exec record names (process).
	KeyProg = "prog"
	// KeyPid: the process that did it, as the harness sees it.
	KeyPid = "pid"
	// KeyFrom: where a record's evidence came from (the probe or stream that saw it).
	KeyFrom = "from"
	// KeyAddr: a socket address (sockets, egress).
	KeyAddr = "addr"
	// KeyScope: where a listener listens: "loopback" or "all" (sockets).
	KeyScope = "scope"
	// KeyCwd: a process's working directory (process, egress exec records).
	KeyCwd = "cwd"
	// KeyMethod: an HTTP method (upstream).
	KeyMethod = "method"
	// KeyStart: "true" on the server's own start, never a probe's doing (egress, process).
	KeyStart = "start"
	// KeyMode: a file's permission bits (files).
	KeyMode = "mode"
	// KeyFamily: a socket address family: "inet", "inet6", "unix", ... (egress).
	KeyFamily = "family"
	// KeyType: a file change's type: "created", "modified", "deleted", ... (files).
	KeyType = "type"
	// KeyReason: why a loss or a change was recorded as it was.
	KeyReason = "reason"
	// KeyProto: a socket's protocol: "tcp", "udp" (sockets).
	KeyProto = "proto"
	// KeyLimit: which limit was met: "procs", "memory", or the size limit (limits, size).
	KeyLimit = "limit"
	// KeyHeaders: the request headers an upstream request carried, redacted (upstream).
	KeyHeaders = "headers"
	// KeyComm: a process's command name (process).
	KeyComm = "comm"
	// KeyAttributed: how a record was attributed to its probe: "token" or "time".
	KeyAttributed = "attributed"
	// KeyWhy: why a record is what it is, in words.
	KeyWhy = "why"
	// KeyTokenFound: "true" when the probe's token reached the observer (loopback, upstream).
	KeyTokenFound = "token_found"
	// KeySignal: a signal's name (egress).
	KeySignal = "signal"
	// KeyServes: what a listener answered when spoken to (sockets).
	KeyServes = "serves"
	// KeyPreview: the first bytes of what was sent or served, redacted.
	KeyPreview = "preview"
	// KeyOpen: the flags of an open for writing, in words (egress); "true"
	// when a listener that answered HTTP serves without authentication
	// (sockets).
	KeyOpen = "open"
	// KeyFlags: the flags of an open for writing, "O_WRONLY|O_CREAT|..." (egress).
	KeyFlags = "flags"
	// KeyExe: a process's executable path (process).
	KeyExe = "exe"
	// KeyCount: how many times it happened (limits, ledger losses); how many entries were counted, not held (files losses).
	KeyCount = "count"
	// KeyMax: the limit that was met (limits, files losses).
	KeyMax = "max"
	// KeyPpid: a process's parent (process, egress).
	KeyPpid = "ppid"
	// KeyTruncated: "true" when a value was cut to its bound (every observer).
	KeyTruncated = "truncated"
	// KeyWas: the command name a process had before its execve (process).
	KeyWas = "was"
	// KeyStarted: when an exec log line was written, RFC 3339 (process).
	KeyStarted = "started"
	// KeyStoppedBy: how an orphan ended: "exited", "survived" or a signal (process).
	KeyStoppedBy = "stopped_by"
	// KeyHost: the Host header a request carried (loopback).
	KeyHost = "host"
	// KeyCredentials: where a request carried credentials (upstream).
	KeyCredentials = "credentials"
	// KeyCredentialHost: the host a request's credentials were sent to (upstream).
	KeyCredentialHost = "credential_host"
	// KeyHostMismatch: "true" when the credentials went to another host than the URL names (upstream).
	KeyHostMismatch = "host_mismatch"
	// KeyHTTP: "true" when a listener answered HTTP (sockets).
	KeyHTTP = "http"
	// KeySize: a file's size in bytes (files).
	KeySize = "size"
	// KeyHash: a file's content hash (files).
	KeyHash = "hash"
	// KeyTargetPid: the pid a signal reached (egress).
	KeyTargetPid = "target_pid"
	// KeyError: why a field of the record could not be read (egress).
	KeyError = "error"
	// KeyFound: what an exec's path resolved to: whether the program was there to run (egress).
	KeyFound = "found"
	// KeyDirfd: the directory a relative path was resolved against (egress).
	KeyDirfd = "dirfd"
	// KeyTid: the thread that did it, when it is not the process's leader (egress).
	KeyTid = "tid"
	// KeyAncestors: a process's ancestors, nearest first, space-separated pids (egress).
	KeyAncestors = "ancestors"
	// KeySyscall: the system call's name (egress).
	KeySyscall = "syscall"
	// KeyGiven: a path as the process gave it, before it was resolved (egress).
	KeyGiven = "given"
	// KeyLength: the length a truncate asked for (egress).
	KeyLength = "length"
	// KeyPeer: the address a connection came from (loopback, upstream).
	KeyPeer = "peer"
	// KeyLocal: the address a connection reached (loopback).
	KeyLocal = "local"
	// KeyBytes: how many bytes were sent or read (loopback, upstream, size).
	KeyBytes = "bytes"
	// KeyStatus: the HTTP status the stub answered (upstream).
	KeyStatus = "status"
	// KeyPgid: a process's process group (process).
	KeyPgid = "pgid"
	// KeySid: a process's session (process).
	KeySid = "sid"
	// KeyInode: a listening socket's inode (sockets).
	KeyInode = "inode"
	// KeyTotal: the sandbox's size in bytes when it passed its limit (size).
	KeyTotal = "total"
)

// Ops of process records (Data[KeyOp]) that say a program started or ran,
// written by the process observer and the egress observer alike.
const (
	// OpSpawned: a new process of the run was sampled (process).
	OpSpawned = "spawned"
	// OpExecve: a process seen before now runs another program (process).
	OpExecve = "execve"
	// OpExec: a program was executed: a line of the sandbox's exec log
	// (process) or an execve the egress observer held (egress).
	OpExec = "exec"
)
