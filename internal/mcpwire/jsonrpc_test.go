package mcpwire

import (
	"encoding/json"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		line   string
		method string // a request for it, or
		code   int    // a rejection with it; neither: a line to ignore
	}{
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, method: "ping"},
		{line: `{"jsonrpc":"2.0","method":"notifications/initialized","params":null}`, method: "notifications/initialized"},
		{line: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`}, // a client's answer to a line it could not read
		{line: " \r"},
		{line: `{"jsonrpc":"2.0","id":`, code: CodeParseError},
		{line: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, code: CodeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":{},"result":{}}`, code: CodeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":null}`, code: CodeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":null,"result":{}}`, code: CodeInvalidRequest},
		{line: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, code: CodeInvalidRequest},
		{line: `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, code: CodeInvalidRequest},
		{line: `[]`, code: CodeInvalidRequest},
	} {
		req, rej := Decode([]byte(tc.line))
		switch {
		case tc.method != "":
			if rej != nil || req == nil || req.Method != tc.method {
				t.Errorf("Decode(%s) = %+v, %+v; want a %s request", tc.line, req, rej, tc.method)
			}
		case tc.code != 0:
			if req != nil || rej == nil || rej.Error.Code != tc.code {
				got, _ := json.Marshal(rej)
				t.Errorf("Decode(%s) = %+v, %s; want error %d", tc.line, req, got, tc.code)
			}
		default:
			if req != nil || rej != nil {
				t.Errorf("Decode(%s) = %+v, %+v; want a line to ignore", tc.line, req, rej)
			}
		}
	}
}
