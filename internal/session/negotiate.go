package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// Negotiation says how a start's handshake found the server's era, beyond
// what the Init holds.
type Negotiation struct {
	// DiscoverUnanswered: server/discover got no answer within the bound
	// (DiscoverBound, at most half the start), and the legacy handshake
	// went out beside it.
	DiscoverUnanswered bool
	// BothEras: server/discover was answered with a DiscoverResult after
	// the legacy initialize had gone out, and initialize was not refused:
	// a dual-era server may have settled into the legacy protocol on this
	// connection although it answered discover. The session is not used:
	// the caller starts the server afresh and calls InitializeAs(EraModern).
	BothEras bool
	// Waited is how long server/discover was awaited alone.
	Waited time.Duration
}

// ErrBothEras is the error of a start whose server answered both eras'
// handshakes on one connection (Negotiation.BothEras).
var ErrBothEras = errors.New("the server answered server/discover with a DiscoverResult after the legacy initialize had gone out: both eras on one connection")

// answer is one request's outcome.
type answer struct {
	resp *packs.Response
	err  error
}

// initAnswer is the legacy handshake's outcome.
type initAnswer struct {
	in  packs.Init
	err error
}

// discoverBound is how long a start awaits server/discover alone:
// DiscoverBound, at most half the time left before ctx's deadline.
func discoverBound(ctx context.Context) time.Duration {
	wait := DiscoverBound
	if dl, ok := ctx.Deadline(); ok {
		if half := time.Until(dl) / 2; half < wait {
			wait = half
		}
	}
	return max(wait, 0)
}

// negotiate finds the server's era and completes its handshake. It sends
// server/discover with a modern _meta and nothing else until it is
// answered or discoverBound passes: a modern answer ends it there (set is
// called with ModernVersion), any other answer starts the legacy handshake
// with version. With no answer within the bound, the legacy initialize
// goes out beside the discover still pending: a legacy result with no
// discover answer within DiscoverGrace after it is a legacy server that
// ignores discover; a DiscoverResult after the initialize went out is a
// server that may now be in either era (ErrBothEras), unless initialize
// was refused (a modern-only server).
func negotiate(ctx context.Context, s requester, set func(version string), version string) (packs.Init, Negotiation, error) {
	var neg Negotiation
	dctx, dcancel := context.WithCancel(ctx)
	defer dcancel()
	disc := make(chan answer, 1)
	go func() {
		resp, err := s.Request(dctx, "server/discover", discoverParams())
		disc <- answer{resp, err}
	}()
	began := time.Now()
	timer := time.NewTimer(discoverBound(ctx))
	defer timer.Stop()
	select {
	case a := <-disc:
		neg.Waited = time.Since(began)
		if a.err == nil && classify(a.resp) {
			set(ModernVersion)
			return modernInit(a.resp), neg, nil
		}
		if a.err != nil && (errors.Is(a.err, packs.ErrClosed) || ctx.Err() != nil) {
			return packs.Init{Requested: ModernVersion}, neg, fmt.Errorf("server/discover: %w", a.err)
		}
		in, err := initialize(ctx, s, version)
		return in, neg, err
	case <-timer.C:
	case <-ctx.Done():
		return packs.Init{Requested: ModernVersion}, neg, fmt.Errorf("server/discover: %w", ctx.Err())
	}
	neg.Waited = time.Since(began)
	neg.DiscoverUnanswered = true

	// No answer within the bound: the legacy handshake goes out beside the
	// discover still pending.
	ictx, icancel := context.WithCancel(ctx)
	defer icancel()
	legacy := make(chan initAnswer, 1)
	go func() {
		in, err := initialize(ictx, s, version)
		legacy <- initAnswer{in, err}
	}()
	var got *initAnswer
	for {
		select {
		case a := <-disc:
			if a.err != nil || !classify(a.resp) {
				// A legacy answer to discover: the initialize decides.
				disc = nil
				if got != nil {
					return got.in, neg, got.err
				}
				continue
			}
			neg.DiscoverUnanswered = false
			if got == nil {
				got = awaitInit(ctx, legacy)
			}
			if got != nil && got.err != nil {
				// initialize refused or failed: a modern-only server, in
				// the modern era on this connection.
				icancel()
				set(ModernVersion)
				return modernInit(a.resp), neg, nil
			}
			neg.BothEras = true
			return modernInit(a.resp), neg, ErrBothEras
		case l := <-legacy:
			legacy = nil
			got = &l
			if disc == nil {
				return l.in, neg, l.err
			}
			if l.err != nil {
				continue // a modern discover answer may still come, within the start
			}
			grace := time.NewTimer(DiscoverGrace)
			select {
			case a := <-disc:
				grace.Stop()
				if a.err == nil && classify(a.resp) {
					neg.DiscoverUnanswered = false
					neg.BothEras = true
					return modernInit(a.resp), neg, ErrBothEras
				}
			case <-grace.C:
			case <-ctx.Done():
				grace.Stop()
			}
			return l.in, neg, nil
		case <-ctx.Done():
			if got != nil {
				return got.in, neg, got.err
			}
			return packs.Init{Requested: version}, neg, fmt.Errorf("server/discover and initialize: %w", ctx.Err())
		}
	}
}

// awaitInit waits up to DiscoverGrace for the legacy handshake's outcome;
// nil when it has none yet.
func awaitInit(ctx context.Context, legacy <-chan initAnswer) *initAnswer {
	t := time.NewTimer(DiscoverGrace)
	defer t.Stop()
	select {
	case l := <-legacy:
		return &l
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// initializeAs completes the handshake of an era already known (a fresh
// start after ErrBothEras, or a later start of a server whose era an
// earlier start found): modern sends server/discover alone and awaits its
// answer within ctx; legacy sends the legacy initialize alone.
func initializeAs(ctx context.Context, s requester, set func(version string), era, version string) (packs.Init, error) {
	if era != EraModern {
		return initialize(ctx, s, version)
	}
	resp, err := s.Request(ctx, "server/discover", discoverParams())
	if err != nil {
		return packs.Init{Requested: ModernVersion}, fmt.Errorf("server/discover: %w", err)
	}
	if !classify(resp) {
		return packs.Init{Requested: ModernVersion}, fmt.Errorf("server/discover: on a fresh start the server answered %s, not a DiscoverResult", resp.Brief())
	}
	set(ModernVersion)
	return modernInit(resp), nil
}
