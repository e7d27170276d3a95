package sandbox

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/sealmark/sealmark/internal/quota"
)

// keepOnDisk moves a sandbox off its quota filesystem: the tree is copied
// into a sibling directory on the parent's filesystem, the quota is
// unmounted, and the copy takes Top's name. Without a quota it does
// nothing. What cannot be copied (a socket, a fifo, a device, an
// unreadable file) is left out and named in the error; the rest is kept.
func (s *Sandbox) keepOnDisk() error {
	if s.Quota == 0 || !quota.Mounted(s.Top) {
		return nil
	}
	parent, base := filepath.Split(s.Top)
	tmp, err := os.MkdirTemp(parent, base+".keep-")
	if err != nil {
		return fmt.Errorf("sandbox: keeping %s: %w", s.Top, err)
	}
	cerr := copyTree(s.Top, tmp)
	if err := quota.Unmount(s.Top); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("sandbox: keeping %s: %w", s.Top, err)
	}
	if s.guard != nil {
		s.guard()
	}
	if err := os.Remove(s.Top); err != nil {
		return fmt.Errorf("sandbox: keeping %s: its files are at %s: %w", s.Top, tmp, err)
	}
	if err := os.Rename(tmp, s.Top); err != nil {
		return fmt.Errorf("sandbox: keeping %s: its files are at %s: %w", s.Top, tmp, err)
	}
	if cerr != nil {
		return fmt.Errorf("sandbox: keeping %s: %w", s.Top, cerr)
	}
	return nil
}

// copyTree copies the tree at src into the existing directory dst:
// directories, regular files and symlinks, with their permissions and
// modification times (a hard link becomes a copy). Links are copied, never
// followed. It goes on past what it cannot copy and returns that, joined.
func copyTree(src, dst string) error {
	var errs []error
	type dir struct {
		path string
		info fs.FileInfo
	}
	var dirs []dir
	_ = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		switch {
		case d.IsDir():
			if rel != "." {
				if err := os.Mkdir(to, 0o700); err != nil {
					errs = append(errs, err)
					return filepath.SkipDir
				}
			}
			dirs = append(dirs, dir{to, info})
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err == nil {
				err = os.Symlink(target, to)
			}
			if err != nil {
				errs = append(errs, err)
			}
		case d.Type().IsRegular():
			if err := copyRegular(p, to, info); err != nil {
				errs = append(errs, err)
			}
		default:
			errs = append(errs, fmt.Errorf("%s: a %v is not kept", rel, d.Type()))
		}
		return nil
	})
	// Directories last, innermost first: a read-only one is filled first.
	slices.Reverse(dirs)
	for _, d := range dirs {
		_ = os.Chmod(d.path, d.info.Mode().Perm())
		_ = os.Chtimes(d.path, d.info.ModTime(), d.info.ModTime())
	}
	return errors.Join(errs...)
}

// copyRegular copies the regular file src to the new file dst.
func copyRegular(src, dst string, info fs.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_ = os.Chmod(dst, info.Mode().Perm())
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}
