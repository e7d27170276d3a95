package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitOut runs git in dir for a test and returns its trimmed output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	g, err := findGit(t.TempDir())
	if err != nil {
		t.Skipf("git not found: %v", err)
	}
	out, err := g.run(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

// repoHead is the commit of root/repo. It is the same in every run, on
// every machine, because its content, identities and dates are fixed.
const repoHead = "140de44d6938539c410ebaa22523642649eb9b17"

func TestRepoCommitsRepeat(t *testing.T) {
	needGit(t)
	g, _ := findGit(t.TempDir())
	files := []repoFile{{"a.txt", "same content\n"}, {"b.txt", "more\n"}}
	first, err := g.makeRepo(filepath.Join(t.TempDir(), "one"), files, "msg")
	if err != nil {
		t.Fatal(err)
	}
	second, err := g.makeRepo(filepath.Join(t.TempDir(), "two"), files, "msg")
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 40 || first != second {
		t.Errorf("two repositories with the same content: HEAD %q and %q, want the same 40-hex hash", first, second)
	}
	other, err := g.makeRepo(filepath.Join(t.TempDir(), "three"), []repoFile{{"a.txt", "other content\n"}}, "msg")
	if err != nil {
		t.Fatal(err)
	}
	if other == first {
		t.Errorf("different content gave the same HEAD %s", other)
	}
}

func TestRepoIgnoresTheCallersGitConfig(t *testing.T) {
	needGit(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Mallory\n[commit]\n\tgpgsign = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GIT_AUTHOR_NAME", "Mallory")
	t.Setenv("GIT_DIR", filepath.Join(home, "elsewhere"))
	s := newSandbox(t, Options{})
	if s.CanaryRepo == "" {
		t.Fatalf("canary repository not made: %q", s.Notes)
	}
	if got := gitOut(t, s.CanaryRepo, "log", "-1", "--format=%an <%ae> %cn <%ce>"); got != "Sealmark <sealmark@example.invalid> Sealmark <sealmark@example.invalid>" {
		t.Errorf("commit identity = %q, want the fixed Sealmark identity", got)
	}
}

func TestCanaryRepo(t *testing.T) {
	needGit(t)
	s := newSandbox(t, Options{})
	if want := filepath.Join(s.Canary, "repo"); s.CanaryRepo != want {
		t.Fatalf("CanaryRepo = %q, want %s (notes %q)", s.CanaryRepo, want, s.Notes)
	}
	if !secretRE.MatchString(s.CanaryRepoSecret) {
		t.Errorf("CanaryRepoSecret = %q, want sm-secret-<24 hex>", s.CanaryRepoSecret)
	}
	if got := gitOut(t, s.CanaryRepo, "show", "HEAD:"+canaryRepoFile); got != s.CanaryRepoSecret {
		t.Errorf("committed %s = %q, want the secret", canaryRepoFile, got)
	}
	if got := gitOut(t, s.CanaryRepo, "log", "--format=%s"); got != "sealmark canary "+s.CanaryRepoSecret {
		t.Errorf("log = %q, want one commit naming the secret", got)
	}
	if got := gitOut(t, s.CanaryRepo, "status", "--porcelain"); got != "" {
		t.Errorf("canary repository status = %q, want clean", got)
	}
	if got := gitOut(t, s.CanaryRepo, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Errorf("branch = %q, want refs/heads/main", got)
	}
	if _, err := os.Stat(filepath.Join(s.CanaryRepo, ".git", "hooks")); !os.IsNotExist(err) {
		t.Errorf(".git/hooks exists (%v), want no templates copied", err)
	}
}

func TestWorkRepo(t *testing.T) {
	needGit(t)
	s := newSandbox(t, Options{GitRepo: true})
	if want := filepath.Join(s.Root, "repo"); s.Repo != want {
		t.Fatalf("Repo = %q, want %s (notes %q)", s.Repo, want, s.Notes)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"log", "--format=%s|%aI|%cI"}, "initial commit|2025-01-01T00:00:00+00:00|2025-01-01T00:00:00+00:00"},
		{[]string{"status", "--porcelain"}, "M  README.md\n?? canary-link\n?? untracked.txt"},
		{[]string{"diff", "--cached", "--name-only"}, "README.md"},
		{[]string{"diff", "--name-only"}, ""},
		{[]string{"symbolic-ref", "HEAD"}, "refs/heads/main"},
		{[]string{"ls-files"}, "README.md\nnotes.txt"},
	}
	for _, tt := range tests {
		if got := gitOut(t, s.Repo, tt.args...); got != tt.want {
			t.Errorf("git %s = %q, want %q", strings.Join(tt.args, " "), got, tt.want)
		}
	}
	link := filepath.Join(s.Repo, "canary-link")
	if got, err := os.Readlink(link); err != nil || got != filepath.Join("..", "..", "canary", "repo") {
		t.Errorf("canary-link -> %q (%v), want ../../canary/repo", got, err)
	}
	if resolved, _ := filepath.EvalSymlinks(link); resolved != s.CanaryRepo {
		t.Errorf("canary-link resolves to %s, want the canary repository %s", resolved, s.CanaryRepo)
	}

	head := gitOut(t, s.Repo, "rev-parse", "HEAD")
	again := newSandbox(t, Options{GitRepo: true})
	if got := gitOut(t, again.Repo, "rev-parse", "HEAD"); got != head {
		t.Errorf("root/repo HEAD differs between sandboxes: %s and %s", head, got)
	}
	if head != repoHead {
		t.Errorf("root/repo HEAD = %s, want %s in every run", head, repoHead)
	}
}

func TestCapped(t *testing.T) {
	c := &capped{max: 5}
	for _, s := range []string{"abc", "defg", "hij"} {
		if n, err := c.Write([]byte(s)); n != len(s) || err != nil {
			t.Errorf("Write(%q) = %d, %v; want all accepted", s, n, err)
		}
	}
	if got := c.buf.String(); got != "abcde" {
		t.Errorf("kept %q, want the first 5 bytes", got)
	}
}
