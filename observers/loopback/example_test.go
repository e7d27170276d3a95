package loopback_test

import (
	"fmt"
	"io"
	"net/http"

	"github.com/sealmark/sealmark/observers/loopback"
)

func ExampleListen() {
	l, err := loopback.Listen()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Close()

	l.Begin("smtok-ab12")
	// Here a probe would ask the server under test to fetch this URL.
	client := &http.Client{Transport: &http.Transport{Proxy: nil}} // loopback, never a proxy
	resp, err := client.Get(l.URL() + "/smtok-ab12/x")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Printf("answer: %q\n", body)

	for _, r := range l.Collect("smtok-ab12") {
		fmt.Println(r.Kind, r.Data["method"], r.Data["target"], r.Token, "by", r.Data["attributed"])
	}
	// Output:
	// answer: "sealmark loopback listener\n"
	// connection GET /smtok-ab12/x smtok-ab12 by token
}
