package process

// The harness's own processes can sit in a server's tree: a containment
// shim that stays as the server's parent (in a pid namespace it is pid 1
// there, and holds the proxy's listeners). Options.Infra names them. They
// are members of the run, so a sweep stops them and their descendants
// belong to the run, but nothing is recorded about them and PIDs and
// Survivors leave them out: what they do is not the server's doing. The
// process an infra process started first is the server it wraps, so its
// appearance is no spawn either; a later child of one (an orphan the
// namespace's init adopted) is recorded as usual.

// isInfra reports whether s is one of the harness's own processes. The
// argv is read each time: a shim that execs the server keeps its pid and
// start time, and a fixture server can share the harness's comm. o.mu is
// held.
func (o *Observer) isInfra(s stat) bool {
	if o.opts.Infra == nil {
		return false
	}
	_, argv, _, _ := details(o.root, s.pid)
	return argv != nil && o.opts.Infra(argv)
}

// wrapsServer reports whether s is the server an infra process started:
// the earliest started non-infra child of an infra parent (the lowest pid
// on a tie). The answer is remembered per parent. o.mu is held.
func (o *Observer) wrapsServer(s stat, procs map[int]stat) bool {
	parent, ok := procs[s.ppid]
	if !ok || !o.isInfra(parent) {
		return false
	}
	pid := parent.id()
	if w, ok := o.wrapped[pid]; ok {
		return w == s.id()
	}
	first := s
	for _, c := range procs {
		if c.ppid != parent.pid || c.pid == s.pid || o.isInfra(c) {
			continue
		}
		if c.start < first.start || (c.start == first.start && c.pid < first.pid) {
			first = c
		}
	}
	o.wrapped[pid] = first.id()
	return first.pid == s.pid
}

// isWrapped reports whether id was found to be the server an infra process
// started. o.mu is held.
func (o *Observer) isWrapped(id ident) bool {
	for _, w := range o.wrapped {
		if w == id {
			return true
		}
	}
	return false
}

// forgetWrapped drops what is remembered of infra parents that are gone.
// o.mu is held.
func (o *Observer) forgetWrapped(procs map[int]stat) {
	for id := range o.wrapped {
		if s, ok := procs[id.pid]; !ok || s.start != id.start {
			delete(o.wrapped, id)
		}
	}
}
