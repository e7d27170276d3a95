package engine

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/packs"
)

// prepare checks every pack of the catalogue (Pack.Check) and runs its
// set-up hook (Pack.Prepare), keeping what each registered: the run's
// form of the pack, its open, surface and close steps. Its error is a
// usage error.
func (c *Config) prepare() error {
	if len(c.Catalog) == 0 {
		return errors.New("no packs to choose from: Config.Catalog is empty (catalogue.All is every pack Sealmark ships)")
	}
	prepared := make([]packs.Prepared, 0, len(c.Catalog))
	for _, pk := range c.Catalog {
		if errs := pk.Check(); len(errs) > 0 {
			return errors.Join(errs...)
		}
		p, err := pk.SetUp(&packs.Setup{
			Ctx: context.Background(), Hints: c.Hints[pk.Name], HintsAt: c.HintsAt,
			Settings: c.settings(), Mentions: c.mentions,
		})
		if err != nil {
			return err
		}
		prepared = append(prepared, p)
	}
	c.prepared = prepared
	return nil
}

// settings are the configuration values a pack's set-up may read, by
// their sealmark.yaml key.
func (c *Config) settings() map[string]string {
	return map[string]string{"db.admin_dsn": c.DBAdminDSN}
}

// catalog is the packs the run may choose from, in the form their set-up
// gave them once Validate ran.
func (c *Config) catalog() []packs.Pack {
	if c.prepared == nil {
		return c.Catalog
	}
	out := make([]packs.Pack, len(c.prepared))
	for i, p := range c.prepared {
		out[i] = p.Pack
	}
	return out
}

// mentions reports whether the server's configuration names the
// placeholder: its arguments, environment, staged files, URL or start line.
func (c *Config) mentions(placeholder string) bool {
	texts := append([]string{c.URL, c.Start}, c.Args...)
	for _, kv := range c.Env {
		texts = append(texts, kv.Value)
	}
	for _, f := range c.Files {
		texts = append(texts, f.Path, f.Content)
	}
	for _, t := range texts {
		if strings.Contains(t, placeholder) {
			return true
		}
	}
	return false
}

// openPacks runs every pack's open steps (Setup.OnOpen), once the sandbox
// (or the throwaway working directory) is made and before server.files
// are staged.
func (e *Engine) openPacks() error {
	o := &packs.Opened{
		Ctx:     context.Background(),
		Sandbox: e.sandboxView(),
		Define:  func(name, value string) { e.vars[name] = value },
		Stable:  func(value, name string) { e.redactor.Stable(value, name) },
		Secret:  func(value, mask string) { e.redactor.Secret(value, mask) },
		Service: func(spec string) {
			// declared here unless the configuration did
			if svc, err := contain.ParseService(spec); err == nil && !slices.Contains(e.cfg.Services, svc.String()) {
				e.cfg.Services = append(slices.Clone(e.cfg.Services), svc.String())
			}
		},
		Warn: e.warn,
		View: func(f func(*packs.Sandbox)) { e.views = append(e.views, f) },
	}
	for _, p := range e.cfg.prepared {
		for _, step := range p.Open {
			if err := step(o); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSurface runs every pack's checks of the first start's surface
// (Setup.OnSurface); the first error fails that start.
func (e *Engine) checkSurface(s *packs.Surface) error {
	for _, p := range e.cfg.prepared {
		for _, check := range p.Surface {
			if err := check(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// closePacks undoes every pack's set-up (Setup.OnClose), last first.
func (e *Engine) closePacks() {
	for _, p := range slices.Backward(e.cfg.prepared) {
		for _, f := range slices.Backward(p.Close) {
			f()
		}
	}
}
