package loopback_test

import (
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/sealmark/sealmark/observers/loopback"
)

// BenchmarkLoopbackPerProbe measures one probe's use of the listener: Begin,
// one HTTP request carrying the token, Collect.
func BenchmarkLoopbackPerProbe(b *testing.B) {
	l, err := loopback.Listen()
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	i := 0
	for b.Loop() {
		i++
		tok := "smtok-" + strconv.Itoa(i)
		l.Begin(tok)
		resp, err := client.Get(l.URL() + "/" + tok)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if rs := l.Collect(tok); len(rs) != 1 || rs[0].Data["attributed"] != "token" {
			b.Fatalf("Collect(%s) = %v, want one record attributed by token", tok, rs)
		}
	}
}
