package contain

import (
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
)

// The credential stores a contained server must not read. The server runs
// as the harness's uid (root maps to itself in its user namespace), so
// without this it reads whatever the harness user can: its own HOME is the
// sandbox's, but the harness user's real home stays at its path, and a
// server that echoes a key into a tool result puts it in the report. In the
// server's mount namespace each store that exists is hidden: a directory
// under an empty read-only tmpfs, a file under a read-only bind of
// /dev/null (as bubblewrap does), so a read finds nothing or reads empty.
// What is hidden is only ever a path of this list, never one the server
// needs (see planSecrets).
//
// homeStores are relative to each home of the harness user (credentialHomes),
// each with why it is there.
var homeStores = []string{
	".ssh",                               // private keys, agent sockets, known hosts
	".aws",                               // AWS access keys (credentials, sso cache)
	".azure",                             // Azure CLI tokens
	".gnupg",                             // GPG private keys
	".docker",                            // registry auths (config.json)
	".kube",                              // cluster credentials and tokens (config)
	".config/gcloud",                     // Google Cloud credentials and tokens
	".config/gh",                         // GitHub CLI token (hosts.yml)
	".config/hub",                        // hub's GitHub token
	".config/git/credentials",            // git's credential store, XDG location
	".config/rclone",                     // cloud storage tokens (rclone.conf)
	".password-store",                    // pass: encrypted passwords, with .gnupg's key
	".netrc",                             // logins and passwords for hosts (curl, git, ftp)
	".git-credentials",                   // git's credential store: tokens in clear
	".npmrc",                             // npm registry tokens
	".pypirc",                            // PyPI upload tokens
	".pgpass",                            // PostgreSQL passwords
	".my.cnf",                            // MySQL passwords
	".vault-token",                       // HashiCorp Vault token
	".cargo/credentials",                 // crates.io token (old name)
	".cargo/credentials.toml",            // crates.io token
	".terraform.d/credentials.tfrc.json", // Terraform Cloud tokens
}

// rootStores are the host's root-only secrets, hidden when the harness is
// root: a root server is the owner of every root-owned file (without
// capabilities, which no mode check needs then).
var rootStores = []string{
	"/etc/shadow", "/etc/shadow-", // password hashes, and the backup
	"/etc/gshadow", "/etc/gshadow-", // group password hashes, and the backup
	"/etc/ssh/ssh_host_*_key", // the host's SSH private keys (a glob)
	"/etc/ssl/private",        // TLS private keys
}

// credentialHomes are the homes whose stores are hidden by default: the
// home of the harness's uid in the passwd database (os/user.Current, not
// the server's HOME, which is the sandbox's), and the harness's own $HOME
// when it is another directory (a CI job's HOME often is).
func credentialHomes() []string {
	var homes []string
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		homes = append(homes, filepath.Clean(u.HomeDir))
	}
	if h := os.Getenv("HOME"); filepath.IsAbs(h) && !slices.Contains(homes, filepath.Clean(h)) {
		homes = append(homes, filepath.Clean(h))
	}
	return homes
}

// secretsPlan is what the server's mount namespace hides, and the stores
// it leaves readable because the server needs a path beneath them.
type secretsPlan struct {
	Hide []string // absolute, links resolved, each once
	Kept []string // "store (holds path)"
}

// planSecrets lists the stores of homes (and, when root, of rootStores)
// that exist and that the server would see, links resolved. A store that
// holds a path in needed (the sandbox, the server's program and working
// directory, its path arguments, declared sockets, the harness binary), or
// lies in the sandbox, is kept and said so. A store beneath a host temp
// directory outside every visible tree (visible: the trees setupMounts
// binds) is not in the server's view at all and is left out.
func planSecrets(homes []string, root bool, needed, visible []string, top string) secretsPlan {
	var cands []string
	for _, h := range homes {
		for _, s := range homeStores {
			cands = append(cands, filepath.Join(h, s))
		}
	}
	if root {
		for _, s := range rootStores {
			if strings.Contains(s, "*") {
				m, _ := filepath.Glob(s)
				cands = append(cands, m...)
			} else {
				cands = append(cands, s)
			}
		}
	}
	var p secretsPlan
	for _, c := range cands {
		if _, err := os.Lstat(c); err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(c)
		if err != nil || !filepath.IsAbs(real) {
			continue // a dangling link: nothing to read through it
		}
		if slices.Contains(p.Hide, real) {
			continue
		}
		if n, ok := holds(c, real, needed); ok {
			p.Kept = append(p.Kept, c+" (holds "+n+")")
			continue
		}
		if top != "" && (within(real, top) || within(c, top)) {
			p.Kept = append(p.Kept, c+" (in the sandbox)")
			continue
		}
		if underAny(real, hostTmps) && !underAny(real, visible) {
			continue // the server's /tmp is the sandbox's: not there to read
		}
		p.Hide = append(p.Hide, real)
	}
	return p
}

// holds returns the first needed path that is the store or lies beneath
// it, by either of its names.
func holds(store, real string, needed []string) (string, bool) {
	for _, n := range needed {
		if within(n, store) || within(n, real) {
			return n, true
		}
	}
	return "", false
}
