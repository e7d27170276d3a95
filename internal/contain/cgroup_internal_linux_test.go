package contain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/launch"
)

func TestParseLeafName(t *testing.T) {
	o, ok := parseLeafName(leafName(1234, 567, 8))
	require.True(t, ok)
	assert.Equal(t, owner{Pid: 1234, Start: 567}, o)
	for _, bad := range []string{
		"sealmark-1234-567", "sealmark-1234-567-8-9", "sealmark-x-1-2", "sealmark-01-1-2",
		"sealmark-0-1-2", "sealmark--1-2", "sealmark-1-2-", "other-1-2-3", "sealmark-4194305-1-1",
		"sealmark-+1-2-3", "sealmark-0000000000000001",
	} {
		_, ok := parseLeafName(bad)
		assert.False(t, ok, bad)
	}
}

func TestOwnCgroup(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]string{
		"9:name=systemd:/\n4:memory:/x\n0::/\n":      "/",
		"0::/user.slice/user-1000.slice/app.scope\n": "/user.slice/user-1000.slice/app.scope",
	} {
		f := filepath.Join(dir, "cgroup")
		require.NoError(t, os.WriteFile(f, []byte(body), 0o600))
		got, err := ownCgroup(f)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"1:cpu:/\n", "0::relative\n", "0::/a/../b\n", "0::/gone (deleted)\n"} {
		f := filepath.Join(dir, "cgroup")
		require.NoError(t, os.WriteFile(f, []byte(bad), 0o600))
		_, err := ownCgroup(f)
		assert.Error(t, err, "%q", bad)
	}
}

// TestProbeCgroupRefused: a refused cgroup probe keeps its error, and
// WrapEgress then makes no leaf.
func TestProbeCgroupRefused(t *testing.T) {
	defer func(p func(string) (Layer, []string)) { cgroupProber = p }(cgroupProber)
	cgroupProber = func(string) (Layer, []string) {
		return refused("cgroup", "mkdir /sys/fs/cgroup/sealmark-1-2-3: read-only file system"), nil
	}
	iso := probe()
	assert.Equal(t, "mkdir /sys/fs/cgroup/sealmark-1-2-3: read-only file system", iso.For(Options{Cgroup: true}).Cgroup.Why)
	spec, hand, err := wrapWith(iso.For(Options{Cgroup: true}), launch.Spec{Path: "/bin/true"}, Options{Cgroup: true})
	require.NoError(t, err)
	assert.Nil(t, hand.Cgroup())
	assert.Zero(t, spec.CgroupFD)
}
