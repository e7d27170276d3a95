package process

import "time"

// sampler is the goroutine that samples the tree while a probe is open.
type sampler struct {
	stop chan struct{}
	done chan struct{}
}

func newSampler() *sampler {
	return &sampler{stop: make(chan struct{}), done: make(chan struct{})}
}

// halt stops the sampler and waits for its goroutine, which is at most one
// sample away. A nil sampler is a no-op. o.mu must not be held.
func (s *sampler) halt() {
	if s == nil {
		return
	}
	close(s.stop)
	<-s.done
}

// run samples every Interval until s is stopped or no longer o's sampler.
func (o *Observer) run(s *sampler) {
	defer close(s.done)
	t := time.NewTicker(o.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		o.mu.Lock()
		if o.closed || o.sampler != s {
			o.mu.Unlock()
			return
		}
		o.sample(false)
		o.mu.Unlock()
	}
}

// closeProbe closes the open probe and stops sampling.
func (o *Observer) closeProbe() {
	o.mu.Lock()
	s := o.sampler
	o.sampler, o.token = nil, ""
	o.mu.Unlock()
	s.halt()
}
