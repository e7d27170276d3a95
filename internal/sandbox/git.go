package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// The identity and date of every commit in a sandbox, so the same content
// gives the same commit hash in every run.
const (
	gitName  = "Sealmark"
	gitEmail = "sealmark@example.invalid"
	gitDate  = "2025-01-01T00:00:00Z"
)

// gitTimeout bounds every git command.
const gitTimeout = 10 * time.Second

// maxGitOutput bounds what is kept of a git command's output.
const maxGitOutput = 8 << 10

// git runs the real git binary with an environment built from scratch.
type git struct {
	path string          // absolute path of git
	home string          // HOME for git: the sandbox home, so no user config is read
	ctx  context.Context // ends when New is stopped by a signal; nil for none
}

// findGit returns a runner for the git in PATH.
func findGit(home string) (git, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return git{}, err
	}
	if p, err = filepath.Abs(p); err != nil {
		return git{}, err
	}
	return git{path: p, home: home}, nil
}

// env is git's whole environment: no system or global configuration, fixed
// identities and dates, no prompts, no pager.
func (g git) env() []string {
	env := []string{
		"PATH=" + filepath.Dir(g.path),
		"HOME=" + g.home,
		"LANG=C",
		"LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"GIT_AUTHOR_NAME=" + gitName,
		"GIT_AUTHOR_EMAIL=" + gitEmail,
		"GIT_AUTHOR_DATE=" + gitDate,
		"GIT_COMMITTER_NAME=" + gitName,
		"GIT_COMMITTER_EMAIL=" + gitEmail,
		"GIT_COMMITTER_DATE=" + gitDate,
	}
	if runtime.GOOS == "windows" {
		for _, name := range []string{"SYSTEMROOT", "SYSTEMDRIVE", "WINDIR"} {
			if v, ok := os.LookupEnv(name); ok {
				env = append(env, name+"="+v)
			}
		}
	}
	return env
}

// run runs git with args in dir, with a deadline, and returns its output.
func (g git) run(dir string, args ...string) (string, error) {
	parent := g.ctx
	if parent == nil {
		parent = context.Background()
	}
	ctx, cancel := context.WithTimeout(parent, gitTimeout)
	defer cancel()
	full := append([]string{
		"-c", "core.autocrlf=false",
		"-c", "core.fsmonitor=false",
		"-c", "commit.gpgsign=false",
	}, args...)
	cmd := exec.CommandContext(ctx, g.path, full...)
	cmd.Dir = dir
	cmd.Env = g.env()
	cmd.WaitDelay = time.Second
	out := &capped{max: maxGitOutput}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		switch {
		case parent.Err() != nil:
			err = fmt.Errorf("stopped, the run is ending: %w", err)
		case ctx.Err() != nil:
			err = fmt.Errorf("%w after %v", ctx.Err(), gitTimeout)
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out.buf.Bytes()))
	}
	return out.buf.String(), nil
}

// repoFile is one file committed to a repository.
type repoFile struct{ name, content string }

// makeRepo makes dir a git repository on branch main holding files in one
// commit with message, and returns the commit hash.
func (g git) makeRepo(dir string, files []repoFile, message string) (string, error) {
	if err := mkdir(dir); err != nil {
		return "", err
	}
	if _, err := g.run(dir, "init", "-q", "-b", "main", "--template=", "."); err != nil {
		return "", err
	}
	add := []string{"add", "--"}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.content); err != nil {
			return "", err
		}
		add = append(add, f.name)
	}
	if _, err := g.run(dir, add...); err != nil {
		return "", err
	}
	if _, err := g.run(dir, "commit", "-q", "-m", message); err != nil {
		return "", err
	}
	head, err := g.run(dir, "rev-parse", "HEAD")
	return strings.TrimSpace(head), err
}

// canaryRepoFile is the canary repository's one file.
const canaryRepoFile = "token.txt"

// The git pack's repository, root/repo: fixed content, so its hash repeats.
var (
	repoFiles = []repoFile{
		{"README.md", "# Sealmark git fixture\n\nA repository for the git pack.\n"},
		{"notes.txt", "first note\n"},
	}
	repoStaged = repoFile{"README.md", "# Sealmark git fixture\n\nA repository for the git pack.\n\nA staged change.\n"}
)

// makeRepos makes canary/repo and, when gitRepo, root/repo and the rest of
// the git pack's layout (GitLayout). Without git, or
// when git fails, they are left out and a note says why.
func (s *Sandbox) makeRepos(gitRepo bool) {
	g, err := findGit(s.Home)
	g.ctx = s.ctx
	if err != nil {
		s.note("canary/repo: not made: git not found: %v", err)
		if gitRepo {
			s.note("root/repo: not made: git not found: %v", err)
		}
		return
	}
	secret := newSecret()
	dir := filepath.Join(s.Canary, "repo")
	if _, err := g.makeRepo(dir, []repoFile{{canaryRepoFile, secret}}, "sealmark canary "+secret); err != nil {
		s.note("canary/repo: not made: %v", err)
		_ = removeTree(dir)
	} else {
		s.CanaryRepo, s.CanaryRepoSecret = dir, secret
	}
	if gitRepo {
		s.makeGitRepos(g)
	}
}

// StageGit makes root/repo and the rest of the git pack's layout in a
// sandbox made without Options.GitRepo: a run that learns from its first
// start that the git pack applies stages them just before the git pack's
// start, and other runs never pay for them. The layout is the one New
// makes with Options.GitRepo (fixed content, dates and identities, so the
// same commit hashes); what cannot be made becomes a note, as in New. It
// returns the notes it added, and does nothing when the layout was made.
func (s *Sandbox) StageGit() []string {
	if s.Repo != "" || s.gitTried {
		return nil
	}
	s.gitTried = true
	n := len(s.Notes)
	g, err := findGit(s.Home)
	g.ctx = s.ctx
	if err != nil {
		s.note("root/repo: not made: git not found: %v", err)
	} else {
		s.makeGitRepos(g)
	}
	return append([]string(nil), s.Notes[n:]...)
}

// makeGitRepos makes root/repo and the rest of the git pack's layout.
func (s *Sandbox) makeGitRepos(g git) {
	s.gitTried = true
	dir := filepath.Join(s.Root, "repo")
	if err := s.makeWorkRepo(g, dir); err != nil {
		s.note("root/repo: not made: %v", err)
		_ = removeTree(dir)
		return
	}
	s.Repo = dir
	s.makeGitLayout(g)
}

// makeWorkRepo makes root/repo: one commit, a staged change to a tracked
// file, and an untracked link canary-link -> ../../canary/repo.
func (s *Sandbox) makeWorkRepo(g git, dir string) error {
	if _, err := g.makeRepo(dir, repoFiles, "initial commit"); err != nil {
		return err
	}
	p := filepath.Join(dir, repoStaged.name)
	if err := os.WriteFile(p, []byte(repoStaged.content), 0o600); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if _, err := g.run(dir, "add", "--", repoStaged.name); err != nil {
		return err
	}
	target := filepath.Join("..", "..", "canary", "repo")
	if s.CanaryRepo == "" {
		s.note("root/repo/canary-link: not made: there is no canary repository")
		return nil
	}
	if err := os.Symlink(target, filepath.Join(dir, "canary-link")); err != nil {
		s.note("root/repo/canary-link: no link to %s: %v", target, err)
	}
	return nil
}

// capped keeps the first max bytes written to it and discards the rest.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
