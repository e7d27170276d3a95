package launch

import "sync/atomic"

// Cut is a stdout line that ran past Spec.MaxMessage: the framer stopped
// holding it, so it never reaches Messages, and the request it answers
// would otherwise wait out its whole timeout for an answer that already
// came.
type Cut struct {
	// Head is the line's first 4 KiB (less when the line is shorter), from
	// which a JSON-RPC answer's id can usually be read.
	Head []byte
	// Limit is the MaxMessage the line ran past, in bytes.
	Limit int
	// Depth is set, to MaxDepth, when the line was within Limit but nests
	// deeper than MaxDepth: refused by the decoder, not cut.
	Depth int
}

// cutHandler holds the function OnCut set, read by the framer's goroutine.
type cutHandler struct{ fn atomic.Pointer[func(Cut)] }

func (h *cutHandler) get() func(Cut) {
	if h == nil {
		return nil
	}
	if p := h.fn.Load(); p != nil {
		return *p
	}
	return nil
}

// OnCut sets fn to be called once for each stdout line that runs past
// Spec.MaxMessage, as soon as it does: before the line ends, so a line
// that never ends is told too. fn runs on the goroutine that reads
// stdout, which waits for it: it must return promptly. A line cut before
// OnCut is called is not told; nil stops the calls.
func (p *Process) OnCut(fn func(Cut)) {
	if fn == nil {
		p.onCut.fn.Store(nil)
		return
	}
	p.onCut.fn.Store(&fn)
}
