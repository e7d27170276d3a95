package effects

import "github.com/sealmark/sealmark/packs"

// Pack is the effects pack: what a tool call does to the world.
var Pack = func() packs.Pack {
	pk := packs.Pack{
		Name: "effects",
		// Its probes judge what each call does while it runs, against
		// what the server did from its start up to the first probe on it
		// (Pass.Observed.Pack): no fresh server is needed, and the
		// read-only sweep leaves the server as it was.
		SharesStart: true,
		Doc:         "a tool call must not reach the harness's loopback listener however it is named (SSRF), send credentials across a redirect, write outside the sandbox, leave shared output, run programs it does not name or open listeners; its network attempts are listed",
	}
	for _, f := range forms {
		pk.Probes = append(pk.Probes, ssrfProbe(f))
	}
	pk.Probes = append(pk.Probes, credentialsProbe, writesOutside, sharedOutput, spawns, listeners, network)
	return pk
}()
