//go:build !unix

package contain

import (
	"fmt"
	"os"
)

func ownedByMe(path string, dir bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if dir && !fi.IsDir() || !dir && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: unexpected file type %s", path, fi.Mode().Type())
	}
	return nil
}
