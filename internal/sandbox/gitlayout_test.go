package sandbox

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
)

func TestGitLayout(t *testing.T) {
	needGit(t)
	start := time.Now()
	newSandbox(t, Options{})
	plain := time.Since(start)
	start = time.Now()
	s := newSandbox(t, Options{GitRepo: true})
	t.Logf("a sandbox in %v, with the git layout in %v", plain, time.Since(start))
	if len(s.Notes) > 0 {
		t.Fatalf("notes: %q", s.Notes)
	}
	if got := gitOut(t, s.Git.EvilRepo, "log", "--format=%s"); got != "sealmark canary "+s.Git.EvilRepoSecret {
		t.Errorf("root-evil/repo log = %q, want one commit naming its secret", got)
	}
	if got := gitOut(t, s.Git.EvilRepo, "status", "--porcelain"); got != "?? "+untrackedPrefix+s.Git.EvilRepoSecret {
		t.Errorf("root-evil/repo status = %q, want its untracked file named with the secret", got)
	}
	if got := gitOut(t, s.CanaryRepo, "status", "--porcelain"); got != "?? "+untrackedPrefix+s.CanaryRepoSecret {
		t.Errorf("canary/repo status = %q, want its untracked file named with the secret", got)
	}
	if resolved, _ := filepath.EvalSymlinks(s.Git.LinkRepo); s.Git.LinkRepo != filepath.Join(s.Root, "link-repo") || resolved != s.CanaryRepo {
		t.Errorf("LinkRepo %q resolves to %q, want root/link-repo -> %s", s.Git.LinkRepo, resolved, s.CanaryRepo)
	}
	if got := gitOut(t, s.Git.Remote, "log", "--format=%s"); got != "sealmark canary "+s.CanaryRepoSecret {
		t.Errorf("canary/remote.git log = %q, want the canary commit", got)
	}
	if got := gitOut(t, s.Git.Remote, "rev-parse", "--is-bare-repository"); got != "true" {
		t.Errorf("canary/remote.git is bare = %q, want true", got)
	}
	if !slices.Contains(s.Secrets(), s.Git.EvilRepoSecret) {
		t.Errorf("Secrets() %q lacks root-evil/repo's", s.Secrets())
	}
	head := gitOut(t, s.Git.Hostile, "rev-parse", "HEAD")
	if again := newSandbox(t, Options{GitRepo: true}); gitOut(t, again.Git.Hostile, "rev-parse", "HEAD") != head {
		t.Errorf("root/hostile HEAD differs between sandboxes")
	}
}

// TestHostileRepoRunsCanary proves that plain git, as a server would run
// it in root/hostile, runs sm-canary through what the repository
// configures, each with the marker naming the mechanism.
func TestHostileRepoRunsCanary(t *testing.T) {
	needGit(t)
	s := newSandbox(t, Options{GitRepo: true})
	gitPath, _ := exec.LookPath("git")
	run := func(args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, gitPath, args...)
		cmd.Dir = s.Git.Hostile
		cmd.Env = []string{"PATH=" + s.Bin + ":" + filepath.Dir(gitPath) + ":/usr/bin:/bin", "HOME=" + s.Home, "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=x", "GIT_AUTHOR_EMAIL=x@x", "GIT_COMMITTER_NAME=x", "GIT_COMMITTER_EMAIL=x@x"}
		_ = cmd.Run() // the canaries' output confuses git; what ran is in the exec log
	}
	run("status")
	run("diff")
	run("checkout", "-q", "other")
	execs, _, err := smbin.ReadExecLog(s.Bin)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, e := range execs {
		for _, a := range e.Argv {
			if what, ok := strings.CutPrefix(a, HostileMarker); ok {
				ran[what] = true
			}
		}
	}
	for _, want := range []string{"core.fsmonitor", "filter.sealmark.clean", "hooks/post-checkout"} {
		if !ran[want] {
			t.Errorf("git status, diff and checkout in root/hostile did not run sm-canary through %s (ran %v)", want, ran)
		}
	}
	if _, err := os.Stat(filepath.Join(s.Git.Hostile, ".git", "hooks", "post-checkout")); err != nil {
		t.Error(err)
	}
}

// TestStageGitLater proves a sandbox made without the git layout gets the
// same layout from StageGit (the same commit hashes as New with GitRepo),
// once: a second StageGit does nothing.
func TestStageGitLater(t *testing.T) {
	needGit(t)
	eager := newSandbox(t, Options{GitRepo: true})
	s := newSandbox(t, Options{})
	if s.Repo != "" || s.Git.Hostile != "" || s.Git.EvilRepo != "" {
		t.Fatalf("a sandbox without GitRepo has the git layout: repo %q, hostile %q, evil %q", s.Repo, s.Git.Hostile, s.Git.EvilRepo)
	}
	if _, err := os.Lstat(filepath.Join(s.Root, "repo")); !os.IsNotExist(err) {
		t.Fatalf("root/repo exists before StageGit: %v", err)
	}
	if notes := s.StageGit(); len(notes) > 0 {
		t.Fatalf("StageGit notes: %q", notes)
	}
	for _, dir := range []string{"repo", "hostile"} {
		if got, want := gitOut(t, filepath.Join(s.Root, dir), "rev-parse", "HEAD"), gitOut(t, filepath.Join(eager.Root, dir), "rev-parse", "HEAD"); got != want {
			t.Errorf("root/%s HEAD %s after StageGit, want %s as New with GitRepo makes it", dir, got, want)
		}
	}
	if got := gitOut(t, s.Repo, "status", "--porcelain"); got != gitOut(t, eager.Repo, "status", "--porcelain") {
		t.Errorf("root/repo status %q after StageGit, want what New with GitRepo makes", got)
	}
	if s.Git.Remote == "" || s.Git.LinkRepo == "" || s.Git.EvilRepoSecret == "" || !slices.Contains(s.Secrets(), s.Git.EvilRepoSecret) {
		t.Errorf("StageGit left out part of the layout: %+v", s.Git)
	}
	repo := s.Repo
	if notes := s.StageGit(); notes != nil || s.Repo != repo {
		t.Errorf("a second StageGit = %q, repo %q; want nothing done", notes, s.Repo)
	}
}
