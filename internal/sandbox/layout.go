package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/sealmark/sealmark/internal/layout"
	"github.com/sealmark/sealmark/internal/smbin"
)

// build makes the layout inside the existing directory top. Things the
// platform refuses (links, git) become Notes; anything else is an error.
// The caller removes top on error.
func build(ctx context.Context, top, harness string, gitRepo bool) (*Sandbox, error) {
	s := &Sandbox{
		ctx:      ctx,
		Top:      top,
		Root:     filepath.Join(top, layout.Root),
		RootEvil: filepath.Join(top, layout.RootEvil),
		Canary:   filepath.Join(top, layout.Canary),
		Home:     filepath.Join(top, layout.Home),
		Tmp:      filepath.Join(top, layout.Tmp),
		Bin:      filepath.Join(top, layout.Bin),
		OKToken:  "sm-ok-" + randomHex(8),
	}
	for _, d := range []string{s.Root, s.RootEvil, s.Canary, s.Home, s.Tmp, s.Bin} {
		if err := mkdir(d); err != nil {
			return nil, err
		}
	}
	if err := writeFile(filepath.Join(s.Root, "ok.txt"), s.OKToken); err != nil {
		return nil, err
	}
	for _, name := range []string{"canary/secret.txt", "canary/id_rsa", "root-evil/evil.txt"} {
		f := CanaryFile{Name: name, Path: filepath.Join(top, filepath.FromSlash(name)), Secret: newSecret()}
		if err := writeFile(f.Path, f.Secret); err != nil {
			return nil, err
		}
		s.Files = append(s.Files, f)
	}
	s.LinkDir = s.link(filepath.Join("..", "canary"), filepath.Join(s.Root, "link-dir"))
	s.LinkFile = s.link(filepath.Join("..", "canary", "secret.txt"), filepath.Join(s.Root, "link-file"))
	if err := s.linkBin(harness); err != nil {
		return nil, err
	}
	s.makeRepos(gitRepo)
	return s, nil
}

// link makes the relative symlink at -> target and returns at, or notes why
// it could not and returns "".
func (s *Sandbox) link(target, at string) string {
	if err := os.Symlink(target, at); err != nil {
		s.note("%s: no link to %s: %v", s.rel(at), target, err)
		return ""
	}
	return at
}

// linkBin makes bin/sm-*: links to a copy of the sm-* helper in bin
// (smbin.InstallHelper), so the programs live in the sandbox and start in a
// few milliseconds. Where the helper cannot be had (no go command to build
// it, a bin where nothing may run, smbin.HelperEnv=off) they link to the
// harness binary, as before it existed, and a note says why.
func (s *Sandbox) linkBin(harness string) error {
	helper, err := smbin.InstallHelper(s.Bin)
	if err == nil {
		if err = s.linkPrograms(filepath.Base(helper), helper); err == nil {
			s.helper = true
			return nil
		}
		s.unlinkPrograms()
		_ = os.Remove(helper)
	}
	s.note("bin/sm-*: links to the harness binary, so each run starts the whole harness: no sm-* helper: %v", err)
	return s.linkPrograms(harness, harness)
}

// linkPrograms makes bin/sm-* symlinks to target (relative to bin, or
// absolute), else hard links to file, else copies of file. Anything but a
// symlink is noted.
func (s *Sandbox) linkPrograms(target, file string) error {
	for _, n := range smbin.Names {
		if runtime.GOOS == "windows" {
			n += ".exe"
		}
		at := filepath.Join(s.Bin, n)
		serr := os.Symlink(target, at)
		if serr == nil {
			continue
		}
		lerr := os.Link(file, at)
		if lerr == nil {
			s.note("%s: a hard link, not a symlink: %v", s.rel(at), serr)
			continue
		}
		err := errors.New("not a file")
		if fi, serr := os.Stat(file); serr == nil {
			err = copyRegular(file, at, fi)
		}
		if err != nil {
			return fmt.Errorf("sandbox: make %s: symlink: %v; hard link: %v; copy: %w", at, serr, lerr, err)
		}
		s.note("%s: a copy of %s, not a link: %v", s.rel(at), file, serr)
	}
	return nil
}

// unlinkPrograms removes whatever bin/sm-* linkPrograms made.
func (s *Sandbox) unlinkPrograms() {
	for _, n := range smbin.Names {
		if runtime.GOOS == "windows" {
			n += ".exe"
		}
		_ = os.Remove(filepath.Join(s.Bin, n))
	}
}

// note records something that could not be made.
func (s *Sandbox) note(format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, args...))
}

// rel names p relative to Top, slash-separated, for notes.
func (s *Sandbox) rel(p string) string {
	if r, err := filepath.Rel(s.Top, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// mkdir makes dir with mode 0700 whatever the umask.
func mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	return nil
}

// writeFile writes a new file with mode 0600; it never replaces one.
func writeFile(p, content string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	_, werr := io.WriteString(f, content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("sandbox: write %s: %w", p, werr)
	}
	return nil
}
