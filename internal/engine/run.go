package engine

import (
	"context"
	"errors"
	"runtime"
	"strings"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/packs"
)

var goos = runtime.GOOS

// Hooks let a front end follow a run (progress lines, for instance).
type Hooks struct {
	Pack  func(name string)
	Probe func(pack string, res report.Probe)
}

// Run runs every selected pack, each on its own start, and returns the
// finalized report. The sandbox is gone when it returns (unless kept).
func (e *Engine) Run(ctx context.Context, h Hooks) *report.Report {
	defer e.Close()
	if err := e.Open(); err != nil {
		return e.Close()
	}
	for _, pk := range e.Packs() {
		if ctx.Err() != nil {
			e.harnessError(errors.New("the run was interrupted"))
			break
		}
		if h.Pack != nil {
			h.Pack(pk.Name)
		}
		pr, err := e.StartPack(ctx, pk)
		if err != nil {
			var se *StartError
			if errors.As(err, &se) && e.surface == nil {
				break // the first start failed: nothing else can run
			}
			continue
		}
		if ok, why := pr.Applies(); !ok {
			pr.NotApplicable(why) // its start still checks for drift
		}
		for _, probe := range pr.Probes() {
			if ctx.Err() != nil {
				break
			}
			res := pr.RunProbe(ctx, probe)
			if h.Probe != nil {
				h.Probe(pk.Name, res)
			}
		}
		pr.Close()
	}
	return e.Close()
}

// sandboxView is the sandbox as probes see it.
func (e *Engine) sandboxView() *packs.Sandbox {
	if e.sb == nil {
		return nil
	}
	v := &packs.Sandbox{Top: e.sb.Top, Root: e.sb.Root, RootEvil: e.sb.RootEvil, Canary: e.sb.Canary, Home: e.sb.Home, Tmp: e.sb.Tmp, Bin: e.sb.Bin, OKToken: e.sb.OKToken}
	for _, f := range e.sb.Files {
		v.Files = append(v.Files, packs.Secret{Name: f.Name, Value: f.Secret})
	}
	if e.sb.Repo != "" {
		v.Git = &packs.GitSandbox{Repo: e.sb.Repo, Hostile: e.sb.Git.Hostile}
		if e.sb.CanaryRepoSecret != "" {
			v.Git.Repos = append(v.Git.Repos, packs.Secret{Name: "canary/repo", Value: e.sb.CanaryRepoSecret})
		}
		if e.sb.Git.EvilRepoSecret != "" {
			v.Git.Repos = append(v.Git.Repos, packs.Secret{Name: "root-evil/repo", Value: e.sb.Git.EvilRepoSecret})
		}
	}
	return v
}

// lookupPATH is the PATH of a built environment.
func lookupPATH(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			return v
		}
	}
	return ""
}
