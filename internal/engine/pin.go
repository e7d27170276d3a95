package engine

import (
	"errors"
	"fmt"
	"os"

	"github.com/sealmark/sealmark/internal/pin"
)

// Lock is the lock of the tool list the run's first start read (what
// sealmark pin writes), redacted like every output: no secret and no path
// of this run is in it. Its error says why there is none: no start read
// the tool list, or it was read only in part (a partial list pinned would
// report the rest as added on every later run).
func (e *Engine) Lock() (pin.Lock, error) {
	e.mu.Lock()
	s := e.surface
	e.mu.Unlock()
	switch {
	case s == nil:
		return pin.Lock{}, errors.New("the server's tool list was never read: no start succeeded")
	case s.ToolsError != "":
		return pin.Lock{}, fmt.Errorf("the server's tool list was not read completely: %s", e.redactor.String(s.ToolsError))
	}
	return s.Lock(e.redactor.String), nil
}

// DefaultLock is the lock a run reads when none is named (lock:, --lock):
// pin.DefaultFile beside the config file (in the working directory when
// there is none), "" when that file does not exist. Front ends set
// Settings.Lock to it before FromSettings.
func DefaultLock(configPath string) string {
	path := pin.Beside(configPath)
	if _, err := os.Stat(path); err != nil {
		return ""
	}
	return path
}
