package effects

import "github.com/sealmark/sealmark/packs"

// Pack is the effects pack: what a tool call does to the world.
var Pack = func() packs.Pack {
	pk := packs.Pack{
		Name: "effects",
		Doc:  "a tool call must not reach the harness's loopback listener however it is named (SSRF), send credentials across a redirect, write outside the sandbox, leave shared output, run programs it does not name or open listeners; its network attempts are listed",
	}
	for _, f := range forms {
		pk.Probes = append(pk.Probes, ssrfProbe(f))
	}
	pk.Probes = append(pk.Probes, credentialsProbe, writesOutside, sharedOutput, spawns, listeners, network)
	return pk
}()
