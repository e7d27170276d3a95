// Package core is the pack every MCP server gets: the handshake, the tool
// list, JSON-RPC error handling, stdout hygiene, exit on stdin close, a sweep
// of the read-only tools and the secret-echo check.
//
//	e, _ := engine.New(engine.Config{Command: "my-server", Packs: []string{"core"}})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/core.
//
// The probes run in the order of Pack.Probes on one start of the server.
// exits-on-stdin-close ends the session, so only probes that judge what was
// already captured (stdout-jsonrpc-only, secret-echo) come after it.
package core

import "github.com/sealmark/sealmark/packs"

// Pack is the core pack.
var Pack = packs.Pack{
	Name: "core",
	Doc:  "protocol hygiene every MCP server must have, and no echo of the harness's canary secrets",
	Probes: []packs.Probe{
		initialize,
		toolsList,
		unknownMethod,
		malformedInput,
		toolSweep,
		exitOnStdinClose,
		noOrphans,
		filesOutsideRoot,
		noListener,
		stdoutOnly,
		secretEcho,
	},
}
