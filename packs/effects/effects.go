package effects

import "github.com/sealmark/sealmark/packs"

// Pack is the effects pack: what a tool call does to the world.
var Pack = func() packs.Pack {
	pk := packs.Pack{
		Name: "effects",
		// No SharesStart: its probes judge what the server does while
		// each call runs, and a server's background work grows with the
		// requests before them. desktop-commander 0.2.52, on the start
		// the fs pack's 300 calls had used, tried the network during 26
		// of the sweep's calls and kept trying after them (a medium);
		// on a start of its own, during one call and never after
		// (TestSharedStartsReal). What the sweep sees must be the
		// server's answer to the sweep, so the pack starts it afresh.
		Doc: "a tool call must not reach the harness's loopback listener however it is named (SSRF), send credentials across a redirect, write outside the sandbox, leave shared output, run programs it does not name or open listeners; its network attempts are listed",
	}
	for _, f := range forms {
		pk.Probes = append(pk.Probes, ssrfProbe(f))
	}
	pk.Probes = append(pk.Probes, credentialsProbe, writesOutside, sharedOutput, spawns, listeners, network)
	return pk
}()
