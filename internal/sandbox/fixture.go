package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sealmark/sealmark/internal/smbin"
)

// FixtureGuide is the file in a fixture directory that explains every path.
const FixtureGuide = "SEALMARK-FIXTURE.txt"

// WriteFixture writes the sandbox layout into dir, for looking at by hand
// (sealmark run --fixture KIND --into DIR): the layout of [New] with fresh
// random tokens and secrets, plus dir/SEALMARK-FIXTURE.txt explaining every
// path. dir is made when missing and must otherwise be an empty directory.
// kind is "fs" (the layout) or "git" (also root/repo, which needs git). The
// bin programs link to a copy of the sm-* helper in bin, or else to the
// running executable. On error WriteFixture removes
// what it wrote.
func WriteFixture(dir, kind string) (*Sandbox, error) {
	if kind != "fs" && kind != "git" {
		return nil, fmt.Errorf("sandbox: fixture kind %q: want fs or git", kind)
	}
	harness, err := harnessPath("")
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("sandbox: fixture directory: %w", err)
	}
	created, err := prepareFixtureDir(dir)
	if err != nil {
		return nil, err
	}
	s, err := writeFixture(dir, harness, kind)
	if err != nil {
		err = errors.Join(err, clearFixtureDir(dir, created))
		return nil, err
	}
	return s, nil
}

func writeFixture(dir, harness, kind string) (*Sandbox, error) {
	s, err := build(context.Background(), dir, harness, kind == "git")
	if err != nil {
		return nil, err
	}
	if kind == "git" && s.Repo == "" {
		return nil, fmt.Errorf("sandbox: git fixture: root/repo could not be made: %v", s.Notes)
	}
	if err := writeFile(filepath.Join(dir, FixtureGuide), s.guide(kind, harness)); err != nil {
		return nil, err
	}
	return s, nil
}

// prepareFixtureDir makes dir (mode 0700) or checks that it is an empty
// directory, and reports whether it made it.
func prepareFixtureDir(dir string) (created bool, err error) {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return false, fmt.Errorf("sandbox: fixture directory: %w", err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			_ = os.Remove(dir)
			return false, fmt.Errorf("sandbox: fixture directory: %w", err)
		}
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("sandbox: fixture directory: %w", err)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("sandbox: fixture directory %s: not a directory", dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return false, fmt.Errorf("sandbox: fixture directory: %w", err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("not empty")
		}
		return false, fmt.Errorf("sandbox: fixture directory %s: %w", dir, err)
	}
	return false, nil
}

// clearFixtureDir removes what a failed WriteFixture wrote into dir: all of
// dir when it made it, else dir's entries (dir was empty before).
func clearFixtureDir(dir string, created bool) error {
	if created {
		return removeTree(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("sandbox: could not clear %s: %w", dir, err)
	}
	var errs []error
	for _, e := range entries {
		errs = append(errs, removeTree(filepath.Join(dir, e.Name())))
	}
	return errors.Join(errs...)
}

// guide is the text of SEALMARK-FIXTURE.txt: one line per path.
func (s *Sandbox) guide(kind, harness string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Sealmark fixture (%s): the layout of a Sealmark sandbox, with random values made for this copy.\n", kind)
	if kind == "git" {
		b.WriteString("Point your server at root/repo to see what the git pack sees. A real run always uses a fresh sandbox.\n")
	} else {
		b.WriteString("Point your server at root/ to see what the fs pack sees. A real run always uses a fresh sandbox.\n")
	}
	b.WriteString("A canary is a random string: if a server's response contains one, the server read it.\n\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	line := func(path, what string, args ...any) { fmt.Fprintf(w, "%s\t%s\n", path, fmt.Sprintf(what, args...)) }

	line("root/", "the server's working directory and allowed root ({sandbox})")
	line("root/ok.txt", "control file a server may read; holds the token %s", s.OKToken)
	if s.LinkDir != "" {
		line("root/link-dir", "symlink -> ../canary: listing it through the server escapes the root")
	}
	if s.LinkFile != "" {
		line("root/link-file", "symlink -> ../canary/secret.txt: reading it through the server escapes the root")
	}
	if s.Repo != "" {
		line("root/repo/", "git repository (branch main, one commit, fixed dates): README.md has a staged change; notes.txt is unchanged")
		if _, err := os.Lstat(filepath.Join(s.Repo, "canary-link")); err == nil {
			line("root/repo/canary-link", "untracked symlink -> ../../canary/repo: a git tool that follows it escapes the repository")
		}
		s.gitLines(line)
	}
	line("root-evil/", "sibling of root whose name starts with root's name: catches prefix-only path checks")
	s.fileLines(line, "root-evil/")
	line("canary/", "secrets the server is never told about")
	s.fileLines(line, "canary/")
	if s.CanaryRepo != "" {
		line("canary/repo/", "git repository the server is never told about: one commit of %s holding %s (also in the commit message)", canaryRepoFile, s.CanaryRepoSecret)
	}
	if s.Git.Remote != "" {
		line("canary/remote.git/", "bare clone of canary/repo: a clone or fetch from it copies the canary in")
	}
	line("home/", "the server's HOME ({sandbox_home})")
	line("tmp/", "the server's TEMP, TMP and TMPDIR")
	if s.helper {
		line("bin/", "harness programs, first in the server's PATH; each sm-* is a link to %s", smbin.HelperName)
		line("bin/"+smbin.HelperName, "the sm-* programs in one small binary, built from Sealmark's internal/smbin; runs as the link it is started through")
	} else {
		line("bin/", "harness programs, first in the server's PATH; each is a link to %s", harness)
	}
	line("bin/sm-canary", "proves execution: prints %s followed by its arguments", smbin.CanaryMarker)
	line("bin/sm-echo", "prints its arguments as a JSON array (shows argument splitting and injection)")
	line("bin/sm-sleep N", "sleeps N seconds (timeouts, orphans)")
	line("bin/sm-spew N", "writes N bytes to stdout (output bounding)")
	line("bin/"+smbin.ExecLog, "written when an sm-* program runs: one JSON line per run (prog, argv, pid, ppid, cwd, time)")
	line(FixtureGuide, "this file")
	_ = w.Flush()
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "\nnote: %s", n)
	}
	if len(s.Notes) > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// fileLines writes a guide line for each canary file below dir.
func (s *Sandbox) fileLines(line func(path, what string, args ...any), dir string) {
	for _, f := range s.Files {
		if strings.HasPrefix(f.Name, dir) {
			line(f.Name, "canary file; its whole content is %s", f.Secret)
		}
	}
}
