package exec

import (
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

// Pack is the exec pack with every command tool guessed from the server's
// surface.
var Pack = Hinted()

// Hinted returns the exec pack with hints deciding the arguments of the
// tools they name (a hint with no Command leaves its tool unprobed); the
// other tools are guessed.
func Hinted(hints ...Hint) packs.Pack {
	pk := packs.Pack{
		Name: "exec",
		Doc:  "a command server must run only what it allows, in its root, without its secrets, and leave nothing running: no shell injection, no way around its allow-list, no inherited canary, no child that outlives the call or the server, no unbounded output",
		Applies: func(s *packs.Surface) (bool, string) {
			if len(Tools(s, hints)) > 0 {
				return true, ""
			}
			return false, fmt.Sprintf("no tool takes a command: none of the %d tools has a string argument named like command, cmd, script or program, or is a terminal taking input text", len(s.Tools))
		},
		// The children must be able to inherit something for
		// env-inheritance to judge.
		Canaries: true,
		// A tool that kills the server is a finding once; the probes
		// after it get a fresh server and leave that tool out.
		Relaunch: true,
	}
	for _, f := range families {
		pk.Probes = append(pk.Probes, injectProbe(f, hints))
	}
	pk.Probes = append(pk.Probes,
		workdirEscape(hints),
		envInheritance(hints),
		outputFlood(hints),
		timeout(hints),
		background(hints),
		outlivesServer(hints), // last: it stops the server
	)
	return pk
}
