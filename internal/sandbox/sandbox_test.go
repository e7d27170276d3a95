package sandbox

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
)

// newSandbox makes a sandbox under a test temp dir and removes it at the end.
func newSandbox(t *testing.T, opts Options) *Sandbox {
	t.Helper()
	if opts.Parent == "" {
		opts.Parent = t.TempDir()
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Remove(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// needGit skips the test when git is not installed.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := findGit(t.TempDir()); err != nil {
		t.Skipf("git not found: %v", err)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	topName  = regexp.MustCompile(`^sealmark-[0-9a-f]{16}$`)
	okToken  = regexp.MustCompile(`^sm-ok-[0-9a-f]{16}$`)
	secretRE = regexp.MustCompile(`^sm-secret-[0-9a-f]{24}$`)
)

func TestNewLayout(t *testing.T) {
	needGit(t)
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Options{Parent: parent})

	if filepath.Dir(s.Top) != parent || !topName.MatchString(filepath.Base(s.Top)) {
		t.Errorf("Top = %s, want %s/sealmark-<16 hex>", s.Top, parent)
	}
	dirs := map[string]string{"root": s.Root, "root-evil": s.RootEvil, "canary": s.Canary, "home": s.Home, "tmp": s.Tmp, "bin": s.Bin}
	for name, got := range dirs {
		if want := filepath.Join(s.Top, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	for _, d := range append(slices.Collect(maps.Values(dirs)), s.Top) {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			t.Errorf("%s: not a directory (%v)", d, err)
			continue
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", d, fi.Mode().Perm())
		}
	}

	if !okToken.MatchString(s.OKToken) {
		t.Errorf("OKToken = %q, want sm-ok-<16 hex>", s.OKToken)
	}
	if got := readFile(t, filepath.Join(s.Root, "ok.txt")); got != s.OKToken {
		t.Errorf("root/ok.txt = %q, want the OKToken %q", got, s.OKToken)
	}

	var names []string
	for _, f := range s.Files {
		names = append(names, f.Name)
		if f.Path != filepath.Join(s.Top, filepath.FromSlash(f.Name)) {
			t.Errorf("%s: Path %s is not below Top", f.Name, f.Path)
		}
		if !secretRE.MatchString(f.Secret) {
			t.Errorf("%s: secret %q, want sm-secret-<24 hex>", f.Name, f.Secret)
		}
		if got := readFile(t, f.Path); got != f.Secret {
			t.Errorf("%s holds %q, want its whole content to be the secret %q", f.Name, got, f.Secret)
		}
	}
	if want := []string{"canary/secret.txt", "canary/id_rsa", "root-evil/evil.txt"}; !slices.Equal(names, want) {
		t.Errorf("canary files = %q, want %q", names, want)
	}

	secrets := s.Secrets()
	want := []string{s.Files[0].Secret, s.Files[1].Secret, s.Files[2].Secret, s.CanaryRepoSecret}
	if !slices.Equal(secrets, want) {
		t.Errorf("Secrets() = %q, want the file secrets then the repository's %q", secrets, want)
	}
	slices.Sort(secrets)
	if len(slices.Compact(secrets)) != 4 {
		t.Errorf("Secrets() repeats a value: %q", s.Secrets())
	}
	if len(s.Notes) != 0 {
		t.Errorf("Notes = %q, want none on this platform", s.Notes)
	}
}

func TestNewLinks(t *testing.T) {
	s := newSandbox(t, Options{})
	if s.LinkDir == "" || s.LinkFile == "" {
		t.Skipf("the platform refused links: %q", s.Notes)
	}
	tests := []struct {
		link, wantTarget, resolvesTo string
	}{
		{s.LinkDir, filepath.Join("..", "canary"), s.Canary},
		{s.LinkFile, filepath.Join("..", "canary", "secret.txt"), s.Files[0].Path},
	}
	for _, tt := range tests {
		got, err := os.Readlink(tt.link)
		if err != nil || got != tt.wantTarget {
			t.Errorf("Readlink(%s) = %q, %v; want the relative target %q", tt.link, got, err, tt.wantTarget)
		}
		if resolved, _ := filepath.EvalSymlinks(tt.link); resolved != tt.resolvesTo {
			t.Errorf("%s resolves to %s, want %s", tt.link, resolved, tt.resolvesTo)
		}
	}
	if got := readFile(t, filepath.Join(s.LinkDir, "secret.txt")); got != s.Files[0].Secret {
		t.Errorf("root/link-dir/secret.txt = %q, want the canary secret", got)
	}
}

func TestNewErrors(t *testing.T) {
	parent := t.TempDir()
	dir := t.TempDir()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"missing parent", Options{Parent: filepath.Join(parent, "nope")}, "parent directory"},
		{"relative harness", Options{Parent: parent, Harness: "bin/sealmark"}, "not an absolute path"},
		{"missing harness", Options{Parent: parent, Harness: filepath.Join(parent, "gone")}, "not a regular file"},
		{"harness is a directory", Options{Parent: parent, Harness: dir}, "not a regular file"},
	}
	for _, tt := range tests {
		s, err := New(tt.opts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: New = %v, %v; want an error containing %q", tt.name, s, err, tt.want)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("failed New calls left %d entries in the parent", len(entries))
	}
}

func TestNewRemovesWhatItMadeOnError(t *testing.T) {
	parent := t.TempDir()
	made := ""
	buildLayout = func(ctx context.Context, top, harness string, gitRepo bool) (*Sandbox, error) {
		s, err := build(ctx, top, harness, gitRepo)
		if err != nil {
			return nil, err
		}
		made = s.Top
		return nil, errors.New("half-way failure")
	}
	t.Cleanup(func() { buildLayout = build })

	if _, err := New(Options{Parent: parent}); err == nil || !strings.Contains(err.Error(), "half-way failure") {
		t.Fatalf("New = %v, want the build error", err)
	}
	if made == "" {
		t.Fatal("the build never ran")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("New left %s behind after an error", made)
	}
}

func TestNewWithoutGit(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	s := newSandbox(t, Options{GitRepo: true})
	if s.CanaryRepo != "" || s.CanaryRepoSecret != "" || s.Repo != "" {
		t.Errorf("without git: CanaryRepo %q, secret %q, Repo %q; want all empty", s.CanaryRepo, s.CanaryRepoSecret, s.Repo)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"canary/repo: not made: git not found", "root/repo: not made: git not found"} {
		if !strings.Contains(notes, want) {
			t.Errorf("Notes = %q, want one saying %q", s.Notes, want)
		}
	}
	if got := len(s.Secrets()); got != len(s.Files) {
		t.Errorf("Secrets() has %d values without a repository, want the %d file secrets", got, len(s.Files))
	}
	if _, err := os.Lstat(filepath.Join(s.Canary, "repo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("canary/repo exists without git (%v)", err)
	}
}

// TestSignalMidNewRemovesTheSandbox: a signal arriving while New is still
// making the sandbox (the git repositories take a while) must not leave it
// behind. The build here waits until the signal's cleanup stops it, as a
// git command in flight is killed; cleanup.Run must return with the
// sandbox gone and the stopped git commands noted, not run.
func TestSignalMidNewRemovesTheSandbox(t *testing.T) {
	parent := t.TempDir()
	building := make(chan struct{})
	buildLayout = func(ctx context.Context, top, harness string, gitRepo bool) (*Sandbox, error) {
		close(building)
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Second):
			return nil, errors.New("the signal's cleanup did not stop the build")
		}
		return build(ctx, top, harness, gitRepo)
	}
	t.Cleanup(func() { buildLayout = build })
	type result struct {
		s   *Sandbox
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := New(Options{Parent: parent, GitRepo: true})
		done <- result{s, err}
	}()
	select {
	case <-building:
	case <-time.After(10 * time.Second):
		t.Fatal("New did not start building")
	}
	cleanup.Run()
	entries, err := os.ReadDir(parent)
	if err != nil || len(entries) > 0 {
		t.Errorf("the sandbox being made was left behind: %v %v", entries, err)
	}
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("New: %v", r.err)
		}
		if r.s.CanaryRepo != "" {
			t.Errorf("git ran after the build was stopped: %s", r.s.CanaryRepo)
		}
		if notes := strings.Join(r.s.Notes, "\n"); !strings.Contains(notes, "stopped, the run is ending") {
			t.Errorf("the stopped git commands are not noted: %s", notes)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("New did not return after the cleanup")
	}
}
