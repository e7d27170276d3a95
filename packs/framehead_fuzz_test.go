package packs

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzFrameHead reads the head of arbitrary messages, whole and cut short
// as an oversize frame keeps them: it never panics, a whole frame's head is
// its members, and a cut frame's head holds only members of the whole
// message, each with its whole value except a last one cut off (null).
func FuzzFrameHead(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":"sm-3","result":{"tools":[]}}`), uint16(30))
	f.Add([]byte(`{"id":7,"error":{"code":-32601,"message":"x"},"jsonrpc":"2.0"}`), uint16(12))
	f.Add([]byte(`[{"id":1}]`), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		whole := Frame{Kind: "json", Data: data}.Head()
		k := int(cut) % (len(data) + 1)
		head := Frame{Kind: "oversize", Data: data[:k]}.Head()
		var full map[string]json.RawMessage
		if json.Unmarshal(data, &full) != nil || hasDuplicates(data) {
			return // a repeated name keeps its last value only
		}
		if len(whole) != len(full) {
			t.Fatalf("whole head has %d members, the message %d", len(whole), len(full))
		}
		cutOff := 0
		for key, v := range head {
			fv, ok := full[key]
			if !ok {
				t.Fatalf("cut head has %q, which the message lacks", key)
			}
			if !bytes.Equal(compact(v), compact(fv)) {
				if string(v) != "null" {
					t.Fatalf("cut head %q = %s, the message has %s", key, v, fv)
				}
				cutOff++
			}
		}
		if cutOff > 1 {
			t.Fatalf("%d members cut off, want at most the last", cutOff)
		}
	})
}

func compact(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// hasDuplicates reports whether a JSON object repeats a member name, which
// makes an earlier value differ from the one Unmarshal keeps.
func hasDuplicates(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		k, _ := t.(string)
		if seen[k] {
			return true
		}
		seen[k] = true
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return false
		}
	}
	return false
}
