package packs

import (
	"bytes"
	"encoding/json"
)

// Head reads the top-level members of a JSON-RPC message from the start of
// an oversize frame, whose Data holds only the line's first 4 KiB: every
// member whose value ends within it (jsonrpc, id, method, usually), and
// the name of the first that does not, with a null value, so that a
// response still shows as one ("result" present). It returns nil when
// the frame does not start a JSON object. For a JSON frame it is the
// whole object's members.
func (f Frame) Head() map[string]json.RawMessage {
	data := bytes.TrimSpace(f.Data)
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	if f.Kind == "json" {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return nil
		}
		return m
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := t.(string)
		if !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			out[key] = json.RawMessage("null") // the value runs past the kept prefix
			break
		}
		out[key] = v
	}
	return out
}
