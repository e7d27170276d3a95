package launch

import (
	"os"
	"slices"
	"syscall"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		stat  string
		state byte
		pgrp  int
		ok    bool
	}{
		{"42 (sleep) S 1 42 42 0 -1", 'S', 42, true},
		{"43 (a (b) c) Z 42 40 40 0", 'Z', 40, true},
		{"44 (odd) name) R 1 7 7", 'R', 7, true},
		{"45 (trunc) S", 0, 0, false},
		{"garbage", 0, 0, false},
	}
	for _, tt := range tests {
		state, pgrp, ok := parseStat([]byte(tt.stat))
		if state != tt.state || pgrp != tt.pgrp || ok != tt.ok {
			t.Errorf("parseStat(%q) = %q, %d, %v; want %q, %d, %v", tt.stat, state, pgrp, ok, tt.state, tt.pgrp, tt.ok)
		}
	}
}

func TestGroupMembersFindsThisProcess(t *testing.T) {
	pids, alive := groupMembers(syscall.Getpgrp())
	if !alive || !slices.Contains(pids, os.Getpid()) {
		t.Errorf("groupMembers(own group) = %v, %v; want it to contain %d", pids, alive, os.Getpid())
	}
}
