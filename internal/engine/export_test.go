package engine

import (
	"context"

	"github.com/sealmark/sealmark/packs"
)

// Open makes e's sandbox and placeholders, as a run's first step does
// (hostile_test drives one start by itself).
func Open(e *Engine) error { return e.open() }

// StartPack starts the server for pk once, as the run's first start, and
// returns what stops it (nil when nothing started).
func StartPack(ctx context.Context, e *Engine, pk packs.Pack) (interface{ Close() }, error) {
	pr, err := e.startPack(ctx, pk, packs.Start{}, -1)
	if pr == nil {
		return nil, err
	}
	return pr, err
}

// SetCredentialHomes makes a run of c hide the credential stores of homes
// (a fake home the test made) instead of the harness user's.
func SetCredentialHomes(c *Config, homes []string) { c.credentialHomes = homes }
