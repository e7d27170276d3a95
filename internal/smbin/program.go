package smbin

// This file, programs.go, execlog.go and nofollow_*.go are the whole sm-*
// helper (helper.go embeds them and builds them with helper/main.go.txt):
// they import nothing but the standard library.

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// Names lists the programs in the order the sandbox's bin directory holds them.
var Names = []string{"sm-canary", "sm-echo", "sm-sleep", "sm-spew"}

// DispatchProgram runs the sm-* program named by the base name of
// os.Args[0] (an ".exe" suffix is ignored) and exits with its status. When
// the program was started under any other name, it returns and does
// nothing. [Dispatch] calls it in the harness; the helper's main calls it
// first.
//
// Before the program does its job it appends one line to [ExecLog] in the
// directory of os.Args[0]; a log that cannot be written does not stop it.
func DispatchProgram() {
	if len(os.Args) == 0 {
		return
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

// Run runs the program name with args (not including the program name) and
// returns its exit status: 0 on success, 2 for a usage error, 1 when the
// output could not be written. It does not write the exec log;
// [DispatchProgram] does.
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
