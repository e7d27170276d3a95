package scan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/hostpath"
)

// MaxStagedBytes bounds one host file scan copies into the sandbox
// (10 MiB): a larger one is withheld, and the report says so.
const MaxStagedBytes = 10 << 20

// stage brings along what a replaced path named, and notes it for the
// report:
//   - a directory on this machine is the server's root, offered as
//     {sandbox} itself: the server gets the sandbox's layout there (the
//     fs pack's ok.txt, root-evil, links), never the directory's content;
//   - a file is copied, read-only, to its offer, at most MaxStagedBytes;
//     a credentials file (hostpath.Credentials: *.pem, id_*, .env,
//     *token*, service-account*.json, ...) is withheld: scan
//     --as-configured passes the host path as configured instead;
//   - a path that exists nowhere and has no extension is an empty
//     directory (a server given a missing "notes" most likely wants one);
//     anything else missing stays missing.
func (p *plan) stage(path, offer string, o *Options) {
	local := hostpath.Local(path, o.Cwd)
	st, err := os.Stat(local)
	switch {
	case offer == "{sandbox}":
		p.notes = append(p.notes, fmt.Sprintf("scan: staged: %s is the server's root, the sandbox root, with the sandbox's own files; the directory's content was not copied", path))
		return
	case err != nil && hostpath.WantsDir(path, o.Cwd):
		p.file.Files = append(p.file.Files, config.File{Path: offer + "/"}) // an empty directory
		p.notes = append(p.notes, fmt.Sprintf("scan: staged: %s as an empty directory (%s does not exist on this machine)", offer, path))
		return
	case err != nil:
		p.notes = append(p.notes, fmt.Sprintf("scan: not staged: %s does not exist on this machine, so %s does not exist either", path, offer))
		return
	case st.IsDir():
		p.file.Files = append(p.file.Files, config.File{Path: offer + "/"})
		p.notes = append(p.notes, fmt.Sprintf("scan: staged: %s as an empty directory for %s (its content was not copied)", offer, path))
		return
	case !st.Mode().IsRegular():
		p.withhold(fmt.Sprintf("scan: withheld: %s is not a regular file; %s does not exist", path, offer))
		return
	case hostpath.Credentials(path):
		p.withhold(fmt.Sprintf("scan: withheld: %s looks like a credentials file and was not copied to %s; scan --as-configured passes the host path as configured", path, offer))
		return
	case st.Size() > MaxStagedBytes:
		p.withhold(fmt.Sprintf("scan: withheld: %s is %d bytes, over the %d-byte bound for a staged file; %s does not exist", path, st.Size(), MaxStagedBytes, offer))
		return
	}
	data, err := readBounded(local, MaxStagedBytes)
	if err != nil {
		p.withhold(fmt.Sprintf("scan: withheld: %s could not be read (%v); %s does not exist", path, err, offer))
		return
	}
	p.staged = append(p.staged, engine.Staged{Path: offer, Data: data})
	p.notes = append(p.notes, fmt.Sprintf("scan: staged: %s copied read-only to %s (%d bytes)", path, offer, len(data)))
}

// readBounded reads a file of at most max bytes.
func readBounded(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errors.New("over the bound")
	}
	return data, nil
}

// withhold notes a file that was not staged ("scan: withheld: ..."): a
// warning in the report, and, should the server fail to find a file it
// was given, the cause its start failure names first (missingCause).
func (p *plan) withhold(note string) {
	p.notes = append(p.notes, note)
	p.withheld = append(p.withheld, strings.TrimPrefix(note, "scan: withheld: "))
}

// missingFile is the start failure's first line when the server could not
// find a file it was given (internal/engine's causes).
const missingFile = "could not find a file it was given"

// missingCause puts the files scan withheld first in a start failure that
// says the server could not find a file it was given: scan's own choice,
// not the user's configuration, is then the cause a reader meets first.
func (p *plan) missingCause(harnessError string) string {
	first, _, _ := strings.Cut(harnessError, "\n")
	if len(p.withheld) == 0 || !strings.Contains(first, missingFile) {
		return harnessError
	}
	return "scan withheld a file the server was given, which it then could not find: " + strings.Join(p.withheld, "; ") + "\n" + harnessError
}
