package packs

import (
	"strings"
	"testing"
)

func TestFrameHead(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":"sm-3","result":{"tools":[{"description":"` + strings.Repeat(" ", 8000)
	for _, c := range []struct {
		f    Frame
		want map[string]string
	}{
		{Frame{Kind: "oversize", Data: []byte(long[:4096])}, map[string]string{"jsonrpc": `"2.0"`, "id": `"sm-3"`, "result": "null"}},
		{Frame{Kind: "oversize", Data: []byte(`{"id":7,"error":{"code":-1,"message":"x"},"jsonrpc":"2.0","pad":"` + strings.Repeat("p", 5000))[:4096]},
			map[string]string{"id": "7", "error": `{"code":-1,"message":"x"}`, "jsonrpc": `"2.0"`, "pad": "null"}},
		{Frame{Kind: "json", Data: []byte(`{"id":1,"result":{}}`)}, map[string]string{"id": "1", "result": "{}"}},
		{Frame{Kind: "oversize", Data: []byte(strings.Repeat("x", 4096))}, nil},
		{Frame{Kind: "oversize", Data: []byte(`[{"id":1}`)}, nil},
		{Frame{Kind: "json", Data: nil}, nil},
	} {
		got := c.f.Head()
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("%.40s: got %v, want %v", c.f.Data, got, c.want)
			continue
		}
		for k, v := range c.want {
			if string(got[k]) != v {
				t.Errorf("%.40s: %s = %s, want %s", c.f.Data, k, got[k], v)
			}
		}
	}
}
