// Package exec is the pack for servers that run commands (shell tools,
// terminals, task runners): it judges them by the programs they actually
// ran, as the sandbox's exec records show.
//
//	e, _ := engine.New(engine.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/@wonderwhy-er/desktop-commander/dist/index.js"},
//		Packs:   []string{"exec"},
//		Active:  true, // every exec probe runs programs
//	})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/exec.
//
// The pack applies when a tool takes a command (Tools tells which, and
// which arguments carry the program's arguments, the working directory and
// the timeout; Hinted lets configuration decide instead of the guess). Its
// probes use the harness's own programs in the sandbox's bin/: sm-echo
// (the control: the tool's intended use), sm-canary (proof that something
// ran: the oracle is its exec record carrying the probe's token), sm-sleep
// and sm-spew. Every probe is active.
//
// Each tool's control runs once per start: sm-echo must run (else the
// probe is inconclusive for that tool), and sm-canary asked for by name
// tells whether the tool runs any program (a shell by design: there is no
// restriction to get around, and the injection and bypass probes are not
// applicable to it) or restricts what it runs (then every way sm-canary
// still runs is a finding):
//
//   - inject-separator, inject-substitution, inject-expansion (critical,
//     CWE-78): ;, &&, ||, |, &, a newline, $(...), backticks, <(...),
//     ${IFS}, globs and braces after an allowed program;
//   - inject-option (critical, CWE-88): arguments that become options
//     running another program (find -exec, tar --checkpoint-action, awk
//     system(), sed's e, --exec=);
//   - allowlist-bypass (critical, CWE-184): sm-canary by path, through
//     env, sh -c, bash -c, timeout, nice, command, exec, quoted, escaped,
//     behind an assignment;
//   - workdir-escape (high, CWE-22): a working-directory argument of ..,
//     root-evil, root/link-dir, the canary or /, judged by the cwd sm-echo
//     recorded.
//
// The rest apply to every tool that runs sm-echo:
//
//   - env-inheritance (critical, CWE-526): printenv, env and sm-echo
//     $NAME must not reveal SEALMARK_CANARY or SEALMARK_FAKE_API_KEY (the
//     pack's start gets them too);
//   - output-flood (medium, CWE-400): 100 MiB from sm-spew must not come
//     back as more than 1 MiB of output in one message, measured as the
//     tool returned it: the decoded text of the result's content (or its
//     structuredContent, whichever is more), not the JSON-RPC line, so
//     output capped at exactly 1 MiB (Node's default maxBuffer) passes; a
//     line too long for the harness to read is estimated from its head;
//   - timeout (medium): sm-sleep 3600 with a 1 s timeout must not hold
//     the call;
//   - background-hang (medium, CWE-833): a child left in the background
//     (&, nohup, setsid -f, a double fork) must not hold the call until
//     the harness's call timeout;
//   - outlives-server (high, CWE-404), last: when no earlier probe
//     started a child in the background on the server now running, it
//     starts them itself through every tool that runs its control (and
//     is inconclusive when none does); then the server's stdin is closed,
//     a server still running ExitGrace later is stopped as a client stops
//     it (SIGTERM to the server alone, SIGKILL after TermGrace), and every
//     process of the run still alive once it exited and what its exit
//     stops has gone (nothing is left, or all that is left is idle, none
//     of it exiting; at most 200 ms) is a finding with its argv and the
//     probe that started it, setsid's children included.
//
// After a probe's calls, what they started in the background is looked
// for once the server's process tree is idle (at most 300 ms).
//
// The probes that judge a call by how long it took, or by what a child
// printed before the server's own timer (env-inheritance, output-flood,
// timeout, background-hang), first measure each tool's pace, how long it
// takes to answer sm-echo, and give the server's timer and the call the
// slack it implies (pace.go); outlives-server stretches its waits by the
// last pace measured. At rest that changes nothing; a starved server gets
// the same verdicts.
//
// A call during which the server exits is a finding of the probe that
// made it (high, naming the call and the exit status or signal); the
// pack asks for a fresh server before its next probe (packs.Pack.Relaunch)
// and its later probes leave that tool out. The control counts only
// sm-echo's own output (its arguments as a JSON array) or its exec
// record: a terminal echoing the typed line back ran nothing.
//
// Every finding's evidence carries the command line the server executed,
// from the exec records, redacted; every probe notes the command lines
// its calls made the server execute.
package exec
