package process

import (
	"maps"
	"slices"
	"testing"
)

// procsOf builds a process table: pid, ppid, pgid, sid, start.
func procsOf(rows ...[5]int) map[int]stat {
	m := map[int]stat{}
	for _, r := range rows {
		m[r[0]] = stat{pid: r[0], ppid: r[1], pgid: r[2], sid: r[3], start: uint64(r[4]), state: 'S', comm: "p"}
	}
	return m
}

func TestMembers(t *testing.T) {
	// The harness is 100 (group 100, session 50) under a shell 50 under init 1.
	base := [][5]int{
		{1, 0, 1, 1, 0},
		{2, 0, 0, 0, 0},    // kthreadd
		{3, 2, 0, 0, 1},    // a kernel thread
		{50, 1, 50, 50, 5}, // the harness's shell
		{100, 50, 100, 50, 10},
		{200, 100, 200, 50, 20},  // the tracked leader
		{201, 200, 200, 50, 21},  // its child
		{202, 201, 200, 50, 22},  // grandchild
		{300, 1, 300, 300, 23},   // a setsid daemon re-parented to init: found only by marker
		{301, 300, 300, 300, 24}, // its child
		{400, 100, 400, 400, 25}, // a setsid daemon adopted by the harness
		{500, 100, 100, 50, 26},  // an os/exec child of the harness (git): same group
		{600, 1, 200, 50, 5},     // in group 200 but older than the leader: another process's group
		{700, 1, 700, 700, 30},   // unrelated
	}
	tracked := []ident{{200, 20}}
	v := view{self: 100, selfPgid: 100, selfSid: 50, tracked: tracked, since: 20, alone: true}

	t.Run("tree, group and adoption", func(t *testing.T) {
		got := sortedPids(v.members(procsOf(base...)))
		want := []int{200, 201, 202, 400}
		if !slices.Equal(got, want) {
			t.Errorf("members = %v, want %v", got, want)
		}
	})

	t.Run("no adoption while other runs share the harness", func(t *testing.T) {
		v := v
		v.alone = false
		got := sortedPids(v.members(procsOf(base...)))
		want := []int{200, 201, 202}
		if !slices.Equal(got, want) {
			t.Errorf("members = %v, want %v: an adopted child may be another run's", got, want)
		}
	})

	t.Run("marker adds a process and its descendants", func(t *testing.T) {
		v := v
		v.marker = func(s stat) bool { return s.pid == 300 || s.pid == 100 || s.pid == 50 }
		got := sortedPids(v.members(procsOf(base...)))
		want := []int{200, 201, 202, 300, 301, 400}
		if !slices.Equal(got, want) {
			t.Errorf("members = %v, want %v (never the harness or its ancestors)", got, want)
		}
	})

	t.Run("a group member whose parent died", func(t *testing.T) {
		procs := procsOf(append(base, [5]int{203, 1, 200, 50, 40})...)
		if !v.members(procs)[203] {
			t.Error("pid 203 in the leader's group is not a member")
		}
	})

	t.Run("session of a leader started with setsid", func(t *testing.T) {
		procs := procsOf(append(base, [5]int{800, 100, 800, 800, 41}, [5]int{801, 1, 801, 800, 42})...)
		v := v
		v.tracked = []ident{{800, 41}}
		if got := v.members(procs); !got[801] {
			t.Errorf("members = %v, want 801 (session 800)", sortedPids(got))
		}
	})

	t.Run("another observer's leader is not adopted", func(t *testing.T) {
		v := v
		v.leader = func(id ident) bool { return id == ident{400, 25} }
		if v.members(procsOf(base...))[400] {
			t.Error("pid 400, a leader tracked elsewhere, counted as adopted")
		}
	})

	t.Run("nothing tracked: no adoption", func(t *testing.T) {
		v := v
		v.tracked, v.since = nil, 0
		if got := v.members(procsOf(base...)); len(got) != 0 {
			t.Errorf("members = %v, want none", sortedPids(got))
		}
	})

	t.Run("a child started before the first leader is not adopted", func(t *testing.T) {
		v := v
		v.since = 26
		v.tracked = []ident{{200, 26}}
		got := v.members(procsOf(base...))
		if got[400] {
			t.Errorf("members = %v: 400 started before the leader", sortedPids(got))
		}
	})

	t.Run("sticky", func(t *testing.T) {
		v := v
		v.sticky = func(id ident) bool { return id == ident{700, 30} }
		if !v.members(procsOf(base...))[700] {
			t.Error("a process seen as a member before is no longer one")
		}
		v.sticky = func(id ident) bool { return id == ident{700, 29} } // pid reused
		if v.members(procsOf(base...))[700] {
			t.Error("a reused pid inherited membership")
		}
	})

	t.Run("tracked leader with another start time is not the leader", func(t *testing.T) {
		v := v
		v.tracked = []ident{{200, 19}}
		v.since = 19
		procs := procsOf(base...)
		delete(procs, 400)
		got := v.members(procs)
		// 200 is not the tracked process, but its group 200 started after 19.
		want := map[int]bool{200: true, 201: true, 202: true}
		if !maps.Equal(got, want) {
			t.Errorf("members = %v, want %v", sortedPids(got), sortedPids(want))
		}
	})
}

func TestLeaderRegistry(t *testing.T) {
	id := ident{pid: 987654, start: 3}
	registerLeader(id)
	registerLeader(id)
	unregisterLeaders([]ident{id})
	if !isLeader(id) {
		t.Fatal("leader registered twice, unregistered once: not a leader any more")
	}
	unregisterLeaders([]ident{id})
	if isLeader(id) {
		t.Error("leader still registered after both unregistered")
	}
	registerLeader(ident{pid: 987654})
	defer unregisterLeaders([]ident{{pid: 987654}})
	if !isLeader(id) {
		t.Error("a leader registered without start time does not match its pid")
	}
}
