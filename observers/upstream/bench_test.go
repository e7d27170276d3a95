package upstream_test

import (
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/sealmark/sealmark/observers/upstream"
)

// BenchmarkUpstreamPerProbe measures one probe's use of the stub: Begin, one
// request carrying the token and a credential, Collect.
func BenchmarkUpstreamPerProbe(b *testing.B) {
	stub, err := upstream.Start(upstream.Options{Host: "127.0.0.1"})
	if err != nil {
		b.Fatal(err)
	}
	defer stub.Close()
	client := &http.Client{Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	i := 0
	for b.Loop() {
		i++
		tok := "smtok-" + strconv.Itoa(i)
		stub.Begin(tok)
		req, _ := http.NewRequest("GET", stub.URL()+"/v1/"+tok+"?page=2", nil)
		req.Header.Set("Authorization", "Bearer sk-fake")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if rs := stub.Collect(tok); len(rs) != 1 || rs[0].Data["attributed"] != "token" {
			b.Fatalf("Collect(%s) = %v, want one record attributed by token", tok, rs)
		}
	}
}
