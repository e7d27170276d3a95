package report

import (
	"path"
	"regexp"
	"strings"
)

// launchers are the programs that run another program named among their
// arguments: an interpreter, a package runner or a build tool. A server
// started through one is named by what it runs, not by the launcher.
var launchers = map[string]bool{
	"node": true, "nodejs": true, "bun": true, "bunx": true, "deno": true, "tsx": true, "ts-node": true,
	"npx": true, "pnpx": true, "npm": true, "pnpm": true, "yarn": true,
	"python": true, "py": true, "pypy": true, "uv": true, "uvx": true, "pipx": true, "poetry": true, "pdm": true, "hatch": true,
	"ruby": true, "bundle": true, "php": true, "perl": true, "java": true, "dotnet": true,
	"go": true, "cargo": true, "sh": true, "bash": true, "env": true,
}

// subcommands are a launcher's words that say how to run, not what.
var subcommands = map[string]bool{"run": true, "exec": true, "x": true, "dlx": true, "tool": true, "start": true}

// valued are launcher options whose value is not the program.
var valued = map[string]bool{
	"--python": true, "-p": true, "--with": true, "-r": true, "--require": true, "--import": true,
	"--loader": true, "--experimental-loader": true, "--env-file": true, "-C": true, "--directory": true,
	"--project": true, "--cwd": true, "--prefix": true, "-w": true, "--workspace": true, "--filter": true,
}

var (
	// interpreterVersion is the version an interpreter's name carries:
	// python3, python3.12, node20.
	interpreterVersion = regexp.MustCompile(`[0-9][0-9.]*$`)
	// nameVersion is a version after a name: @1.2.3, @latest, ==1.0,
	// -1.4.2, _v2, -v1.0.0-rc.1.
	nameVersion = regexp.MustCompile(`(@[^/@]+|[=<>~!]=?[0-9].*|[-_]v?[0-9]+(\.[0-9]+)*([-+][0-9a-z.]+)?)$`)
	// programSuffix is a file extension that says how a program runs.
	programSuffix = regexp.MustCompile(`\.(js|mjs|cjs|ts|mts|py|pyz|rb|php|pl|sh|jar|exe|dll|bin)$`)
)

// ServerName is the stable name of the server a command line starts (or a
// URL reaches), the default SARIF category of a run (AutomationID):
//
//   - the program, or, when the program is a launcher (node, python3,
//     npx, uvx, go run, ...), the first argument that is not one of its
//     options or subcommands (a script, a -m module, a package);
//   - its base name: no directory, no file extension (.js, .py, .exe, ...),
//     no version (@1.2.3, ==1.0, -1.4.2, python3.12's 3.12), lower case,
//     with any character other than a-z, 0-9, '.', '_' and '-' written '-';
//   - for a server reached by URL alone, "http".
//
// So ./bin/server, bin/server, /abs/path/bin/server and {cwd}/bin/server
// are all "server", whatever the directory the run starts in, and
// "npx -y @scope/notes-server@1.2.0" is "notes-server".
func ServerName(command string, args []string, url string) string {
	if command == "" {
		if url != "" {
			return "http"
		}
		return "server"
	}
	words := append([]string{command}, args...)
	name := baseName(words[0])
	for i := 0; launcherName(name) && i+1 < len(words); {
		i++
		w := words[i]
		switch {
		case w == "-m" || w == "-jar" || w == "--from" || w == "--package":
			if i+1 < len(words) {
				return slugName(baseName(words[i+1]))
			}
		case strings.HasPrefix(w, "-"):
			if valued[w] {
				i++
			}
		case strings.Contains(w, "=") && baseName(words[0]) == "env":
			// env NAME=VALUE program
		case subcommands[w]:
		default:
			name = baseName(w)
			if !launcherName(name) {
				return slugName(name)
			}
		}
	}
	return slugName(name)
}

// launcherName reports whether the base name names a launcher.
func launcherName(name string) bool {
	return launchers[name] || launchers[interpreterVersion.ReplaceAllString(name, "")]
}

// baseName is a word's last path element without version or extension,
// lower case.
func baseName(w string) string {
	w = strings.ToLower(strings.ReplaceAll(w, `\`, "/"))
	w = strings.TrimRight(w, "/")
	if at := strings.LastIndex(w, "@"); at > 0 && !strings.Contains(w[at:], "/") {
		w = w[:at] // a package's version: @scope/name@1.2.3, module@v1.2.0
	}
	w = path.Base(w)
	w = programSuffix.ReplaceAllString(w, "")
	if v := nameVersion.ReplaceAllString(w, ""); v != "" {
		w = v
	}
	return w
}

// slugName writes a name with a-z, 0-9, '.', '_' and '-' only.
func slugName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		return "server"
	}
	return s
}
