package smbin

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/sealmark/sealmark/internal/quota"
)

// Names lists the programs in the order the sandbox's bin directory holds them.
var Names = []string{"sm-canary", "sm-echo", "sm-sleep", "sm-spew"}

// Dispatch runs the sm-* program named by the base name of os.Args[0] (an
// ".exe" suffix is ignored) and exits with its status. When the binary was
// started under any other name, Dispatch returns and does nothing.
//
// Before the program does its job it appends one line to [ExecLog] in the
// directory of os.Args[0]; a log that cannot be written does not stop it.
//
// Started as quota.GuardName it acts as a sandbox quota's guard
// (quota.Guard) instead, which a sandbox of this process starts only once
// Dispatch has run (Dispatched).
func Dispatch() {
	dispatched.Store(true)
	if len(os.Args) == 0 {
		return
	}
	if filepath.Base(os.Args[0]) == quota.GuardName {
		os.Exit(quota.GuardMain(os.Args[1:]))
	}
	name, ok := programName(os.Args[0])
	if !ok {
		return
	}
	if dir, err := binDir(os.Args[0]); err == nil {
		_ = appendExec(dir, name, os.Args) // best effort: the job comes first
	}
	// A reader that goes away must not kill sm-spew with SIGPIPE: with the
	// signal ignored the write returns EPIPE and the program stops quietly.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(Run(name, os.Args[1:], os.Stdout, os.Stderr))
}

// dispatched is set by Dispatch.
var dispatched atomic.Bool

// Dispatched reports whether this program called Dispatch: whether it can
// act as the sm-* programs and as a quota's guard.
func Dispatched() bool { return dispatched.Load() }

// Run runs the program name with args (not including the program name) and
// returns its exit status: 0 on success, 2 for a usage error, 1 when the
// output could not be written. It does not write the exec log; [Dispatch] does.
func Run(name string, args []string, stdout, stderr io.Writer) int {
	switch name {
	case "sm-canary":
		return canary(args, stdout, stderr)
	case "sm-echo":
		return echo(args, stdout, stderr)
	case "sm-sleep":
		return sleep(args, stderr)
	case "sm-spew":
		return spew(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "smbin: unknown program %q (known: %s)\n", name, strings.Join(Names, ", "))
	return 2
}

// programName reports which sm-* program argv0 names.
func programName(argv0 string) (string, bool) {
	base := filepath.Base(argv0)
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".exe") {
		base = base[:len(base)-4]
	}
	for _, n := range Names {
		if base == n {
			return n, true
		}
	}
	return "", false
}
