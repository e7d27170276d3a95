package effects

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// TestTried words every kind of egress record the writes-outside probe
// reads, and names the places each touched.
func TestTried(t *testing.T) {
	p := &packs.Pass{Install: "/opt/srv"}
	rec := func(kv ...string) observers.Record {
		d := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			d[kv[i]] = kv[i+1]
		}
		return observers.Record{Kind: observers.KindProcess, Data: d}
	}
	for _, c := range []struct {
		rec     observers.Record
		words   string
		touched []string
	}{
		{rec("op", "open-write", "syscall", "openat", "path", "/opt/srv/state"), "opened {install}/state for writing", []string{"/opt/srv/state"}},
		{rec("op", "remove", "syscall", "unlinkat", "path", "/opt/srv/a"), "tried to delete {install}/a", []string{"/opt/srv/a"}},
		{rec("op", "remove", "syscall", "unlinkat", "path", "/opt/srv/d", "flags", "AT_REMOVEDIR"), "tried to delete the directory {install}/d", []string{"/opt/srv/d"}},
		{rec("op", "remove", "syscall", "rmdir", "path", "/etc/x"), "tried to delete the directory /etc/x", []string{"/etc/x"}},
		{rec("op", "rename", "syscall", "renameat2", "path", "/opt/srv/a", "to", "/etc/b"), "tried to rename {install}/a to /etc/b", []string{"/opt/srv/a", "/etc/b"}},
		{rec("op", "link", "syscall", "linkat", "path", "/sb/h", "target", "/etc/shadow"), "tried to make /sb/h a hard link to /etc/shadow", []string{"/sb/h", "/etc/shadow"}},
		{rec("op", "link", "syscall", "symlinkat", "path", "/etc/s", "target", "../x"), "tried to make /etc/s a symbolic link to ../x", []string{"/etc/s"}},
		{rec("op", "mkdir", "syscall", "mkdirat", "path", "/etc/d"), "tried to make the directory /etc/d", []string{"/etc/d"}},
		{rec("op", "mknod", "syscall", "mknodat", "path", "/etc/p"), "tried to make the node /etc/p", []string{"/etc/p"}},
		{rec("op", "truncate", "syscall", "truncate", "path", "/etc/t"), "tried to truncate /etc/t", []string{"/etc/t"}},
	} {
		assert.Equal(t, c.words, tried(p, c.rec))
		assert.Equal(t, c.touched, touched(c.rec), c.words)
	}
	assert.Nil(t, touched(rec("op", "exec", "path", "/bin/sh")), "an exec touches nothing")
	assert.Nil(t, touched(rec("op", "signal", "target", "1")), "nor does a signal")
}

func TestSampleOneOfEachShapeFirst(t *testing.T) {
	tool := func(name, schema string) packs.Tool {
		return packs.Tool{Name: name, InputSchema: json.RawMessage(schema)}
	}
	ts := []packs.Tool{tool("a1", `{"a":1}`), tool("a2", `{"a":1}`), tool("a3", `{"a":1}`), tool("b", `{"b":1}`), tool("c", `{"c":1}`)}
	kept, left := sample(ts, 4)
	var names []string
	for _, t := range kept {
		names = append(names, t.Name)
	}
	if strings.Join(names, ",") != "a1,a2,b,c" || strings.Join(left, ",") != "a3" {
		t.Errorf("sample = %v, left %v; want a1,a2,b,c (listing order, every shape) and a3 left", names, left)
	}
	if kept, left := sample(ts, 5); len(kept) != 5 || left != nil {
		t.Errorf("sample under the limit = %d kept, %v left; want all kept", len(kept), left)
	}
}
