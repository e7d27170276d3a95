package process

import (
	"github.com/sealmark/sealmark/internal/launch"
	"slices"
	"sync"
)

// view is what membership in the run is decided from, besides /proc.
type view struct {
	self     int // the harness
	selfPgid int
	selfSid  int
	tracked  []ident // the leaders of this Observer's start
	since    uint64  // start time of the earliest tracked leader
	leader   func(ident) bool
	sticky   func(ident) bool // seen as a member before
	marker   func(stat) bool  // the environment holds the run marker
	alone    bool             // the only open Observer: adoption identifies orphans
}

// members returns the pids of procs that belong to the run: see the package
// doc. The harness and its ancestors never do.
func (v view) members(procs map[int]stat) map[int]bool {
	never := map[int]bool{0: true, 1: true, v.self: true}
	for pid, hops := v.self, 0; hops < 64; hops++ {
		s, ok := procs[pid]
		if !ok || s.ppid <= 0 {
			break
		}
		never[s.ppid] = true
		pid = s.ppid
	}
	// Kernel threads (kthreadd and its children) are nobody's run.
	if s, ok := procs[2]; ok && s.ppid == 0 {
		never[2] = true
	}

	in := map[int]bool{}
	for pid, s := range procs {
		if never[pid] || s.ppid == 2 {
			continue
		}
		if v.cheapMember(s) {
			in[pid] = true
		}
	}
	v.descendants(procs, in, never)
	if v.marker != nil {
		found := false
		for pid, s := range procs {
			if !in[pid] && !never[pid] && s.ppid != 2 && v.marker(s) {
				in[pid] = true
				found = true
			}
		}
		if found {
			v.descendants(procs, in, never)
		}
	}
	return in
}

// cheapMember applies every rule that needs only the stat line.
func (v view) cheapMember(s stat) bool {
	for _, t := range v.tracked {
		if s.pid == t.pid && (t.start == 0 || s.start == t.start) {
			return true
		}
		if s.start < t.start {
			continue // the group or session of an older process of that pid
		}
		if s.pgid == t.pid && s.pgid != v.selfPgid {
			return true
		}
		if s.sid == t.pid && s.sid != v.selfSid {
			return true
		}
	}
	if v.sticky != nil && v.sticky(s.id()) {
		return true
	}
	return v.alone && len(v.tracked) > 0 && s.ppid == v.self && !launch.Ours(s.pid) && !launch.Starting() && s.pgid != v.selfPgid &&
		s.start >= v.since && (v.leader == nil || !v.leader(s.id()))
}

// descendants adds to in every descendant of its members.
func (v view) descendants(procs map[int]stat, in, never map[int]bool) {
	children := map[int][]int{}
	for pid, s := range procs {
		children[s.ppid] = append(children[s.ppid], pid)
	}
	queue := make([]int, 0, len(in))
	for pid := range in {
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, c := range children[pid] {
			if !in[c] && !never[c] {
				in[c] = true
				queue = append(queue, c)
			}
		}
	}
}

// leaders holds the leaders tracked by every Observer of this process, so no
// Observer mistakes another's server for an adopted orphan.
var leaders = struct {
	sync.Mutex
	n map[ident]int
}{n: map[ident]int{}}

func registerLeader(id ident) {
	leaders.Lock()
	leaders.n[id]++
	leaders.Unlock()
}

func unregisterLeaders(ids []ident) {
	leaders.Lock()
	defer leaders.Unlock()
	for _, id := range ids {
		if leaders.n[id] <= 1 {
			delete(leaders.n, id)
		} else {
			leaders.n[id]--
		}
	}
}

func isLeader(id ident) bool {
	leaders.Lock()
	defer leaders.Unlock()
	if leaders.n[id] > 0 {
		return true
	}
	// A leader tracked before its start time could be read.
	return leaders.n[ident{pid: id.pid}] > 0
}

// sortedPids returns the keys of set in increasing order.
func sortedPids(set map[int]bool) []int {
	pids := make([]int, 0, len(set))
	for pid := range set {
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return pids
}
