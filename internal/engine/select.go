package engine

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

// probeMatches reports whether one of globs (path.Match patterns) matches
// the probe's pack/name, its name or its ID.
func probeMatches(globs []string, pack, name, id string) bool {
	for _, g := range globs {
		for _, s := range []string{pack + "/" + name, name, id} {
			if ok, _ := path.Match(g, s); ok {
				return true
			}
		}
	}
	return false
}

// selects reports whether the probe runs under OnlyProbes and SkipProbes.
func (c *Config) selects(pack, name, id string) bool {
	return (len(c.OnlyProbes) == 0 || probeMatches(c.OnlyProbes, pack, name, id)) &&
		!probeMatches(c.SkipProbes, pack, name, id)
}

// selected narrows the packs to the probes the selection keeps, Probes
// and Restarted, dropping a pack none of whose probes it keeps.
func (c *Config) selected(pks []packs.Pack) []packs.Pack {
	if len(c.OnlyProbes) == 0 && len(c.SkipProbes) == 0 {
		return pks
	}
	var out []packs.Pack
	for _, pk := range pks {
		drop := func(p packs.Probe) bool { return !c.selects(pk.Name, p.Name, p.ID) }
		pk.Probes = slices.DeleteFunc(slices.Clone(pk.Probes), drop)
		pk.Restarted = slices.DeleteFunc(slices.Clone(pk.Restarted), drop)
		if probeTotal(pk) > 0 {
			out = append(out, pk)
		}
	}
	return out
}

// probeTotal is how many probes one start of pk runs: its Probes and its
// Restarted ones.
func probeTotal(pk packs.Pack) int { return len(pk.Probes) + len(pk.Restarted) }

// checkSelection refuses a --probes or --skip-probes pattern that matches
// no probe of the catalog, naming the nearest probe.
func (c *Config) checkSelection() error {
	var known []string
	probes := map[string][3]string{}
	for _, pk := range c.catalog() {
		for _, p := range slices.Concat(pk.Probes, pk.Restarted) {
			known = append(known, pk.Name+"/"+p.Name)
			probes[pk.Name+"/"+p.Name] = [3]string{pk.Name, p.Name, p.ID}
		}
	}
	var errs []string
	for _, set := range []struct {
		flag  string
		globs []string
	}{{"--probes", c.OnlyProbes}, {"--skip-probes", c.SkipProbes}} {
		for _, g := range set.globs {
			hit := false
			for _, p := range probes {
				hit = hit || probeMatches([]string{g}, p[0], p[1], p[2])
			}
			if !hit {
				errs = append(errs, fmt.Sprintf("%s %q matches no probe%s (a glob over pack/name, name or ID; sealmark list shows them)", set.flag, g, config.DidYouMean(g, known)))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// probeCount is how many probes the run's packs hold after the probe
// selection, and before it (Restarted ones counted too).
func (e *Engine) probeCount() (n, all int) {
	c := e.cfg
	sel := c.OnlyProbes != nil || c.SkipProbes != nil
	c.OnlyProbes, c.SkipProbes = nil, nil
	count := func(pks []packs.Pack) int {
		k := 0
		for _, pk := range pks {
			k += probeTotal(pk)
		}
		return k
	}
	full := e.cfg.Packs
	var pks []packs.Pack
	for _, pk := range c.catalog() {
		if len(full) == 0 || slices.Contains(full, pk.Name) {
			pks = append(pks, pk)
		}
	}
	all = count(pks)
	if !sel {
		return all, all
	}
	return count(e.cfg.selected(pks)), all
}

// Listed is one probe of the catalog, with its pack.
type Listed struct {
	Pack string
	packs.Probe
}

// Catalog lists the probes of the packs of cat named in only (every pack
// when empty), in run order, a pack's Restarted probes after its others
// (core's drift check last of core's): what sealmark list shows and
// --probes selects from.
func Catalog(cat []packs.Pack, only []string) ([]Listed, error) {
	var out []Listed
	seen := map[string]bool{}
	for _, pk := range cat {
		seen[pk.Name] = true
		if len(only) > 0 && !slices.Contains(only, pk.Name) {
			continue
		}
		for _, p := range slices.Concat(pk.Probes, pk.Restarted) {
			out = append(out, Listed{Pack: pk.Name, Probe: p})
		}
	}
	for _, name := range only {
		if !seen[name] {
			return nil, fmt.Errorf("unknown pack %q (known: %s)", name, packNames(cat))
		}
	}
	return out, nil
}

// cannotApply says why probe cannot apply to this start's server by
// construction (Probe.Requires): an HTTP check on a stdio server, a
// modern-era rule on a legacy one; "" when it may apply, or when it is an
// active probe of a passive run (runProbe says so).
func (pr *packRun) cannotApply(probe packs.Probe) string {
	if probe.Active && !pr.e.cfg.Active || pr.surface == nil {
		return ""
	}
	if probe.Requires&packs.RequiresHTTP != 0 && pr.httpTarget() == nil {
		return "an HTTP transport check; this server speaks stdio"
	}
	if v := pr.surface.Init.Version; probe.Requires&packs.RequiresModern != 0 && v < packs.ModernVersion {
		return fmt.Sprintf("a rule of the modern era (%s); this server speaks the legacy protocol %s", packs.ModernVersion, v)
	}
	return ""
}

// notApplicable records probe as not applicable for why, without running
// it, as runProbe would have.
func (pr *packRun) notApplicable(probe packs.Probe, why string) report.Probe {
	res := report.Probe{ID: probe.ID, Name: probe.Name, Doc: probe.Doc, Severity: probe.Severity, CWE: probe.CWE,
		Verdict: packs.NotApplicable, Reason: why}
	pr.e.record(pr.idx, pr.pack.Name, res)
	return res
}

// Planned is the number of probe results one start of the pack called
// name reports in this run: its probes the selection keeps, Restarted ones
// too (core's drift check); 0 when the run has no such pack. A pack
// started once per role reports that many per start.
func (e *Engine) Planned(name string) int {
	for _, pk := range e.Packs() {
		if pk.Name != name {
			continue
		}
		return probeTotal(pk)
	}
	return 0
}
