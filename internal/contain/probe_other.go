//go:build !linux

package contain

import "runtime"

// Probe returns what applies here: only the process group (on Unix). The
// shim's mechanisms are Linux's.
func Probe() Isolation {
	why := "not Linux"
	i := Isolation{Pgid: applied("pgid", "")}
	if runtime.GOOS == "windows" {
		i.Pgid = refused("pgid", "not Unix")
	}
	i.Pdeathsig = refused("pdeathsig", why)
	i.Subreaper = refused("subreaper", why)
	i.NoNewPrivs = refused("no_new_privs", why)
	i.FileSize = refused("rlimit-fsize", why)
	i.LandlockFS = refused("landlock-fs", why)
	i.LandlockNet = refused("landlock-net", why)
	i.LandlockScope = refused("landlock-scope", why)
	i.NetNS = refused("netns", why)
	i.PidNS = refused("pidns", why)
	i.UserNS = refused("userns", why)
	i.MountNS = refused("mountns", why)
	i.Secrets = refused("secrets", why)
	i.IPCUTS = refused("ipc+uts", why)
	i.Caps = refused("caps", why)
	i.SeccompNotify = refused("seccomp-notify", why)
	i.Cgroup = refused("cgroup", why)
	i.Quota = refused("tmpfs", why)
	return i
}
