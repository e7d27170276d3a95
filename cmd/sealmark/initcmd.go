package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/hostpath"
	"github.com/sealmark/sealmark/internal/report"
)

// interactive reports whether init may ask questions: stdin is a terminal.
// Tests replace it.
var interactive = func(stdin io.Reader) bool {
	f, ok := stdin.(*os.File)
	return ok && isTerminal(f)
}

// initOptions are the flags of init.
type initOptions struct {
	yes, force bool
	out        string
	envs       repeated
}

// initFlags are the flags of init; its usage goes to w.
func initFlags(w io.Writer) (*flag.FlagSet, *initOptions) {
	o := &initOptions{}
	set := flag.NewFlagSet("sealmark init", flag.ContinueOnError)
	set.SetOutput(w)
	set.Usage = func() {
		fmt.Fprint(w, "usage: sealmark init [--yes] [--force] [--out FILE] [--env NAME=VALUE]... -- COMMAND [ARGS...]\n\n"+
			"Writes a commented sealmark.yaml that starts COMMAND as the server under test. A relative\n"+
			"path to the server's own program found here becomes {cwd}/<path>. A real path in ARGS or\n"+
			"in an --env value gets {sandbox}/<name> offered instead (asked on a terminal); a directory\n"+
			"offered is staged empty (server.files), so it exists when the server starts.\n"+
			"Exit 0 written, 2 usage error or the file exists without --force, 3 the file could not be written.\n\nflags:\n")
		set.PrintDefaults()
	}
	set.BoolVar(&o.yes, "yes", false, "answer yes to every question: replace each real path with {sandbox}/<name>")
	set.BoolVar(&o.force, "force", false, "overwrite the file when it exists")
	set.StringVar(&o.out, "out", "sealmark.yaml", "write to `FILE`")
	set.Var(&o.envs, "env", "give the server `NAME=VALUE` (repeatable; a secret-looking NAME or token-shaped VALUE goes to sandbox.keep_env, its value never into the file; a URL's password is never written)")
	return set, o
}

// initCmd writes a commented sealmark.yaml for the server command after --.
// Paths in the arguments and in --env values get {sandbox}/<name> offered
// instead: asked on a terminal, taken with --yes, otherwise kept with a
// comment above each. Exit 0 written, 2 usage error or the file exists
// without --force, 3 the file could not be written.
func initCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	set, o := initFlags(stderr)
	if err := parseFlags(set, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return report.ExitClean
		}
		return report.ExitUsage
	}
	yes, force, out, envs := o.yes, o.force, o.out, o.envs
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "sealmark init: "+format+"\n", a...)
		return code
	}
	argv := set.Args()
	if len(argv) == 0 || argv[0] == "" {
		return fail(2, "no server command: sealmark init [flags] -- COMMAND [ARGS...]")
	}
	if out == "" {
		return fail(2, "--out: want a file name")
	}
	var env []config.KV
	for _, e := range envs {
		name, value, ok := strings.Cut(e, "=")
		if !ok || name == "" || strings.ContainsRune(name, 0) {
			return fail(2, "--env: want NAME=VALUE") // never quote the entry: it may hold a secret
		}
		if i := slices.IndexFunc(env, func(kv config.KV) bool { return kv.Name == name }); i >= 0 {
			env[i].Value = value // a later --env replaces an earlier one, as for run
			continue
		}
		env = append(env, config.KV{Name: name, Value: value})
	}
	if _, err := os.Lstat(out); err == nil && !force {
		return fail(2, "%s exists; pass --force to overwrite it", out)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail(3, "the working directory: %v", err)
	}

	draft := &initDraft{command: argv[0], args: append([]string(nil), argv[1:]...)}
	withoutPasswords(draft, env, out, stderr)
	for _, p := range ownPrograms(draft, cwd) {
		fmt.Fprintf(stdout, "%s: %s → %s (the server's own %s, found here; the server runs in the sandbox root, where %s does not exist)\n",
			p.where, commentText(p.was), *p.slot, p.what, commentText(p.was))
	}
	uses := findPaths(draft, cwd)
	ask := !yes && interactive(stdin)
	answers := bufio.NewReader(stdin)
	for _, u := range uses {
		replace := yes
		if ask {
			fmt.Fprintf(stderr, "%s: %s\n  Use %s instead? [y/N] ", u.where, u.problem(), u.offer)
			replace = yesAnswer(answers)
		}
		if replace {
			*u.slot = u.prefix + u.offer
			staged := ""
			if u.dir && u.offer != "{sandbox}" {
				// The offer must exist in the sandbox: stage it, empty.
				dir := strings.TrimPrefix(u.offer, "{sandbox}/") + "/"
				if !slices.Contains(draft.dirs, dir) {
					draft.dirs = append(draft.dirs, dir)
				}
				staged = " (staged as an empty directory: server.files)"
			} else if u.offer != "{sandbox}" && hostpath.IsFile(u.path, cwd) {
				// Its content is not written into sealmark.yaml, a file meant to be committed.
				staged = " (not staged: its content stays out of " + commentText(out) + "; add it under server.files, or sealmark scan copies it read-only)"
			}
			fmt.Fprintf(stdout, "%s: %s → %s%s\n", u.where, commentText(u.path), u.offer, staged)
		} else {
			draft.notes[u.slot] = u.note()
		}
	}

	data := draft.render()
	if _, _, err := config.Parse(out, data); err != nil {
		// A bug in render, never the user's doing: say so rather than write a file sealmark refuses.
		return fail(3, "the file init wrote does not parse (a bug in sealmark init): %v", err)
	}
	if err := writeNew(out, data, force); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(2, "%s exists; pass --force to overwrite it", out)
		}
		return fail(3, "%v", err)
	}
	fmt.Fprintf(stdout, "wrote %s for %s; check it with: sealmark doctor --config %s\n", out, commentText(draft.command), out)
	return report.ExitClean
}

// writeNew writes data to path, refusing an existing file unless force.
func writeNew(path string, data []byte, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// yesAnswer reads one answer line (bounded) and reports whether it is y or yes.
func yesAnswer(r *bufio.Reader) bool {
	var line []byte
	for n := 0; n < 4096; n++ {
		c, err := r.ReadByte()
		if err != nil || c == '\n' {
			break
		}
		if len(line) < 16 {
			line = append(line, c)
		}
	}
	answer := strings.TrimSpace(string(line))
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}

// initDraft is the sealmark.yaml init writes. notes are the comments written
// above an argument or env value that kept its real path.
type initDraft struct {
	command string
	args    []string
	env     []config.KV
	keep    []string
	notes   map[*string]string
	dirs    []string // server.files entries that make an empty directory ("notes/")
}

// ownProgram is a relative path to the server's own program (a script, an
// executable, a project directory) that exists under the working
// directory, rewritten to {cwd}/...: the server runs in the sandbox root,
// where the relative path would not exist.
type ownProgram struct {
	where, was, what string
	slot             *string
}

// ownPrograms rewrites, in the draft's arguments, each relative path to
// the server's own program that exists under cwd to {cwd}/<path>
// (hostpath.OwnProgram), and returns what it rewrote.
func ownPrograms(d *initDraft, cwd string) []ownProgram {
	var out []ownProgram
	for i := range d.args {
		was := d.args[i]
		rewritten, what, ok := hostpath.OwnProgram(was, cwd)
		if !ok {
			continue
		}
		d.args[i] = rewritten
		_, p, _ := strings.Cut(was, "=")
		if !strings.HasPrefix(was, "-") {
			p = was
		}
		out = append(out, ownProgram{where: fmt.Sprintf("server.args[%d]", i), was: p, what: what, slot: &d.args[i]})
	}
	return out
}

// pathUse is one real path found in an argument or an --env value, and the
// {sandbox} path offered for it.
type pathUse struct {
	where    string  // "server.args[2]", "server.env MEMORY_FILE_PATH"
	slot     *string // the argument or value holding it
	prefix   string  // "--root=" when written as --opt=PATH, else ""
	path     string  // the path as written
	relative bool    // a relative path that exists in the working directory
	dir      bool    // the path is a directory on this machine: its offer is staged empty
	offer    string  // "{sandbox}/x", or "{sandbox}" for a directory such as "." or "/"
}

// problem is the question's explanation.
func (u pathUse) problem() string {
	if u.relative {
		return fmt.Sprintf("%s exists here, but the server runs in the sandbox root, where a relative path means %s, not ./%s on this machine", commentText(u.path), u.inSandbox(), commentText(strings.TrimPrefix(u.path, "./")))
	}
	return fmt.Sprintf("%s points at a real path on this machine; valid calls may read or write it", commentText(u.path))
}

// inSandbox is what a relative path means in the sandbox root.
func (u pathUse) inSandbox() string {
	clean := path.Clean(filepath.ToSlash(u.path))
	if clean == "." {
		return "{sandbox}"
	}
	return "{sandbox}/" + clean
}

// note is the comment kept above a path the user did not replace.
func (u pathUse) note() string {
	if u.relative {
		return fmt.Sprintf("sealmark init: %s is relative: the server runs in the sandbox root, so it means %s there; write {cwd}/%s for the real one (valid calls may read or write it)", commentText(u.path), u.inSandbox(), commentText(strings.TrimPrefix(u.path, "./")))
	}
	return fmt.Sprintf("sealmark init: %s points at a real path on this machine; consider %s", commentText(u.path), u.offer)
}

// findPaths finds the real paths in the draft's arguments and env values
// (never a bare word, save a path flag's or path variable's value) and
// offers {sandbox} for a directory on this machine (the server's root:
// the sandbox root, where the fs pack's layout lies) and a distinct
// {sandbox}/<name> for each other distinct path.
func findPaths(d *initDraft, cwd string) []pathUse {
	d.notes = map[*string]string{}
	var uses []pathUse
	offered := map[string]string{} // path → offer
	taken := map[string]bool{}
	add := func(where string, slot *string, named bool) {
		prefix, p, relative, ok := hostpath.Find(*slot, cwd)
		if !ok && named { // --config x, CONFIG_PATH=x: a bare word is a path here
			prefix = ""
			p, relative, ok = hostpath.FindNamed(*slot, cwd)
		}
		if !ok {
			return
		}
		offer, seen := offered[p]
		if !seen {
			// A directory is the server's root: the sandbox root, where the fs layout lies.
			offer = hostpath.Offer(p, cwd, taken)
			offered[p] = offer
		}
		dir := hostpath.WantsDir(p, cwd)
		uses = append(uses, pathUse{where: where, slot: slot, prefix: prefix, path: p, relative: relative, dir: dir, offer: offer})
	}
	for i := range d.args {
		add(fmt.Sprintf("server.args[%d]", i), &d.args[i], i > 0 && hostpath.PathFlag(d.args[i-1]))
	}
	for i := range d.env {
		add("server.env "+d.env[i].Name, &d.env[i].Value, hostpath.PathEnv(d.env[i].Name))
	}
	return uses
}

func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// commentText is s as it may appear on one comment line: quoted when it
// holds a line break or another control character.
func commentText(s string) string {
	if printable(s) {
		return s
	}
	return strconv.Quote(s)
}

// yamlString is s as a double-quoted YAML scalar (JSON's string syntax is
// YAML's), so {sandbox}, "yes", 8080 and ": " stay strings as written.
func yamlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// plainName matches a name YAML reads as the same string when written bare.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// yamlName is a variable name as a YAML key or list item: bare when that
// reads back as the same string, else quoted. "y", "no", "null" and the
// like are quoted, since YAML 1.1 readers take them for booleans or null.
func yamlName(name string) string {
	switch strings.ToLower(name) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return yamlString(name)
	}
	if plainName.MatchString(name) {
		return name
	}
	return yamlString(name)
}

// render writes the commented sealmark.yaml.
func (d *initDraft) render() []byte {
	var b strings.Builder
	line := func(indent, text string) { b.WriteString(indent + text + "\n") }
	note := func(indent string, slot *string) {
		if n, ok := d.notes[slot]; ok {
			line(indent, "# "+n)
		}
	}
	whole := commandLine(d)
	b.WriteString(`# sealmark.yaml: how Sealmark starts and tests this MCP server, written by
# "sealmark init" for: ` + commentText(whole) + `
# Check it with "sealmark doctor", then test with "sealmark run".
# Every key is described in docs/sealmark.schema.json. Later layers win: this
# file, then SEALMARK_* variables, then flags. --active and --yes are given on
# the command line only, never in this file.

server:
  # The stdio server's program: a name found on the sandbox's PATH (the
  # sandbox's bin, then your PATH without its relative entries), or a path
  # (a relative one resolves against the directory you run sealmark from).
`)
	line("  ", "command: "+yamlString(d.command))
	if len(d.args) > 0 {
		b.WriteString(`  # Its arguments. Placeholders expand: {sandbox} is the sandbox root (the
  # server's working directory, empty apart from Sealmark's own test files),
  # {sandbox_home} the server's HOME, {cwd} the directory you run sealmark from.
  args:
`)
		for i := range d.args {
			note("    ", &d.args[i])
			line("    ", "- "+yamlString(d.args[i]))
		}
	}
	b.WriteString(`  # The server's environment is built from scratch in the sandbox; server.env
  # adds variables on top. The report hides values under secret-looking names.
`)
	if len(d.env) > 0 {
		line("  ", "env:")
		for i := range d.env {
			note("    ", &d.env[i].Value)
			line("    ", yamlName(d.env[i].Name)+": "+yamlString(d.env[i].Value))
		}
	} else {
		b.WriteString(`  # env:
  #   LOG_LEVEL: "debug"
  #   MEMORY_FILE_PATH: "{sandbox}/memory.json"
`)
	}
	if len(d.dirs) > 0 {
		b.WriteString(`  # Small files written into the sandbox before the server starts (at most
  # 64 KiB each; placeholders expand in the content); a path ending in /
  # makes an empty directory, here for the paths offered above, so that
  # they exist when the server starts:
  files:
`)
		for _, dir := range d.dirs {
			line("    ", yamlString(dir)+": \"\"")
		}
		b.WriteString("\n")
	} else {
		b.WriteString(`  # Small files written into the sandbox before the server starts (at most
  # 64 KiB each; placeholders expand in the content; a path ending in /
  # makes an empty directory):
  # files:
  #   "config.json": "{\"debug\": false}"

`)
	}
	if len(d.keep) > 0 {
		quoted := make([]string, len(d.keep))
		for i, name := range d.keep {
			quoted[i] = yamlName(name)
		}
		b.WriteString(`sandbox:
  # Variables copied from your environment when they are set; everything else
  # of your environment stays behind. Secret-looking --env values given to
  # sealmark init are listed here, never written into this file: export them
  # before "sealmark run".
`)
		line("  ", "keep_env: ["+strings.Join(quoted, ", ")+"]")
		b.WriteString("  # max_mib: 1024\n" +
			"  # Containment layers to turn off, only to diagnose a server that cannot\n" +
			"  # run contained (landlock, seccomp, namespaces, cgroup, fsize, quota, secrets); the run\n" +
			"  # becomes CUSTOM:\n" +
			"  # layers_off: [\"landlock\"]\n\n")
	} else {
		b.WriteString(`# Variables copied from your environment when they are set (everything else
# of your environment stays behind), the sandbox's size limit, and the
# containment layers to turn off, only to diagnose a server that cannot run
# contained (landlock, seccomp, namespaces, cgroup, fsize, quota, secrets; the run becomes
# CUSTOM):
# sandbox:
#   keep_env: ["HTTP_PROXY", "HTTPS_PROXY"]
#   max_mib: 1024
#   layers_off: ["landlock"]

`)
	}
	b.WriteString(`# The packs to run (default: every pack), and the lowest severity whose
# findings make the exit code 1 (low, medium, high or critical; default high):
# packs: ["core"]
# fail_on: "high"

# Machine-readable reports, besides the text report on standard output:
# report:
#   json: "sealmark-report.json"
#   sarif: "sealmark.sarif"
#   junit: "sealmark-junit.xml"
`)
	return []byte(b.String())
}
