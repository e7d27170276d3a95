package mcpwire

import (
	"bytes"
	"encoding/json"
)

// JSON-RPC 2.0 error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Request is one valid JSON-RPC Request or notification.
type Request struct {
	ID     json.RawMessage // exactly as sent; nil for a notification
	Method string
	Params json.RawMessage // nil when absent or null
}

type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type Response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // nil encodes as null
	Result  any             `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

func ErrorResponse(id json.RawMessage, code int, message string) *Response {
	return &Response{ID: id, Error: &Error{Code: code, Message: message}}
}

// Decode reads one line. It returns the Request, or the error Response the
// line deserves (-32700 for malformed JSON, -32600 for a JSON value that is
// not a valid Request, with the id when it could be read), or neither for a
// line to ignore: a blank line, or a Response sent to the server.
//
// Params that are JSON null count as absent, as many clients send them.
func Decode(line []byte) (*Request, *Response) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, nil
	}
	if !json.Valid(line) {
		return nil, ErrorResponse(nil, CodeParseError, "Parse error")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: not a JSON object")
	}
	rawID, hasID := fields["id"]
	id := ValidID(rawID)
	_, hasMethod := fields["method"]
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	response := !hasMethod && (hasResult || hasError)
	// A response to the server is ignored, an error's null id included
	// (JSON-RPC 2.0 §5: null when the request's id could not be read).
	if hasID && id == nil && !(response && hasError && string(rawID) == "null") {
		return nil, ErrorResponse(nil, CodeInvalidRequest, "Invalid Request: id must be a string or a number")
	}
	invalid := func(why string) (*Request, *Response) {
		return nil, ErrorResponse(id, CodeInvalidRequest, "Invalid Request: "+why)
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return invalid(`jsonrpc must be "2.0"`)
	}
	if !hasMethod {
		if response {
			return nil, nil
		}
		return invalid("missing method")
	}
	var method string
	if err := json.Unmarshal(fields["method"], &method); err != nil || method == "" {
		return invalid("method must be a non-empty string")
	}
	params := fields["params"]
	if string(params) == "null" {
		params = nil
	}
	if params != nil && params[0] != '{' && params[0] != '[' {
		return invalid("params must be an object or an array")
	}
	return &Request{ID: id, Method: method, Params: params}, nil
}

// ValidID returns raw when it is a JSON string or number, else nil.
func ValidID(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"', c == '-', c >= '0' && c <= '9':
		return raw
	}
	return nil
}
