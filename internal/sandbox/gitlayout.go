package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// GitLayout is the rest of the git pack's layout, made with
// Options.GitRepo next to root/repo. Every path is absolute; a path is ""
// when it could not be made (Notes says why).
type GitLayout struct {
	// EvilRepo is root-evil/repo, the prefix sibling's repository: one
	// commit of token.txt holding EvilRepoSecret (also in the message),
	// and an untracked file whose name carries it.
	EvilRepo       string
	EvilRepoSecret string
	// LinkRepo is root/link-repo -> ../canary/repo.
	LinkRepo string
	// Remote is canary/remote.git, a bare clone of canary/repo.
	Remote string
	// Hostile is root/hostile, a repository whose own configuration,
	// hooks and attributes run sm-canary: see HostileMarker.
	Hostile string
}

// HostileMarker starts the one argument sm-canary gets from root/hostile;
// the rest names what ran it: "core.fsmonitor", "core.sshCommand",
// "core.pager", "filter.sealmark.clean", "filter.sealmark.smudge" or
// "hooks/<name>".
const HostileMarker = packs.HostileMarker

// hostileConfig is what root/hostile/.git/config sets, each to run
// sm-canary with the marker naming the key.
var hostileConfig = []string{"core.fsmonitor", "core.sshCommand", "core.pager", "filter.sealmark.clean", "filter.sealmark.smudge"}

// hostileHooks are the hooks root/hostile carries.
var hostileHooks = []string{"post-checkout", "pre-commit", "post-commit", "pre-push", "post-merge", "pre-rebase", "reference-transaction"}

// untrackedPrefix names the untracked file of canary/repo and
// root-evil/repo, followed by the repository's secret, so even a status
// tool shows a canary when it reaches them.
const untrackedPrefix = "untracked-"

// makeGitLayout makes the git pack's repositories next to root/repo:
// root-evil/repo, root/link-repo, canary/remote.git and root/hostile, and
// root/repo's untracked file. Each one that fails becomes a note.
func (s *Sandbox) makeGitLayout(g git) {
	if err := writeFile(filepath.Join(s.Repo, "untracked.txt"), "an untracked file\n"); err != nil {
		s.note("root/repo/untracked.txt: not made: %v", err)
	}
	if s.CanaryRepo != "" {
		if err := writeFile(filepath.Join(s.CanaryRepo, untrackedPrefix+s.CanaryRepoSecret), s.CanaryRepoSecret+"\n"); err != nil {
			s.note("canary/repo: no untracked file: %v", err)
		}
		s.Git.LinkRepo = s.link(filepath.Join("..", "canary", "repo"), filepath.Join(s.Root, "link-repo"))
		remote := filepath.Join(s.Canary, "remote.git")
		if _, err := g.run(s.Canary, "clone", "-q", "--bare", "--no-hardlinks", "--template=", "repo", "remote.git"); err != nil {
			s.note("canary/remote.git: not made: %v", err)
			_ = removeTree(remote)
		} else {
			s.Git.Remote = remote
		}
	}
	secret := newSecret()
	evil := filepath.Join(s.RootEvil, "repo")
	if _, err := g.makeRepo(evil, []repoFile{{canaryRepoFile, secret}}, "sealmark canary "+secret); err != nil {
		s.note("root-evil/repo: not made: %v", err)
		_ = removeTree(evil)
	} else if err := writeFile(filepath.Join(evil, untrackedPrefix+secret), secret+"\n"); err != nil {
		s.note("root-evil/repo: not made: %v", err)
		_ = removeTree(evil)
	} else {
		s.Git.EvilRepo, s.Git.EvilRepoSecret = evil, secret
	}
	hostile := filepath.Join(s.Root, "hostile")
	if err := s.makeHostile(g, hostile); err != nil {
		s.note("root/hostile: not made: %v", err)
		_ = removeTree(hostile)
	} else {
		s.Git.Hostile = hostile
	}
}

// makeHostile makes a repository whose .git/config, hooks and
// .gitattributes each run sm-canary HostileMarker<what> when git honours
// them: filtered.txt is committed under a filter and then changed, so a
// status or diff runs the clean filter; core.fsmonitor runs on status and
// diff; the hooks run on checkout, commit, merge, rebase and push.
func (s *Sandbox) makeHostile(g git, dir string) error {
	files := []repoFile{
		{".gitattributes", "filtered.txt filter=sealmark\n"},
		{"filtered.txt", "committed\n"},
		{"README.md", "# A repository that configures programs\n"},
	}
	head, err := g.makeRepo(dir, files, "hostile repository")
	if err != nil {
		return err
	}
	// Written directly rather than with git branch and git config: each
	// git command costs milliseconds on every run that stages the layout.
	if err := writeFile(filepath.Join(dir, ".git", "refs", "heads", "other"), head+"\n"); err != nil {
		return err
	}
	var cfg strings.Builder
	for _, key := range hostileConfig {
		section, name, _ := strings.Cut(key, ".")
		if sub, n, ok := strings.Cut(name, "."); ok {
			section, name = section+` "`+sub+`"`, n
		}
		fmt.Fprintf(&cfg, "[%s]\n\t%s = sm-canary %s%s\n", section, name, HostileMarker, key)
	}
	if err := appendFile(filepath.Join(dir, ".git", "config"), cfg.String()); err != nil {
		return err
	}
	hooks := filepath.Join(dir, ".git", "hooks")
	if err := mkdir(hooks); err != nil {
		return err
	}
	for _, h := range hostileHooks {
		script := fmt.Sprintf("#!/bin/sh\nsm-canary %shooks/%s\n", HostileMarker, h)
		if err := writeFile(filepath.Join(hooks, h), script); err != nil {
			return err
		}
		if err := os.Chmod(filepath.Join(hooks, h), 0o700); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	return os.WriteFile(filepath.Join(dir, "filtered.txt"), []byte("changed in the working tree\n"), 0o600)
}

// appendFile appends text to an existing file.
func appendFile(p, text string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	_, werr := f.WriteString(text)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("sandbox: append to %s: %w", p, werr)
	}
	return nil
}

// gitLines writes the guide lines of the git layout inside the root and
// root-evil.
func (s *Sandbox) gitLines(line func(path, what string, args ...any)) {
	if s.Git.LinkRepo != "" {
		line("root/link-repo", "symlink -> ../canary/repo: a git tool that follows it reads the canary repository")
	}
	if s.Git.Hostile != "" {
		line("root/hostile/", "git repository whose .git/config (core.fsmonitor, core.pager, core.sshCommand, filter.sealmark), hooks and .gitattributes run sm-canary %s<what>", HostileMarker)
	}
	if s.Git.EvilRepo != "" {
		line("root-evil/repo/", "git repository in the prefix sibling: one commit of %s holding %s (also in the message and an untracked file's name)", canaryRepoFile, s.Git.EvilRepoSecret)
	}
}
