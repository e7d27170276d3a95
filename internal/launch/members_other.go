//go:build unix && !linux

package launch

// groupMembers cannot list the group here; kill(2) already said it exists.
func groupMembers(pgid int) ([]int, bool) { return nil, true }
