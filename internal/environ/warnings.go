package environ

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// programExts are the extensions of a server's own program file, which an
// argument may name without a warning.
var programExts = []string{".js", ".mjs", ".cjs", ".ts", ".py", ".rb", ".jar", ".php", ".pl", ".sh"}

// PathWarnings returns one warning for each literal absolute path in a
// server's configuration that is not inside sandboxTop: such a path is a real
// file on this machine, and valid calls may read or write it. args are
// server.args and env is server.env, both as the user wrote them, before
// placeholders are expanded.
//
// A literal absolute path starts with "/", "~/" or a Windows drive ("C:\",
// "C:/"); the value of an option written as --opt=/path counts too. A value
// that starts with a placeholder ({sandbox}/x) is not literal. An argument
// naming an existing regular file with a program extension (.js .mjs .cjs .ts
// .py .rb .jar .php .pl .sh) is the server's own program and gets no warning.
func PathWarnings(args []string, env []KV, sandboxTop string) []string {
	var warnings []string
	for i, a := range args {
		p, ok := literalPath(a)
		if !ok || inside(p, sandboxTop) || ownProgram(p) {
			continue
		}
		warnings = append(warnings, fmt.Sprintf("server.args[%d] (%s) points at a real path on this machine; valid calls may read or write it", i, p))
	}
	for _, kv := range env {
		p, ok := literalPath(kv.Value)
		if !ok || inside(p, sandboxTop) {
			continue
		}
		warnings = append(warnings, fmt.Sprintf("server.env %s points at a real path on this machine; valid calls may read or write it", kv.Name))
	}
	return warnings
}

// literalPath returns the absolute path s is, or holds as --opt=/path.
func literalPath(s string) (string, bool) {
	if StartsWithPlaceholder(s) {
		return "", false
	}
	if absolute(s) {
		return s, true
	}
	if strings.HasPrefix(s, "-") {
		if _, v, ok := strings.Cut(s, "="); ok && !StartsWithPlaceholder(v) && absolute(v) {
			return v, true
		}
	}
	return "", false
}

// absolute reports whether s is written as an absolute path on any platform.
func absolute(s string) bool {
	switch {
	case strings.HasPrefix(s, "/"), strings.HasPrefix(s, "~/"):
		return true
	case len(s) >= 3 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'):
		c := s[0] | 0x20 // lower case
		return 'a' <= c && c <= 'z'
	}
	return false
}

// inside reports whether p is top or below it.
func inside(p, top string) bool {
	if top == "" || strings.HasPrefix(p, "~") {
		return false
	}
	p, top = filepath.Clean(p), filepath.Clean(top)
	return p == top || strings.HasPrefix(p, strings.TrimSuffix(top, string(filepath.Separator))+string(filepath.Separator))
}

// ownProgram reports whether p names an existing regular file with a
// program extension.
func ownProgram(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	known := false
	for _, e := range programExts {
		known = known || ext == e
	}
	if !known {
		return false
	}
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return false
		}
		p = filepath.Join(home, rest)
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
