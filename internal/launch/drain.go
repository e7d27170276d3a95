package launch

import (
	"os"
	"sync"
	"sync/atomic"
)

// pipeReader reads the harness's end of one of the server's output pipes
// so that Drained can tell when everything the server has written to it
// is in the harness's records. Its reader holds mu from the moment a read
// returns bytes until it asks for more, so what it does with them before
// its next Read (the log copy, the framer's frames) happens under mu; a
// Drained that gets mu finds the reader waiting for bytes, and an empty
// pipe then means nothing written is still on its way. One goroutine
// reads; Drained may be called from any.
type pipeReader struct {
	f    *os.File
	mu   sync.Mutex
	held bool        // the reader holds mu (only the reader touches it)
	done atomic.Bool // the reader is finished: it saw the pipe's end
}

func newPipeReader(f *os.File) *pipeReader { return &pipeReader{f: f} }

// release gives mu back when the reader holds it: before each read, and
// once the reader is finished.
func (r *pipeReader) release() {
	if r.held {
		r.held = false
		r.mu.Unlock()
	}
}

// finish marks the reader finished, after it has taken in its last bytes.
func (r *pipeReader) finish() {
	r.done.Store(true)
	r.release()
}

// Drained reports whether every byte written to the pipe so far has been
// taken in by its reader: the reader is finished, or it is waiting for
// bytes and the pipe holds none. False while the reader is busy with bytes
// it read, and where the pipe cannot be asked (drainedPipe). It never
// blocks.
func (r *pipeReader) Drained() bool {
	if r.done.Load() {
		return true
	}
	if !r.mu.TryLock() {
		return false
	}
	defer r.mu.Unlock()
	return r.done.Load() || emptyPipe(r.f)
}
