package process

import (
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// Sweep timing: how often a sweep looks again, and how many SIGKILL rounds
// it makes before it gives up on a process.
const (
	sweepPoll  = 10 * time.Millisecond
	killRounds = 50
)

// Sweep ends the open probe, then finds every process of the run that is
// still alive, records it (Kind process, op "orphan"), sends it SIGTERM,
// waits up to grace for it to exit, and sends SIGKILL to whatever is left,
// including processes that appeared meanwhile. Adopted children of the
// harness are reaped by pid. Call it after each start stopped; tracked
// leaders are forgotten afterwards, the run marker is not.
//
// Each orphan record's Data["stopped_by"] says how it ended: "exited" (on
// its own, before a signal), "SIGTERM", "SIGKILL", or "survived" (still
// alive after every SIGKILL; a loss record says so too).
func (o *Observer) Sweep(grace time.Duration) []observers.Record {
	o.closeProbe()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.sample(true)
	sw := &sweep{o: o, found: map[ident]*observers.Record{}, signalled: map[ident]syscall.Signal{}}

	alive := sw.round()
	if len(alive) > 0 {
		sw.signal(alive, syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for len(alive) > 0 && time.Now().Before(deadline) {
			time.Sleep(min(sweepPoll, time.Until(deadline)))
			alive = sw.round()
			sw.signal(alive, syscall.SIGTERM) // only those not signalled yet
		}
		for i := 0; i < killRounds && len(alive) > 0; i++ {
			sw.signal(alive, syscall.SIGKILL)
			time.Sleep(sweepPoll)
			alive = sw.round()
		}
	}
	for _, s := range alive {
		if r := sw.found[s.id()]; r != nil {
			r.Data[observers.KeyStoppedBy] = "survived"
		}
	}
	if len(alive) > 0 {
		o.lossf("%d processes of the run were still alive after SIGKILL", len(alive))
	}

	unregisterLeaders(o.tracked)
	o.tracked = nil
	out := make([]observers.Record, 0, len(sw.order))
	for _, id := range sw.order {
		out = append(out, *sw.found[id])
	}
	return out
}

// sweep is the state of one Sweep.
type sweep struct {
	o         *Observer
	found     map[ident]*observers.Record
	order     []ident
	signalled map[ident]syscall.Signal
}

// round scans the run, records survivors not seen before, reaps adopted
// zombies, and returns the live members.
func (sw *sweep) round() []stat {
	o := sw.o
	procs, members, err := o.members()
	if err != nil {
		return nil
	}
	var alive []stat
	for _, pid := range sortedPids(members) {
		s := procs[pid]
		if !s.alive() {
			if o.adopted(s) {
				reap(pid)
			}
			continue
		}
		alive = append(alive, s)
		if _, ok := sw.found[s.id()]; !ok && !o.isInfra(s) {
			r := sw.o.orphan(s)
			sw.found[s.id()] = &r
			sw.order = append(sw.order, s.id())
		}
	}
	// What was found and is no longer alive ended with its last signal.
	live := map[ident]bool{}
	for _, s := range alive {
		live[s.id()] = true
	}
	for id, r := range sw.found {
		if !live[id] && r.Data[observers.KeyStoppedBy] == "" {
			r.Data[observers.KeyStoppedBy] = "exited"
			if sig, ok := sw.signalled[id]; ok {
				r.Data[observers.KeyStoppedBy] = signalName(sig)
			}
		}
	}
	return alive
}

// signal sends sig to each process in alive that has not had it yet.
func (sw *sweep) signal(alive []stat, sig syscall.Signal) {
	for _, s := range alive {
		id := s.id()
		if prev, ok := sw.signalled[id]; ok && prev == sig {
			continue
		}
		if err := signalProc(sw.o.root, id, sig); err == nil {
			sw.signalled[id] = sig
		}
	}
}

// adopted reports whether s is a child of the harness that os/exec did not
// start for anyone: the only kind of pid a sweep may reap.
func (o *Observer) adopted(s stat) bool {
	return s.ppid == o.self && s.pgid != o.selfPgid && !isLeader(s.id())
}

// orphan builds the record of a survivor. o.mu is held.
func (o *Observer) orphan(s stat) observers.Record {
	exe, argv, _, _ := details(o.root, s.pid)
	masked := o.maskAll(argv)
	return observers.Record{
		Kind:     observers.KindProcess,
		Observer: o.Name(),
		Time:     time.Now(),
		Summary:  fmt.Sprintf("pid %d was still running after its start stopped: %s", s.pid, shown(masked, o.mask(s.comm))),
		Data:     o.procData("orphan", s, exe, masked),
	}
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return "signal " + strconv.Itoa(int(sig))
}
