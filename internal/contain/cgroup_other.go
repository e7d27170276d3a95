//go:build !linux

package contain

import (
	"errors"
	"time"
)

// Only Linux has cgroups: no leaf is ever made here.

var errNoCgroup = errors.New("contain: cgroups are Linux's")

func newCgroup(cgroupLimits, bool) (*Cgroup, error) { return nil, errNoCgroup }
func readProcs(string) ([]int, error)               { return nil, errNoCgroup }
func killCgroup(string, time.Time) error            { return errNoCgroup }
func removeCgroup(string, time.Time) ([]int, error) { return nil, errNoCgroup }
func sweepCgroups() []string                        { return nil }
func cgroupHits(string, []string) Hits              { return Hits{} }
func removeV1Groups([]string, time.Time) error      { return nil }
func joinV1([]string) error                         { return nil }

// CPULimitOffered says why no leaf here can carry a CPU limit.
func CPULimitOffered() error { return errNoCgroup }
