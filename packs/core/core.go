// Package core is the pack every MCP server gets: the handshake and version
// negotiation, ping, the tool list, its metadata hygiene and its pins
// (the lock sealmark pin wrote, when the run has one), JSON-RPC
// framing and error codes, the optional features it declares (resources,
// prompts, logging), tools/call error classes, cancellation and progress,
// stdout hygiene and wire validation, exit on stdin close, a sweep of the
// read-only tools, a tool list that changes within the session, a flood of
// notifications, refused attempts to get out of the sandbox and the
// secret-echo check. A feature the server does not
// declare is not applicable, never a failure.
//
//	e, _ := engine.New(engine.Config{Command: "my-server", Packs: []string{"core"}})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/core.
//
// The probes run in the order of Pack.Probes on one start of the server.
// Probes that write malformed input come after malformed-input, which
// judges a crash on it; probes that call tools come after tool-sweep, which
// judges a crash or a hang on valid arguments, and skip the tools it saw
// fail. tools-rug-pull asks for the tool list once more just before
// version-negotiation, which sends a second initialize, on which a server
// may reset its session, so it is the last probe that talks to the server.
// exits-on-stdin-close ends the session: only probes that judge what was
// already captured come after it. tool-drift (Pack.Restarted) runs last,
// on a start of its own, and compares its tool list with the first
// start's; resource-limits also grades a limit met while a start failed
// (Pack.StartLimits).
package core

import "github.com/sealmark/sealmark/packs"

// Pack is the core pack.
var Pack = packs.Pack{
	Name: "core",
	Doc:  "protocol hygiene every MCP server must have, and no echo of the harness's canary secrets",
	Probes: []packs.Probe{
		initialize,
		discover,
		ping,
		toolsList,
		toolMetadata,
		toolPin,
		bogusCursor,
		unknownMethod,
		modernMeta,
		modernVersionError,
		removedMethodsProbe,
		legacyInitialize,
		malformedInput,
		requestIDs,
		parseError,
		invalidRequest,
		batch,
		invalidParams,
		capabilitiesServed,
		resources,
		prompts,
		loggingSetLevel,
		toolSweep,
		progress,
		unknownTool,
		badArguments,
		cancellation,
		cancelUnknown,
		largeArgument,
		toolsRugPull,
		versionNegotiation,
		httpOrigin,
		httpHost,
		httpUnknownSession,
		httpDeletedSession,
		httpSessionID,
		httpNotification,
		httpVersion,
		modernHTTPHeaders,
		modernHTTPNoSessions,
		httpLoopbackOnly,
		httpCORS,
		exitOnStdinClose,
		noOrphans,
		filesOutsideRoot,
		resourceLimits,
		escapeAttempts,
		noListener,
		stdoutOnly,
		noStdoutRequests,
		clientCapabilities,
		notificationFlood,
		unrequestedLog,
		resultShape,
		errorCodes,
		wireMessages,
		secretEcho,
	},
	Restarted:   []packs.Probe{toolDrift},
	StartLimits: resourceLimits.ID,
}
