package serverlog_test

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/serverlog"
)

func ExampleLog() {
	log := serverlog.New(24)
	fmt.Fprintln(log, "starting server")
	fmt.Fprintln(log, "listening on stdio")
	fmt.Printf("%q lost=%d\n", log.Tail(100), log.Lost())
	// Output: "listening on stdio\n" lost=11
}
