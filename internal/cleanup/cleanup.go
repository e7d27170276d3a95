// Package cleanup keeps the list of what a run must undo on every exit path:
// the process groups it started and the sandboxes it made. Front ends call
// Run from their signal handlers, so Ctrl-C, SIGTERM, SIGHUP and SIGPIPE leave no
// process and no file behind.
//
//	undo := cleanup.Add(func() { proc.Kill() })
//	defer undo()
//	...
//	// in a signal handler:
//	cleanup.Run()
package cleanup

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
)

var (
	mu     sync.Mutex
	next   int
	tasks  = map[int]func(){}
	closed bool // Exit ran: whatever is added now runs at once
)

// Add registers fn to run on Run and returns a function that removes it
// again (without running it). Tasks run newest first. Once Exit has run,
// fn runs at once instead: the harness is on its way out, and a start
// that was in flight when the signal came must not outlive it.
func Add(fn func()) (remove func()) {
	mu.Lock()
	if closed {
		mu.Unlock()
		fn()
		return func() {}
	}
	defer mu.Unlock()
	next++
	id := next
	tasks[id] = fn
	return func() {
		mu.Lock()
		defer mu.Unlock()
		delete(tasks, id)
	}
}

// Run runs and removes every registered task, newest first. It is safe to
// call more than once and from several goroutines.
func Run() {
	mu.Lock()
	ids := make([]int, 0, len(tasks))
	for id := range tasks {
		ids = append(ids, id)
	}
	fns := make([]func(), 0, len(ids))
	// newest first: the process stops before its sandbox is deleted.
	for len(ids) > 0 {
		maxI := 0
		for i, id := range ids {
			if id > ids[maxI] {
				maxI = i
			}
		}
		fns = append(fns, tasks[ids[maxI]])
		delete(tasks, ids[maxI])
		ids = append(ids[:maxI], ids[maxI+1:]...)
	}
	mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// Exit is Run for a harness that is about to exit on a signal: it runs
// every task and, from then on, runs each task added at once.
func Exit() {
	mu.Lock()
	closed = true
	mu.Unlock()
	Run()
}

// Pending reports how many tasks are registered.
func Pending() int {
	mu.Lock()
	defer mu.Unlock()
	return len(tasks)
}

// Signals are the signals that take the cleanup path. SIGPIPE is one: a
// run piped into head, whose reader went away, would otherwise die at its
// next write to the closed pipe and leave the sandbox and the server behind.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// OnSignal calls first on the first of Signals and, on a second one, runs
// every task at once and exits with 128+n. It returns a function that stops
// listening.
func OnSignal(first func(os.Signal)) (stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, Signals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			first(sig)
		case <-done:
			return
		}
		select {
		case sig := <-ch:
			Exit()
			os.Exit(ExitCode(sig))
		case <-done:
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
		})
	}
}

// Name is a signal's conventional name ("SIGTERM"), or its description for
// one outside Signals.
func Name(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGPIPE:
		return "SIGPIPE"
	}
	return sig.String()
}

// ExitCode is 128 plus the signal's number, as shells report it.
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}
