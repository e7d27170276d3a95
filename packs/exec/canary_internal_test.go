package exec

import (
	"encoding/json"
	"testing"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// seen is a fixed set of observations.
type seen []observers.Record

func (s seen) Probe() []observers.Record     { return s }
func (s seen) Pack() []observers.Record      { return s }
func (s seen) Survivors() []observers.Record { return nil }

func execRecord(observer string, argv ...string) observers.Record {
	b, _ := json.Marshal(argv)
	return observers.Record{Kind: observers.KindProcess, Observer: observer, Data: map[string]string{observers.KeyOp: "exec", observers.KeyArgv: string(b)}}
}

// missing marks an exec record as the egress observer marks an exec of a
// path where there is no file to run (one miss of a PATH search).
func missing(r observers.Record) observers.Record {
	r.Data["found"] = "false"
	return r
}

// TestCanaryRanByItsExec: the egress observer's record of the server
// executing sm-canary itself with the form's marker proves the injection
// when sm-canary was killed before it logged or printed (a loaded
// machine, the call's timeout); the shell line that merely holds the
// marker in one argument, sm-canary with another form's marker, or an
// exec of a path where no sm-canary is (nothing ran), does not.
func TestCanaryRanByItsExec(t *testing.T) {
	const tok = "smtok-0123456789abcdef"
	for _, c := range []struct {
		name string
		recs seen
		want bool
	}{
		{"sm-canary executed with the marker", seen{execRecord("egress", "sm-canary", tok+"-semicolon")}, true},
		{"by its path", seen{execRecord("egress", "/tmp/sb/bin/sm-canary", tok+"-semicolon")}, true},
		{"the marker inside the shell's one argument", seen{execRecord("egress", "/bin/sh", "-c", "echo x; sm-canary "+tok+"-semicolon")}, false},
		{"echo given the whole line", seen{execRecord("egress", "echo", "x; sm-canary "+tok+"-semicolon")}, false},
		{"another form's marker", seen{execRecord("egress", "sm-canary", tok+"-pipe")}, false},
		{"tried where there is no such file", seen{missing(execRecord("egress", "/usr/local/bin/sm-canary", tok+"-semicolon"))}, false},
		{"nothing executed", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &run{p: &packs.Pass{Token: tok, Observed: c.recs}}
			ev, ok := r.canaryRan(nil, "semicolon")
			if ok != c.want {
				t.Fatalf("canaryRan = %v (%v), want %v", ok, ev, c.want)
			}
			if ok && (len(ev) != 1 || ev[0].Observer != "egress") {
				t.Errorf("evidence %v, want the egress record", ev)
			}
		})
	}
}
