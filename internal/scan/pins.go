package scan

import (
	"errors"
	"fmt"
	"os"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/internal/report"
)

// Pinned is what a pinning scan (Options.Pin) did for one server.
type Pinned struct {
	// Path is the server's lock file (pin.FileFor of Options.LockDir).
	Path string
	// Tools is how many tools the lock holds; Changes how they differ
	// from the lock the file held before (none for a new file).
	Tools   int
	Changes []pin.Change
	// New is set when no lock existed before.
	New bool
	// Err says why no lock was written ("" when one was).
	Err string
}

// useLock gives the run of server name its lock from Options.LockDir, or
// readies a pinning run: core's start and tool-pin alone, since only the
// tool list is needed. Without LockDir it changes nothing.
func (o *Options) useLock(cfg *engine.Config, name string) error {
	if o.LockDir == "" {
		return nil
	}
	if o.Pin {
		cfg.Packs, cfg.OnlyProbes, cfg.SkipProbes = []string{"core"}, []string{"core/tool-pin"}, nil
		cfg.Own, cfg.Baseline, cfg.Lock = nil, nil, nil
		return nil
	}
	l, err := pin.Read(pin.FileFor(o.LockDir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil // tool-pin is not applicable, saying so
	}
	if err != nil {
		return fmt.Errorf("--lock-dir: %v", err)
	}
	cfg.Lock = l
	return nil
}

// writeLock writes the lock of a pinning run's server.
func (o *Options) writeLock(eng *engine.Engine, rep *report.Report, name string) *Pinned {
	p := &Pinned{Path: pin.FileFor(o.LockDir, name)}
	if rep.HarnessError != "" {
		p.Err = "the server's tool list could not be read: " + rep.HarnessError
		return p
	}
	lock, err := eng.Lock()
	if err != nil {
		p.Err = err.Error()
		return p
	}
	old, err := pin.Read(p.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		p.New = true
	case err == nil:
		p.Changes = pin.Compare(*old, lock)
	}
	if err := lock.Write(p.Path); err != nil {
		p.Err = err.Error()
		return p
	}
	p.Tools = len(lock.Tools)
	return p
}
