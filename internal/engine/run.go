package engine

import (
	"runtime"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

var goos = runtime.GOOS

// sandboxView is the sandbox as probes see it.
func (e *Engine) sandboxView() *packs.Sandbox {
	if e.sb == nil {
		return nil
	}
	v := &packs.Sandbox{Top: e.sb.Top, Root: e.sb.Root, RootEvil: e.sb.RootEvil, Canary: e.sb.Canary, Home: e.sb.Home, Tmp: e.sb.Tmp, Bin: e.sb.Bin, OKToken: e.sb.OKToken}
	e.mu.Lock()
	v.Limits = e.limits
	e.mu.Unlock()
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
	for _, f := range e.views {
		f(v)
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
