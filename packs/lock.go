package packs

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sealmark/sealmark/internal/pin"
)

// Lock pins the surface's tool list, every text passed through redact
// first (nil: none), so that the lock holds no secret and no path of the
// run that read it. sealmark pin writes it (the engine's Lock); core's
// tool-pin compares it with the run's lock (Pass.Lock).
func (s *Surface) Lock(redact func(string) string) pin.Lock {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	red := func(raw json.RawMessage) json.RawMessage {
		if len(raw) == 0 {
			return nil
		}
		return json.RawMessage(redact(string(raw)))
	}
	defs := make([]pin.Definition, 0, len(s.Tools))
	for _, t := range s.Tools {
		defs = append(defs, pin.Definition{
			Name: redact(t.Name), Description: redact(t.Description),
			InputSchema: red(t.InputSchema), Annotations: red(t.rawAnnotations()),
		})
	}
	return pin.New(pin.Server{Name: redact(s.Init.Server.Name), Version: redact(s.Init.Server.Version)}, defs, time.Now())
}

// rawAnnotations is the tool's annotations as the server sent them (every
// key, not only the hints Sealmark reads), or nil when it sent none.
func (t Tool) rawAnnotations() json.RawMessage {
	if len(t.Raw) > 0 {
		var raw struct {
			Annotations json.RawMessage `json:"annotations"`
		}
		if err := json.Unmarshal(t.Raw, &raw); err == nil {
			return raw.Annotations
		}
	}
	a := t.Annotations
	if a.Title == "" && a.ReadOnlyHint == nil && a.DestructiveHint == nil {
		return nil
	}
	b, err := json.Marshal(a)
	if err != nil {
		panic(fmt.Sprintf("packs: annotations: %v", err)) // a struct of strings and bools
	}
	return b
}
