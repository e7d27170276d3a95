package environ_test

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/environ"
)

func ExampleExpand() {
	vars := map[string]string{"sandbox": "/tmp/sealmark-0123456789abcdef/root"}
	arg, _ := environ.Expand("--root={sandbox}", vars)
	fmt.Println(arg)
	json, _ := environ.Expand(`{"depth":1}`, vars) // not a placeholder: left alone
	fmt.Println(json)
	_, err := environ.Expand("{sandbox_hom}/cache", vars)
	fmt.Println(err)
	// Output:
	// --root=/tmp/sealmark-0123456789abcdef/root
	// {"depth":1}
	// unknown placeholder {sandbox_hom} (known: {sandbox})
}

func ExamplePathWarnings() {
	args := []string{"-y", "@modelcontextprotocol/server-memory", "{sandbox}/data"}
	env := []environ.KV{{Name: "MEMORY_FILE_PATH", Value: "/home/me/memory.json"}}
	for _, w := range environ.PathWarnings(args, env, "/tmp/sealmark-0123456789abcdef") {
		fmt.Println(w)
	}
	// Output:
	// server.env MEMORY_FILE_PATH points at a real path on this machine; valid calls may read or write it
}
