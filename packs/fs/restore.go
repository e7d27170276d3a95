package fs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	sbdir "github.com/sealmark/sealmark/internal/layout"

	"github.com/sealmark/sealmark/packs"
)

// layout is what the sandbox held when the pack first looked: which links
// the platform let the harness make.
type layout struct {
	linkDir, linkFile bool
}

const (
	linkDirTarget  = "../canary"
	linkFileTarget = "../canary/secret.txt"
	layoutKey      = "fs.layout"
)

// sandboxLayout reads which links exist, once per start: later probes may
// have broken them, and restore puts back only what was there.
func sandboxLayout(p *packs.Pass) layout {
	if l, ok := p.Shared[layoutKey].(layout); ok {
		return l
	}
	var l layout
	if r, err := os.OpenRoot(p.Sandbox.Top); err == nil {
		l.linkDir = isLink(r, "root/link-dir")
		l.linkFile = isLink(r, "root/link-file")
		r.Close()
	}
	p.Shared[layoutKey] = l
	return l
}

func isLink(r *os.Root, name string) bool {
	fi, err := r.Lstat(name)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// maxWalk bounds the entries restore looks at.
const maxWalk = 20000

// restore puts the sandbox back as the harness made it: every canary file
// and root/ok.txt with their content, the links, and nothing whose name
// carries the token (what the probe and the server made for it) or that
// the files observer saw created in root, root-evil or canary (created).
// It reports whether it changed anything outside the root. It works
// through an os.Root on the sandbox top, so it never follows a link out of
// the sandbox.
func restore(sb *packs.Sandbox, l layout, token string, created []string) (outside bool, err error) {
	r, err := os.OpenRoot(sb.Top)
	if err != nil {
		return false, err
	}
	defer r.Close()
	var errs []error
	var gone []string
	if token != "" {
		var e []error
		gone, e = removeMarked(r, token, true, sbdir.Watched...)
		errs = append(errs, e...)
	}
	for _, c := range created {
		first, _, _ := strings.Cut(c, "/")
		if first != sbdir.Root && first != sbdir.RootEvil && first != sbdir.Canary || isBaseline(sb, c) {
			continue
		}
		if _, err := r.Lstat(c); err != nil {
			continue
		}
		if err := r.RemoveAll(c); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
		gone = append(gone, c)
	}
	for _, g := range gone {
		if !strings.HasPrefix(g, "root/") {
			outside = true
		}
	}
	for _, f := range sb.Files {
		changed, err := putFile(r, f.Name, f.Value)
		outside = outside || changed
		errs = append(errs, err)
	}
	_, err = putFile(r, "root/ok.txt", sb.OKToken)
	errs = append(errs, err)
	if l.linkDir {
		errs = append(errs, putLink(r, "root/link-dir", linkDirTarget))
	}
	if l.linkFile {
		errs = append(errs, putLink(r, "root/link-file", linkFileTarget))
	}
	return outside, errors.Join(errs...)
}

// isBaseline reports whether name is one of the sandbox's own entries.
func isBaseline(sb *packs.Sandbox, name string) bool {
	switch name {
	case "root/ok.txt", "root/link-dir", "root/link-file":
		return true
	}
	for _, f := range sb.Files {
		if f.Name == name || path.Dir(f.Name) == name {
			return true
		}
	}
	return false
}

// tidyRoot undoes what a call changed inside the root only: the probe's
// names there, ok.txt and the links. It is what follows a call after which
// the harness found nothing changed outside the root.
func tidyRoot(sb *packs.Sandbox, l layout, token string) error {
	r, err := os.OpenRoot(sb.Top)
	if err != nil {
		return err
	}
	defer r.Close()
	_, errs := removeMarked(r, token, false, "root")
	_, err = putFile(r, "root/ok.txt", sb.OKToken)
	errs = append(errs, err)
	if l.linkDir {
		errs = append(errs, putLink(r, "root/link-dir", linkDirTarget))
	}
	if l.linkFile {
		errs = append(errs, putLink(r, "root/link-file", linkFileTarget))
	}
	return errors.Join(errs...)
}

// removeMarked removes every entry whose name carries the token: anywhere
// below dirs and, with top, directly under the top. It returns what it
// removed.
func removeMarked(r *os.Root, token string, top bool, dirs ...string) (gone []string, errs []error) {
	var marked []string
	if top {
		entries, err := fs.ReadDir(r.FS(), ".")
		if err != nil {
			return nil, []error{err}
		}
		for _, e := range entries {
			if strings.Contains(e.Name(), token) {
				marked = append(marked, e.Name())
			}
		}
	}
	seen := 0
	for _, dir := range dirs {
		_ = fs.WalkDir(r.FS(), dir, func(p string, d fs.DirEntry, err error) error {
			if seen++; seen > maxWalk {
				return fs.SkipAll
			}
			if err != nil || p == dir {
				return nil
			}
			if strings.Contains(d.Name(), token) {
				marked = append(marked, p)
				if d.IsDir() {
					return fs.SkipDir
				}
			}
			return nil
		})
	}
	for _, m := range marked {
		if err := r.RemoveAll(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if seen > maxWalk {
		errs = append(errs, fmt.Errorf("the sandbox holds more than %d entries: only the first were searched for what the probe made", maxWalk))
	}
	return marked, errs
}

// putFile makes name a regular file holding exactly content, mode 0600, in
// a real directory, and reports whether it had to change anything.
func putFile(r *os.Root, name, content string) (bool, error) {
	changed, err := putDir(r, path.Dir(name))
	if err != nil {
		return changed, err
	}
	if fi, err := r.Lstat(name); err == nil {
		if fi.Mode().IsRegular() && fi.Mode().Perm() == 0o600 && fi.Size() == int64(len(content)) {
			if b, err := r.ReadFile(name); err == nil && bytes.Equal(b, []byte(content)) {
				return changed, nil
			}
		}
		if err := r.RemoveAll(name); err != nil {
			return true, err
		}
	}
	if err := r.WriteFile(name, []byte(content), 0o600); err != nil {
		return true, err
	}
	return true, r.Chmod(name, 0o600) // whatever the umask
}

// putDir makes name (directly under the top) a real directory, mode 0700,
// and reports whether it had to change anything.
func putDir(r *os.Root, name string) (bool, error) {
	fi, err := r.Lstat(name)
	if err == nil && fi.IsDir() {
		if fi.Mode().Perm() != 0o700 {
			return true, r.Chmod(name, 0o700)
		}
		return false, nil
	}
	if err == nil {
		if err := r.RemoveAll(name); err != nil {
			return true, err
		}
	}
	if err := r.Mkdir(name, 0o700); err != nil {
		return true, err
	}
	return true, r.Chmod(name, 0o700)
}

// putLink makes name a symbolic link to target.
func putLink(r *os.Root, name, target string) error {
	if got, err := r.Readlink(name); err == nil && got == target {
		return nil
	}
	if err := r.RemoveAll(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return r.Symlink(target, name)
}

// inspect is the harness's own look for changes outside the root: a canary
// file that lost its content, and anything carrying the token directly
// under the top (which the files observer does not watch) or, with walk,
// anywhere in root-evil, canary, home and tmp.
func inspect(sb *packs.Sandbox, token string, walk bool) []change {
	r, err := os.OpenRoot(sb.Top)
	if err != nil {
		return nil
	}
	defer r.Close()
	var out []change
	for _, f := range sb.Files {
		fi, err := r.Lstat(f.Name)
		switch {
		case err != nil:
			out = append(out, change{path: f.Name, observer: "sandbox", detail: f.Name + " is gone"})
		case !fi.Mode().IsRegular():
			out = append(out, change{path: f.Name, observer: "sandbox", detail: f.Name + " is no longer a regular file"})
		default:
			if b, err := r.ReadFile(f.Name); err != nil || string(b) != f.Value {
				out = append(out, change{path: f.Name, observer: "sandbox", detail: f.Name + " no longer holds its canary content"})
			}
		}
	}
	dirs := []string{"."}
	if walk {
		dirs = append(dirs, sbdir.Watched[1:]...) // root is "."
	}
	seen := 0
	for _, dir := range dirs {
		_ = fs.WalkDir(r.FS(), dir, func(p string, d fs.DirEntry, err error) error {
			if seen++; seen > maxWalk {
				return fs.SkipAll
			}
			if err != nil || p == dir {
				return nil
			}
			if strings.Contains(d.Name(), token) {
				out = append(out, change{path: p, observer: "sandbox", detail: "found " + p + " (the probe's name) outside the root"})
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if dir == "." && d.IsDir() {
				return fs.SkipDir // only the top's own entries: the observer watches below
			}
			return nil
		})
	}
	return out
}
