package environ

import (
	"os"
	"path/filepath"
)

// caches returns the package-manager cache variables for a scrubbed
// environment, so npx and uvx find what they downloaded before instead of
// fetching the server again: each from caller's variable when set, else the
// tool's default location under caller's home, and only when that is an
// existing directory given as an absolute path.
func caches(caller *vars, windows bool) []KV {
	home, _ := caller.get("HOME")
	if windows {
		if p, ok := caller.get("USERPROFILE"); ok && p != "" {
			home = p
		}
	}
	under := func(root string, elem ...string) string {
		if root == "" {
			return ""
		}
		return filepath.Join(append([]string{root}, elem...)...)
	}
	// xdg is elem under the XDG base directory name, whose default is
	// fallback under home.
	xdg := func(name, fallback string, elem ...string) string {
		if p, _ := caller.get(name); filepath.IsAbs(p) {
			return filepath.Join(append([]string{p}, elem...)...)
		}
		return under(home, append([]string{fallback}, elem...)...)
	}
	localAppData, _ := caller.get("LOCALAPPDATA")
	appData, _ := caller.get("APPDATA")

	var npm, uvCache, uvPython string
	if windows {
		npm = under(localAppData, "npm-cache")
		uvCache = under(localAppData, "uv", "cache")
		uvPython = under(appData, "uv", "python")
	} else {
		npm = under(home, ".npm")
		uvCache = xdg("XDG_CACHE_HOME", ".cache", "uv")
		uvPython = xdg("XDG_DATA_HOME", filepath.Join(".local", "share"), "uv", "python")
	}
	defaults := []struct {
		name    string
		aliases []string // other spellings the tool reads
		def     string
	}{
		{"npm_config_cache", []string{"NPM_CONFIG_CACHE"}, npm},
		{"UV_CACHE_DIR", nil, uvCache},
		{"UV_PYTHON_INSTALL_DIR", nil, uvPython},
	}
	var out []KV
	for _, d := range defaults {
		dir, set := caller.get(d.name)
		for _, a := range d.aliases {
			if !set {
				dir, set = caller.get(a)
			}
		}
		if !set {
			dir = d.def
		}
		if isDir(dir) {
			out = append(out, KV{d.name, dir})
		}
	}
	return out
}

// isDir reports whether p is an absolute path naming an existing directory.
func isDir(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
