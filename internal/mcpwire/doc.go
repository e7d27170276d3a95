// Package mcpwire is the server side of MCP's stdio framing: bounded line
// reading and JSON-RPC 2.0 request decoding with the error each malformed
// line deserves. The bundled example server and the test fixture servers
// speak through it.
//
//	lines := mcpwire.NewLineReader(os.Stdin)
//	for {
//		line, tooLong, err := lines.Next()
//		if err != nil {
//			return // stdin closed: exit
//		}
//		if tooLong {
//			reply(mcpwire.ErrorResponse(nil, mcpwire.CodeParseError, "Parse error: line too long"))
//			continue
//		}
//		req, reject := mcpwire.Decode(line)
//		// reject != nil: send it; req == nil: ignore the line; else serve req
//	}
package mcpwire
