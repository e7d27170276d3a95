package git

import (
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

// Pack is the git pack.
var Pack = newPack()

func newPack() packs.Pack {
	pk := packs.Pack{
		Name: "git",
		Doc:  "a git server must keep every read, write and program run inside its repositories: no escape to other repositories, no creation outside the root, no option injection, no program the handed repository configures",
		Applies: func(s *packs.Surface) (bool, string) {
			if len(Tools(s)) > 0 {
				return true, ""
			}
			return false, fmt.Sprintf("no git tool: none of the %d tools is named for git or a git operation, or takes a repository argument", len(s.Tools))
		},
		GitLayout: true,
	}
	for _, pl := range places {
		pk.Probes = append(pk.Probes, escapeProbe(pl))
	}
	pk.Probes = append(pk.Probes, workdirEscape, hostileProbe(false), createOutside, worktreeOutside, workdirInit, remoteRead, remoteFetch, argumentInjection, hostileProbe(true), urlCredentials)
	return pk
}
