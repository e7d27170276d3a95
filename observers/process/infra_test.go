package process

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// TestFakeInfraIsNeverTheServers plays a server in a pid namespace: the
// tracked leader is the outer shim, it started the inner shim, which
// started the server. The shims and the server's own appearance are no
// spawn; the server's child is; a process the inner shim adopted later (a
// daemon whose parent exited) is; PIDs and Survivors leave the shims out.
func TestFakeInfraIsNeverTheServers(t *testing.T) {
	f := newFakeProc(t)
	isShim := func(argv []string) bool { return len(argv) > 1 && argv[1] == "__shim" }
	f.add(200, 100, 200, 100, "S", "harness", "harness __shim run -- /bin/server")
	obs := f.observer(Options{Interval: time.Hour, Infra: isShim})
	obs.Track(200)

	obs.Begin("tok-1")
	f.add(201, 200, 200, 100, "S", "harness", "harness __shim inner -- /bin/server")
	f.add(202, 201, 201, 100, "S", "server", "/bin/server")
	f.add(203, 202, 201, 100, "S", "child", "/bin/child --of-server")
	recs := obs.Collect("tok-1")
	spawned := byOp(recs, observers.KindProcess, "spawned")
	if len(spawned) != 1 || spawned[0].Data["pid"] != "203" {
		t.Fatalf("spawned = %+v, want only the server's child 203", spawned)
	}
	if len(byOp(recs, observers.KindProcess, "execve")) != 0 {
		t.Errorf("execve records for the shims: %+v", recs)
	}

	obs.Begin("tok-2")
	f.add(204, 201, 204, 204, "S", "daemon", "/bin/daemon") // adopted by the namespace's init
	recs = obs.Collect("tok-2")
	spawned = byOp(recs, observers.KindProcess, "spawned")
	if len(spawned) != 1 || spawned[0].Data["pid"] != "204" {
		t.Fatalf("spawned = %+v, want the adopted daemon 204", spawned)
	}

	if got, want := obs.PIDs(), []int{202, 203, 204}; !slices.Equal(got, want) {
		t.Errorf("PIDs = %v, want %v (no shim)", got, want)
	}
	var pids []int
	for _, p := range obs.Survivors() {
		pids = append(pids, p.PID)
	}
	if want := []int{202, 203, 204}; !slices.Equal(pids, want) {
		t.Errorf("Survivors = %v, want %v (no shim)", pids, want)
	}
}

// TestFakeWithoutInfraTheShimIsASpawn is the same tree without the Infra
// option: the inner shim and the server are spawns, so the test above
// proves the option, not the tree.
func TestFakeWithoutInfraTheShimIsASpawn(t *testing.T) {
	f := newFakeProc(t)
	f.add(200, 100, 200, 100, "S", "harness", "harness __shim run -- /bin/server")
	obs := f.observer(Options{Interval: time.Hour})
	obs.Track(200)
	obs.Begin("tok-1")
	f.add(201, 200, 200, 100, "S", "harness", "harness __shim inner -- /bin/server")
	f.add(202, 201, 201, 100, "S", "server", "/bin/server")
	if spawned := byOp(obs.Collect("tok-1"), observers.KindProcess, "spawned"); len(spawned) != 2 {
		t.Fatalf("spawned = %+v, want the inner shim and the server", spawned)
	}
	if got := obs.PIDs(); !slices.Contains(got, 201) {
		t.Errorf("PIDs = %v, want the shim among them without Infra", got)
	}
}

// TestFakeExitingProcessIsNoSurvivor pins that a process caught exiting
// (still R in its stat, its command line already empty) is not listed as
// a survivor: outlives-server once named such a process with argv "[]".
func TestFakeExitingProcessIsNoSurvivor(t *testing.T) {
	f := newFakeProc(t)
	f.add(300, 1, 300, 300, "S", "server", "/bin/server")
	obs := f.observer(Options{Interval: time.Hour})
	obs.Track(300)
	f.add(301, 300, 300, 300, "S", "child", "/bin/child --lingers")
	f.add(302, 300, 300, 300, "R", "exiting", "\x00") // cmdline empty
	var got []string
	for _, p := range obs.Survivors() {
		got = append(got, strings.Join(p.Argv, " "))
	}
	if want := []string{"/bin/server", "/bin/child --lingers"}; !slices.Equal(got, want) {
		t.Errorf("Survivors = %q, want %q (not the exiting 302)", got, want)
	}
}
