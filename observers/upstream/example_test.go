package upstream_test

import (
	"fmt"
	"net/http"

	"github.com/sealmark/sealmark/observers/upstream"
)

func ExampleStart() {
	stub, err := upstream.Start(upstream.Options{Host: "api.example.test"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stub.Close()

	stub.Begin("smtok-cd34")
	// Here the server under test would call its upstream, stub.URL(),
	// sending its API key under a host it was not configured with.
	req, _ := http.NewRequest("GET", stub.URL()+"/v1/items?api_key=sk-fake&page=2", nil)
	req.Host = "evil.test"
	client := &http.Client{Transport: &http.Transport{Proxy: nil}} // loopback, never a proxy
	resp, err := client.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()

	for _, r := range stub.Collect("smtok-cd34") {
		fmt.Println(r.Data["path"])
		fmt.Println(r.Data["credentials"], "under", r.Data["credential_host"], "mismatch:", r.Data["host_mismatch"])
	}
	for _, c := range stub.Credentials("smtok-cd34") {
		fmt.Println(c.Where, c.Value == "sk-fake")
	}
	// Output:
	// /v1/items?api_key=<redacted>&page=2
	// query:api_key under evil.test mismatch: true
	// query:api_key true
}
