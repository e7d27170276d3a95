package redact_test

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/redact"
)

func Example() {
	r := redact.New()
	r.Secret("sm-canary-0123456789abcdef", redact.MaskCanary)
	r.Stable("/tmp/sealmark-81237", "{sandbox_top}")
	r.Stable("/tmp/sealmark-81237/root", "{sandbox}")
	fmt.Println(r.String("read /tmp/sealmark-81237/root/ok.txt: sm-canary-0123456789abcdef"))

	msg := struct{ Text string }{"left /tmp/sealmark-81237/canary"}
	r.Apply(&msg)
	fmt.Println(msg.Text)
	// Output:
	// read {sandbox}/ok.txt: <canary>
	// left {sandbox_top}/canary
}

func ExampleURL() {
	fmt.Println(redact.URL("https://alice:hunter2@mcp.example.test/mcp"))
	// Output: https://mcp.example.test/mcp
}

func ExampleHeader() {
	fmt.Println(redact.Header("Authorization", "Bearer sk-123"))
	fmt.Println(redact.EnvValue("MEMORY_FILE_PATH", "{sandbox}/memory.json", false))
	// Output:
	// header:Authorization <redacted>
	// {sandbox}/memory.json
}
