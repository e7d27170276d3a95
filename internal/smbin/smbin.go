package smbin

import (
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/sealmark/sealmark/internal/quota"
)

// Dispatch is what the harness binary (and a test binary's TestMain) calls
// first: started as an sm-* program it runs it and exits
// ([DispatchProgram]); started under any other name it returns and does
// nothing.
//
// Started as quota.GuardName it acts as a sandbox quota's guard
// (quota.Guard) instead, which a sandbox of this process starts only once
// Dispatch has run (Dispatched). The helper binary has no such branch: it
// is built from the program files alone (see [InstallHelper]).
func Dispatch() {
	dispatched.Store(true)
	if len(os.Args) == 0 {
		return
	}
	if filepath.Base(os.Args[0]) == quota.GuardName {
		os.Exit(quota.GuardMain(os.Args[1:]))
	}
	DispatchProgram()
}

// dispatched is set by Dispatch.
var dispatched atomic.Bool

// Dispatched reports whether this program called Dispatch: whether it can
// act as the sm-* programs and as a quota's guard.
func Dispatched() bool { return dispatched.Load() }
