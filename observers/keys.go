package observers

// Record.Data keys. Observers set them and probes read them through these
// names, so a key is spelled in one place. Values are strings.
const (
	// KeyOp: what happened: "connect", "exec", "open-write", "signal", "spawn", "listen", "loss", ... (every observer).
	KeyOp = "op"
	// KeyArgv: a process's arguments, a JSON array (process, egress exec records).
	KeyArgv = "argv"
	// KeyPath: a file path: relative to the sandbox top for files records, absolute for opens and execs; the request path for upstream records.
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
	// KeyOpen: the flags of an open for writing, in words (egress).
	KeyOpen = "open"
	// KeyFlags: the flags of an open for writing, "O_WRONLY|O_CREAT|..." (egress).
	KeyFlags = "flags"
	// KeyExe: a process's executable path (process).
	KeyExe = "exe"
	// KeyCount: how many times it happened (limits, ledger losses).
	KeyCount = "count"
	// KeyMax: the limit that was met (limits).
	KeyMax = "max"
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
