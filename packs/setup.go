package packs

import "context"

// Setup is what a pack's set-up gets: Pack.Prepare once per run when the
// engine is built (the registering methods below), and Pack.Starts when
// the pack's turn comes (Ctx, Vars and Hints).
type Setup struct {
	Ctx context.Context
	// Vars are the run's placeholder values (sandbox, cwd, port, ...);
	// nil in Prepare, which runs before the sandbox is made.
	Vars map[string]string
	// Hints are the hints the user gave this pack (hints.<pack> in
	// sealmark.yaml, Config.Hints), nil when none.
	Hints map[string]any
	// HintsAt says where a hints key came from, to prefix its errors
	// ("sealmark.yaml:7: hints.fs.peek"); nil names the key alone.
	HintsAt func(key string) string
	// Settings are the run's configuration values a pack reads by their
	// sealmark.yaml key ("db.admin_dsn"); a missing key is unset.
	Settings map[string]string
	// Mentions reports whether the server's configuration (its
	// arguments, environment, staged files, URL or start line) names a
	// placeholder ("{sqlite}"); nil in Starts.
	Mentions func(placeholder string) bool

	// What Prepare registered, for the engine (Prepared).
	use     *Pack
	open    []func(*Opened) error
	surface []func(*Surface) error
	close   []func()
}

// Use makes the run use pk in place of the catalogue's pack of the same
// name (a pack made from its hints or settings).
func (s *Setup) Use(pk Pack) { s.use = &pk }

// OnOpen registers a step run once the sandbox is made (or, without one,
// the throwaway working directory), before server.files are staged and
// the observers start: it stages the pack's files, defines its
// placeholders and declares its secrets and services. Its error stops
// the run before anything starts (the harness could not run).
func (s *Setup) OnOpen(f func(o *Opened) error) { s.open = append(s.open, f) }

// OnSurface registers a check of the first start's surface (when its
// tools were listed): its error fails that start, naming why (a hinted
// tool the server does not list).
func (s *Setup) OnSurface(f func(sf *Surface) error) { s.surface = append(s.surface, f) }

// OnClose registers what undoes the pack's set-up once the run is over
// (drops a database); it runs on every exit path.
func (s *Setup) OnClose(f func()) { s.close = append(s.close, f) }

// Opened is what an OnOpen step may do to the run it readies.
type Opened struct {
	Ctx context.Context
	// Sandbox is the sandbox's directories; nil when the run has none
	// (--no-sandbox).
	Sandbox *Sandbox
	// Define gives a placeholder ("sqlite", without braces) its value
	// for every start.
	Define func(name, value string)
	// Stable shows value as name ("{sqlite}") in every output.
	Stable func(value, name string)
	// Secret masks value as mask ("<redacted>") in every output.
	Secret func(value, mask string)
	// Service declares a service the contained server may reach
	// ("tcp:127.0.0.1:5432"), unless the configuration did.
	Service func(spec string)
	// Warn adds a warning to the report.
	Warn func(msg string)
	// View registers a change to the sandbox as every probe sees it
	// (Pass.Sandbox), made each time the view is built.
	View func(f func(v *Sandbox))
}

// Prepared is what a pack's Prepare registered (the engine's side of
// Setup).
type Prepared struct {
	// Pack is the run's form of the pack: Setup.Use's, or the pack as
	// given.
	Pack    Pack
	Open    []func(*Opened) error
	Surface []func(*Surface) error
	Close   []func()
}

// SetUp runs pk's set-up hook (Pack.Prepare) with s and returns what it
// registered; a pack without one is returned as it is.
func (pk Pack) SetUp(s *Setup) (Prepared, error) {
	out := Prepared{Pack: pk}
	if pk.Prepare == nil {
		return out, nil
	}
	if err := pk.Prepare(s); err != nil {
		return out, err
	}
	if s.use != nil {
		out.Pack = *s.use
	}
	out.Open, out.Surface, out.Close = s.open, s.surface, s.close
	return out, nil
}
