package slowtest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/sealmark/sealmark/internal/slowtest"
)

// A test's bound on a hang, grown on a busy machine.
func ExampleScale() {
	ctx, cancel := context.WithTimeout(context.Background(), slowtest.Scale(10*time.Second))
	defer cancel()
	deadline, _ := ctx.Deadline()
	fmt.Println(time.Until(deadline) >= 9*time.Second)
	// Output: true
}
