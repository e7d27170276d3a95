package fs

import (
	"fmt"

	"github.com/sealmark/sealmark/packs"
)

// Pack is the fs pack with every role guessed from the server's surface.
var Pack = Hinted()

// Hinted returns the fs pack with hints deciding the role and the path
// arguments of the tools they name (a hint with no role leaves its tool
// unprobed); the other tools are guessed.
func Hinted(hints ...Hint) packs.Pack {
	pk := packs.Pack{
		Name:    "fs",
		Prepare: prepare,
		// Its probes read and write inside the sandbox, which outlives
		// every start anyway, and ask nothing of a fresh server.
		SharesStart: true,
		Doc:         "a file server must keep every read and write inside its root: no ../, absolute, sibling-prefix, link, encoded, backslash, NUL, ~ or file:// escape",
		Applies: func(s *packs.Surface) (bool, string) {
			if len(Tools(s, hints)) > 0 || len(Pending(s, hints)) > 0 {
				return true, ""
			}
			return false, fmt.Sprintf("no tool takes a path: none of the %d tools has a string argument named like path, file, uri, source or destination, or a paths[] argument, that the tool says is a file on this machine, with a file role its name or hints tell", len(s.Tools))
		},
	}
	for _, f := range forms {
		pk.Probes = append(pk.Probes, readProbe(f, hints))
	}
	for _, f := range forms {
		pk.Probes = append(pk.Probes, writeProbe(f, hints))
	}
	pk.Probes = append(pk.Probes, linkCreate(hints))
	return pk
}
