package contain

import (
	"os"
	"syscall"
)

// Dispatch makes the program act as the shim when os.Args[1] is Verb: it
// applies the layers named in the arguments and execs the server (or, with
// namespaces, stays as its parent), and never returns. Otherwise it only
// records that the program can act as the shim, and returns at once. Front
// ends call it first in main, and test binaries first in TestMain; Wrap
// refuses to wrap in a program that never called it.
func Dispatch() {
	dispatched.Store(true)
	if len(os.Args) < 2 || os.Args[1] != Verb {
		return
	}
	// syscall.Exit: the shim has nothing buffered, and a race-enabled
	// binary would otherwise sleep a second at exit.
	syscall.Exit(runShim(os.Args[2:]))
}

// runShim is the shim's life (shimMain); a test binary may run it on
// another thread than the main one.
var runShim = shimMain
