// Package effects is the pack that judges what a tool call does to the
// world: where it connects, what it writes outside the sandbox, which
// programs it runs, which sockets it opens.
//
//	e, _ := engine.New(engine.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/@modelcontextprotocol/server-everything/dist/index.js"},
//		Packs:   []string{"effects"},
//		Active:  true, // gzip-file-as-resource is not read-only
//	})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/effects.
//
// SSRF, one probe per form (ssrf-loopback, ssrf-ipv6-loopback,
// ssrf-localhost, ssrf-decimal-ipv4, ssrf-hex-ipv4, ssrf-ipv4-mapped-ipv6,
// ssrf-redirect, ssrf-file-uri, ssrf-gopher): every tool with a URL, URI,
// endpoint or host argument (by its name, a uri format, or a description
// naming a URL) is called once with the harness's loopback listener named
// that way, the probe's token in the path. A connection that reaches the
// listener during the call is high; critical when the listener's answer
// comes back in the response, or a canary file's content does (file://).
// Only loopback URLs are ever handed out: the listener, its [::1] twin and
// the upstream stub, whose /redirect answers 302 to the listener.
// redirect-credentials follows that redirect and is critical when the
// request reaching the listener carries a credential (a header or query
// parameter named like one) to the new origin.
//
// The other probes share one sweep per start: every read-only tool (every
// tool with --active) called once with arguments synthesized from its
// schema (URL arguments get a URL on the upstream stub), each call's
// observations kept apart (each collected once the server's process tree
// is idle, at most 50 ms after the answer), then a quiet window of at most
// 1 s with no call, which ends once the tree is idle with nothing due
// within it and a ping brought nothing new: a server that keeps trying
// the network never idles and is watched the whole window.
// writes-outside-sandbox reads the egress observer's opens for writing,
// deletes, renames, links, new directories and nodes and truncates
// outside the sandbox (refused or not; a rename whose either end, a hard
// link whose either name is outside), says what each tried ("tried to
// delete ~/.bashrc"), one finding per place and call, and grades them by
// place: the
// server's own install directory ({install}) and the user's home high,
// the system temp directory ({tmp}) medium, anywhere else critical.
// shared-output reads the files observer: a world-writable file (high),
// or a group- or world-readable file in the temp directory holding what
// the call was given (medium). spawns reads the process observers (the
// egress observer's exec records where it watched): a tool whose name,
// description and arguments say nothing of running programs must not run
// one it does not name (git in git_status is named). It gives one finding
// per program a call tried, however many execs that took: a PATH search
// (one execve per directory) that found the program is "ran git clone
// ..." (high), one that found it nowhere in the server's view is "tried
// to run xcrun (not found)" (low: nothing ran; the tool reaches for a
// program that would run where it is installed). What the server's own
// runtime starts is not the tool's: its package's binaries (in {install}
// when a package marker such as package.json makes it a package's, or the
// node_modules tree holding it), its own program run again, and below a
// git the tool ran,
// git's remote helpers (git-remote-http), its exec-path programs (a
// git-core directory) and the shell of its own transport command.
// Messages and evidence show no directory of the host's own: a program is
// shown by its sandbox, {install}, {tmp} or system path (/usr/bin/git),
// else by its bare name. listeners
// reads the sockets observer: a listener a call left open (high on all
// interfaces). network lists each call's refused network attempts (info)
// and names a server still trying in the quiet window (medium).
//
// Every finding names the call, tool(arg="value", ...), with the values
// the report redacts and stable names for the harness's endpoints.
package effects
