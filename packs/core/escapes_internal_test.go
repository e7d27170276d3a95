package core

import (
	"testing"

	"github.com/sealmark/sealmark/observers"
)

// TestEscapeAttempt: which refused socket records are attempts to get out.
func TestEscapeAttempt(t *testing.T) {
	rec := func(family, addr, port, verdict string) observers.Record {
		return observers.Record{Kind: observers.KindSocket, Observer: "egress", Data: map[string]string{
			observers.KeyOp: "connect", observers.KeyFamily: family, observers.KeyAddr: addr, observers.KeyPort: port, observers.KeyVerdict: verdict}}
	}
	for _, tc := range []struct {
		r    observers.Record
		want string
	}{
		{rec("unix", "/run/docker.sock", "", "deny"), "connect to the unix socket /run/docker.sock outside its sandbox"},
		{rec("unix", "@dbus-host", "", "deny"), "connect to the abstract unix socket @dbus-host of the host's network namespace"},
		{rec("inet", "192.0.2.1", "443", "deny"), ""},    // the network: effects/network's
		{rec("inet6", "2001:db8::1", "80", "deny"), ""},  // (an API client, telemetry)
		{rec("inet", "10.255.255.53", "53", "deny"), ""}, // a name lookup
		{rec("inet", "127.0.0.1", "9999", "deny"), ""},   // an undeclared loopback service
		{rec("inet6", "::1", "9999", "deny"), ""},
		{rec("unix", "/run/docker.sock", "", "allow"), ""},
		{rec("inet", "192.0.2.1", "443", "allow"), ""},
	} {
		got, ok := escapeAttempt(tc.r)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%v: got %q, %v; want %q", tc.r.Data, got, ok, tc.want)
		}
	}
}
