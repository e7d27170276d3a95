package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/sealmark/sealmark/internal/cleanup"
)

// interruptible is the context a command runs servers under: the first
// SIGINT, SIGTERM or SIGHUP cancels it (its cause names the signal), is
// stored in caught for the exit code, and is announced on stderr with what
// the command is stopping ("the server and deleting the sandbox"). stop
// releases the signals; call it, and cancel, when the run is over.
func interruptible(stderr io.Writer, what string) (ctx context.Context, cancel context.CancelCauseFunc, caught *atomic.Value, stop func()) {
	ctx, cancel = context.WithCancelCause(context.Background())
	caught = new(atomic.Value)
	stop = cleanup.OnSignal(func(sig os.Signal) {
		caught.Store(sig)
		fmt.Fprintf(stderr, "sealmark: %v: stopping %s (again to skip the grace period)\n", sig, what)
		cancel(errors.New(cleanup.Name(sig)))
	})
	return ctx, cancel, caught, stop
}
