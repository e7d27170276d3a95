package launch

import (
	"errors"
	"os"
	"sync"
)

// ErrStdinClosed is returned by writes after the server's stdin was closed.
var ErrStdinClosed = errors.New("launch: the server's stdin is closed")

// stdin is the one writer to the server's stdin. Every Write goes out whole
// under one lock, so an SDK frame and a raw probe never interleave. Close does
// not take that lock: it unblocks a Write stuck on a server that never reads.
type stdin struct {
	mu        sync.Mutex // held for a whole Write
	f         *os.File
	closeOnce sync.Once
	closeErr  error
}

func (s *stdin) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.f.Write(b)
	if errors.Is(err, os.ErrClosed) {
		err = ErrStdinClosed
	}
	return n, err
}

func (s *stdin) Close() error {
	s.closeOnce.Do(func() { s.closeErr = s.f.Close() })
	return s.closeErr
}
