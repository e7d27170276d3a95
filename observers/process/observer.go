package process

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/internal/ledger"
)

// Options configures an Observer. The zero value watches only tracked
// leaders and their trees, with no exec log and no masking.
type Options struct {
	// Marker is the "NAME=VALUE" entry the harness puts in every server's
	// environment (see Marker). A process whose environment holds it belongs
	// to the run wherever it sits in the tree. "" turns that rule off.
	Marker string
	// Bin is the sandbox's bin directory; its .exec.log lists the sm-*
	// programs that ran (smbin.ReadExecLog). "" means no exec records.
	Bin string
	// Secrets masks secret values in argv, exe and cwd before they are
	// recorded; the engine passes its redactor's Mask. nil keeps text as is.
	Secrets func(string) string
	// Infra reports whether a process, by its argv, is one of the
	// harness's own (a containment shim that stays in the server's tree):
	// a member that is never recorded, nor listed by PIDs or Survivors;
	// the first process it starts is the server itself (see infra.go).
	// nil: none is.
	Infra func(argv []string) bool
	// Interval is how often the tree is sampled while a probe is open.
	// Default 25 ms.
	Interval time.Duration
}

// DefaultInterval is the sampling interval when Options.Interval is zero.
const DefaultInterval = 25 * time.Millisecond

// Bounds on what an Observer keeps.
const (
	maxPending = 10000 // records not yet returned
	maxTokens  = 256   // recent probe tokens looked for in argv
)

// Observer watches the processes of one run. It is safe for concurrent use.
type Observer struct {
	counted  bool // New counted it in open
	opts     Options
	root     string // "/proc", or a fake tree in tests
	self     int
	selfPgid int
	selfSid  int

	mu      sync.Mutex
	tracked []ident
	seen    map[ident]string      // members seen, with their comm
	marked  map[ident]bool        // marker lookups of processes outside the tree
	wrapped map[ident]ident       // infra process → the server it started
	forked  map[ident]forkedChild // children first seen running their parent's program
	samples int                   // samples taken, for forked
	closing bool                  // Close's last sample: record every forked child
	token   string                // the open probe, "" when none is
	book    *ledger.Ledger        // recent tokens, and the records no Collect returned yet
	lost    map[string]bool       // loss messages already recorded once
	execs   execFollower
	sampler *sampler
	closed  bool
}

// New returns an Observer of the processes of one run. It needs /proc, so
// it fails on anything but Linux.
func New(o Options) (*Observer, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("process observer: needs /proc (Linux); not available on %s", runtime.GOOS)
	}
	obs, err := newObserver(o, "/proc", os.Getpid())
	if err == nil {
		open.Add(1)
		obs.counted = true
	}
	return obs, err
}

// open counts the Observers of this process not yet closed. Adoption (a
// child of the harness that is no leader) identifies an orphan only when one
// Observer is open: with several runs in one process (parallel tests) an
// adopted child may be any run's, and only the marker tells.
var open atomic.Int64

func newObserver(o Options, root string, self int) (*Observer, error) {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Secrets == nil {
		o.Secrets = func(s string) string { return s }
	}
	b, _, err := readBounded(filepath.Join(root, strconv.Itoa(self), "stat"), maxStat)
	if err != nil {
		return nil, fmt.Errorf("process observer: %w", err)
	}
	me, ok := parseStat(b)
	if !ok {
		return nil, fmt.Errorf("process observer: cannot parse %s/%d/stat", root, self)
	}
	return &Observer{
		opts:     o,
		root:     root,
		self:     self,
		selfPgid: me.pgid,
		selfSid:  me.sid,
		seen:     map[ident]string{},
		marked:   map[ident]bool{},
		wrapped:  map[ident]ident{},
		forked:   map[ident]forkedChild{},
		lost:     map[string]bool{},
		execs:    execFollower{bin: o.Bin},
		book:     ledger.New("process", maxPending, 0, maxTokens),
	}, nil
}

// Name returns "process".
func (o *Observer) Name() string { return "process" }

// Track adds pid, the leader of a start, to the processes watched. Call it
// right after each start. The leader itself is not reported as spawned.
func (o *Observer) Track(pid int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || pid <= 0 || pid == o.self {
		return
	}
	id := ident{pid: pid}
	if s, ok := o.readStat(pid); ok {
		id = s.id()
		o.seen[id] = s.comm
	}
	o.tracked = append(o.tracked, id)
	registerLeader(id)
}

// Begin opens the probe token: what is seen from now until the next Begin,
// Sweep or Close is attributed to it. What was there before is sampled
// first, so it is not.
func (o *Observer) Begin(token string) {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return
	}
	o.sample(true)
	o.token = token
	o.book.Begin(token)
	start := o.sampler == nil
	if start {
		o.sampler = newSampler()
	}
	s := o.sampler
	o.mu.Unlock()
	if start {
		go o.run(s)
	}
}

// Collect samples the tree once more and returns the records attributed to
// token that no Collect returned yet. The probe stays open.
func (o *Observer) Collect(token string) []observers.Record {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	o.sample(true)
	return o.book.Collect(token)
}

// Close stops the observer and returns every record no Collect returned:
// spawns between probes and after shutdown, and loss records.
func (o *Observer) Close() []observers.Record {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closing = true
	o.sample(true)
	o.closed = true
	if o.counted {
		open.Add(-1)
	}
	unregisterLeaders(o.tracked)
	o.tracked = nil
	out := o.book.Close()
	s := o.sampler
	o.sampler, o.token = nil, ""
	o.mu.Unlock()
	s.halt()
	return out
}

// Survivors returns the processes of the run that are still alive, by pid.
func (o *Observer) Survivors() []Proc {
	o.mu.Lock()
	defer o.mu.Unlock()
	procs, members, err := o.members()
	if err != nil {
		return nil
	}
	var out []Proc
	for _, pid := range sortedPids(members) {
		s := procs[pid]
		if !s.alive() || o.isInfra(s) {
			continue
		}
		// A process whose command line reads empty is exiting (its memory
		// is gone): it does not survive, and has no argv to name.
		if p, gone := o.proc(s); !gone {
			out = append(out, p)
		}
	}
	return out
}

// PIDs returns the pids of the run's live processes, in increasing order:
// the tree the sockets observer checks.
func (o *Observer) PIDs() []int {
	o.mu.Lock()
	defer o.mu.Unlock()
	procs, members, err := o.members()
	if err != nil {
		return nil
	}
	var out []int
	for _, pid := range sortedPids(members) {
		if s := procs[pid]; s.alive() && !o.isInfra(s) {
			out = append(out, pid)
		}
	}
	return out
}

// proc reads the rest of what Proc holds about s, masked, and whether the
// process was found gone or exiting while its details were read.
func (o *Observer) proc(s stat) (Proc, bool) {
	exe, argv, _, gone := details(o.root, s.pid)
	return Proc{PID: s.pid, PPID: s.ppid, PGID: s.pgid, SID: s.sid, Exe: o.mask(exe), Argv: o.maskAll(argv), Start: s.start}, gone
}

func (o *Observer) readStat(pid int) (stat, bool) {
	b, _, err := readBounded(filepath.Join(o.root, strconv.Itoa(pid), "stat"), maxStat)
	if err != nil {
		return stat{}, false
	}
	s, ok := parseStat(b)
	return s, ok && s.pid == pid
}

// members scans /proc and returns every process and the pids of the run's.
// o.mu is held.
func (o *Observer) members() (map[int]stat, map[int]bool, error) {
	procs, err := scanProcs(o.root)
	if err != nil {
		o.lossOnce("", "cannot list processes: %v", err)
		return nil, nil, err
	}
	v := view{
		self:     o.self,
		selfPgid: o.selfPgid,
		selfSid:  o.selfSid,
		tracked:  o.tracked,
		leader:   isLeader,
		sticky:   func(id ident) bool { _, ok := o.seen[id]; return ok },
		marker:   o.hasMarker,
		alone:    !o.counted || open.Load() == 1,
	}
	for i, t := range o.tracked {
		if i == 0 || t.start < v.since {
			v.since = t.start
		}
	}
	members := v.members(procs)
	for id := range o.marked {
		if s, ok := procs[id.pid]; !ok || s.start != id.start {
			delete(o.marked, id)
		}
	}
	return procs, members, nil
}

// hasMarker looks the marker up once per process. o.mu is held.
func (o *Observer) hasMarker(s stat) bool {
	if o.opts.Marker == "" || !s.alive() {
		return false
	}
	id := s.id()
	if m, ok := o.marked[id]; ok {
		return m
	}
	m := hasMarker(o.root, s.pid, o.opts.Marker)
	o.marked[id] = m
	return m
}

// sample records what is new in the tree and in the exec log. force reads
// the exec log even when it was read moments ago. o.mu is held.
func (o *Observer) sample(force bool) {
	procs, members, err := o.members()
	if err == nil {
		now := time.Now()
		for _, pid := range sortedPids(members) {
			s := procs[pid]
			id := s.id()
			comm, ok := o.seen[id]
			switch {
			case !ok:
				o.seen[id] = s.comm
				switch {
				case o.isInfra(s) || o.wrapsServer(s, procs):
				case o.forkOf(s, procs):
					// Between fork and exec a child shows its parent's
					// program: decide at the next sample what it runs.
					o.forked[id] = forkedChild{token: o.token, at: now, sample: o.samples}
				case o.execing(s):
					// Within an exec it shows no command line at all.
					o.forked[id] = forkedChild{token: o.token, at: now, sample: o.samples, execing: &s}
				default:
					o.spawned(s, now)
				}
			case comm != s.comm && s.alive():
				o.seen[id] = s.comm
				if _, deferred := o.forked[id]; !deferred {
					o.execve(s, comm, now)
				}
			}
		}
		o.settleForks(procs, o.closing)
		for id := range o.seen {
			if s, ok := procs[id.pid]; !ok || s.start != id.start {
				delete(o.seen, id)
			}
		}
		o.forgetWrapped(procs)
	}
	o.execs.follow(o, force)
}

// forkedChild is a new process first seen running its parent's program.
type forkedChild struct {
	token  string // the probe open when it was first seen
	at     time.Time
	sample int // the sample that first saw it
	// execing is the process as first seen when that was in the middle
	// of an exec (no command line yet), nil for a fork.
	execing *stat
}

// forkOf reports whether s runs its parent's program with its parent's
// arguments: a fork that may not have exec'ed yet. o.mu is held.
func (o *Observer) forkOf(s stat, procs map[int]stat) bool {
	p, ok := procs[s.ppid]
	if !ok || p.comm != s.comm {
		return false
	}
	exe, argv, _, _ := details(o.root, s.pid)
	pexe, pargv, _, _ := details(o.root, p.pid)
	return exe == pexe && slices.Equal(argv, pargv)
}

// execing reports whether s is alive with an empty command line: in the
// middle of an exec (the kernel has replaced its memory but not yet laid
// out the new program's arguments), or exiting, which its state will say
// at the next sample. o.mu is held.
func (o *Observer) execing(s stat) bool {
	if !s.alive() {
		return false
	}
	b, _, err := readBounded(filepath.Join(o.root, strconv.Itoa(s.pid), "cmdline"), 1)
	return err == nil && len(b) == 0
}

// forkGrace is how long a forked child may run its parent's program before
// it is recorded as it is (a fork that will not exec: a worker).
const forkGrace = 100 * time.Millisecond

// settleForks records the forked children once they exec'ed, or once
// forkGrace passed (all of them when final), with what they run then and
// the probe open at the fork; the ones gone meanwhile ran nothing worth a
// record (an exec of an sm-* program is in its exec log, every exec in the
// egress observer's). o.mu is held.
func (o *Observer) settleForks(procs map[int]stat, final bool) {
	o.samples++
	for id, f := range o.forked {
		if f.sample == o.samples-1 && !final {
			continue // first seen in this very sample
		}
		s, ok := procs[id.pid]
		if !ok || s.start != id.start || !s.alive() {
			delete(o.forked, id)
			if f.execing != nil {
				// Seen in an exec and gone since: a loss, said as one.
				o.spawnedAs(*f.execing, f)
			}
			continue
		}
		if !final && (o.forkOf(s, procs) || o.execing(s)) && time.Since(f.at) < forkGrace {
			continue // not exec'ed yet, or the exec not done
		}
		delete(o.forked, id)
		o.spawnedAs(s, f)
	}
}

// spawnedAs records s as spawned when f was first seen, under the probe
// open then. o.mu is held.
func (o *Observer) spawnedAs(s stat, f forkedChild) {
	open := o.token
	o.token = f.token
	o.spawned(s, f.at)
	o.token = open
}

func (o *Observer) mask(s string) string {
	if s == "" {
		return s
	}
	return o.opts.Secrets(s)
}

func (o *Observer) maskAll(argv []string) []string {
	if argv == nil {
		return nil
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = o.mask(a)
	}
	return out
}

var _ observers.Observer = (*Observer)(nil)
