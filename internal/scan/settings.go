package scan

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/hostpath"
	"github.com/sealmark/sealmark/internal/redact"
)

// plan is one entry made ready to run: the settings of its file layer,
// the secrets to mask, what scan changed and what makes the run CUSTOM.
type plan struct {
	entry    Entry
	launcher string
	file     *config.Settings
	secrets  []string
	notes    []string        // for the report's warnings: paths replaced or kept, staged or withheld, inputs
	staged   []engine.Staged // host files copied into the sandbox
	withheld []string        // files named in args or env that were not staged, and why
	custom   []string
}

// makePlan turns an entry into settings: the launcher's package is
// fetched (npx), host paths in the server's arguments and env are replaced
// with sandbox paths unless asConfigured, and the env and header values
// become secrets to mask.
func makePlan(ctx context.Context, e Entry, o *Options) (*plan, error) {
	defaults := config.Defaults() // the entry is the file layer: what it does not set stays the default
	p := &plan{entry: e, launcher: Direct, file: &defaults}
	for _, kv := range append(append([]config.KV(nil), e.Env...), e.Headers...) {
		if secretValue(kv) {
			p.secrets = append(p.secrets, kv.Value)
		}
	}
	if e.Disabled {
		p.notes = append(p.notes, "scan: the client has this server disabled; it was scanned all the same")
	}
	for _, in := range e.Inputs {
		p.notes = append(p.notes, fmt.Sprintf("scan: ${input:%s} is a VS Code input sealmark cannot ask for; it was passed as written", in))
	}
	if e.Type != "stdio" {
		p.launcher = e.Type
		p.file.URL = e.URL
		p.file.Headers = e.Headers
		return p, nil
	}
	l, err := parseLaunch(e.Command, e.Args)
	if err != nil {
		return p, err
	}
	p.launcher = l.kind
	p.file.Env = append([]config.KV(nil), e.Env...)
	args := append([]string(nil), l.args...)
	for i := range args {
		args[i] = editorVars(args[i], o)
	}
	for i := range p.file.Env {
		p.file.Env[i].Value = editorVars(p.file.Env[i].Value, o)
	}
	p.replacePaths(args, p.file.Env, o)
	switch l.kind {
	case Direct:
		p.file.Command, p.file.Args = e.Command, args
	case NPX:
		l.args = args
		began := time.Now()
		o.step(e.Name, "fetching "+l.pkg)
		cmd, full, fetched, err := o.Fetcher.npm(ctx, l)
		if err != nil {
			return p, err
		}
		p.file.Command, p.file.Args = cmd, full
		p.notes = append(p.notes, fetchNote(l, fetched, began))
	case UVX, Pipx:
		l.args = args
		began := time.Now()
		o.step(e.Name, "fetching "+l.pkg)
		program, fetched, err := o.Fetcher.python(ctx, l)
		if err != nil {
			return p, err
		}
		p.file.Command, p.file.Args = program, l.args
		p.notes = append(p.notes, fetchNote(l, fetched, began))
	case Docker:
		return p, fmt.Errorf("docker entry: Docker runs the server in its own container, outside Sealmark's sandbox and observers; point the entry at the server's program instead")
	}
	return p, nil
}

// editorVars expands the editors' ${workspaceFolder} (the directory scan
// runs in) and ${userHome}, so the paths they make are found and replaced
// like any other; ${env:NAME} and ${input:ID} stay as written.
func editorVars(s string, o *Options) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return strings.NewReplacer("${workspaceFolder}", o.Cwd, "${userHome}", o.Home).Replace(s)
}

// fetchNote says how the launcher's package came: fetched before the
// contained start, or already there.
func fetchNote(l launch, fetched bool, began time.Time) string {
	if !fetched {
		return fmt.Sprintf("scan: %s: %s was already fetched (a pinned version); the registry was not asked", l.kind, l.pkg)
	}
	return fmt.Sprintf("scan: %s: %s fetched before the contained start, in %s", l.kind, l.pkg, time.Since(began).Round(100*time.Millisecond))
}

// secretValue reports whether a client config's env or header value is a
// credential, by the one rule of package redact (redact.SecretEnv: a
// secret-looking name or a token-shaped value). A placeholder, VS Code's
// ${input:ID} included, is none.
func secretValue(kv config.KV) bool {
	return !inputRef.MatchString(kv.Value) && redact.SecretEnv(kv.Name, kv.Value)
}

// replacePaths replaces each host path among the server's arguments and
// env values with a sandbox path, as sealmark init --yes does, stages what
// it names (see stage) and notes each; asConfigured keeps them, noted, and
// makes the run CUSTOM. A path is what hostpath.Find sees, or the value of
// a path flag (--config x) or a path variable (CONFIG_PATH=x): never a
// bare word.
func (p *plan) replacePaths(args []string, env []config.KV, o *Options) {
	offered := map[string]string{}
	taken := map[string]bool{}
	var kept []string
	one := func(where string, slot *string, named bool) {
		prefix, path, _, ok := hostpath.Find(*slot, o.Cwd)
		if !ok && named {
			path, _, ok = hostpath.FindNamed(*slot, o.Cwd)
			prefix = ""
		}
		if !ok {
			return
		}
		if o.AsConfigured {
			kept = append(kept, where)
			p.notes = append(p.notes, fmt.Sprintf("scan: %s is a path on this machine, kept as configured (--as-configured); valid calls may read or write it", where))
			return
		}
		offer, seen := offered[path]
		if !seen {
			offer = hostpath.Offer(path, o.Cwd, taken)
			offered[path] = offer
		}
		p.notes = append(p.notes, fmt.Sprintf("scan: %s: the path %s on this machine was replaced with %s", where, path, offer))
		*slot = prefix + offer
		if !seen {
			p.stage(path, offer, o)
		}
	}
	for i := range args {
		one(fmt.Sprintf("args[%d]", i), &args[i], i > 0 && hostpath.PathFlag(args[i-1]))
	}
	for i := range env {
		one("env "+env[i].Name, &env[i].Value, hostpath.PathEnv(env[i].Name))
	}
	if len(kept) > 0 {
		p.custom = append(p.custom, "scan --as-configured: the server got host paths ("+strings.Join(kept, ", ")+")")
	}
}
