package fs

import (
	"path"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// form is one way of naming a place outside the root. Each form makes a
// read-side probe and a write-side probe. Paths are templates: {sandbox} is
// the root, {sandbox_top} the sandbox top (the root's parent), {new} a fresh
// name carrying the probe's token.
type form struct {
	key      string // kebab-case: read-<key>, write-<key>
	id       string // FS-READ-<id>, FS-WRITE-<id>
	what     string // the form in words, for docs
	class    string // the CVE class it covers
	cwe      string
	needs    string // "link-dir" or "link-file": the sandbox link the form needs
	relative bool   // the paths are relative, so the controls are too

	files []string // existing files outside the root (read, read-many, stat; edit, delete, move's source)
	dirs  []string // directories outside the root (list, search)
	walks []string // directories inside the root whose recursive walk must stay inside (search, tree)
	news  []string // names outside the root a write would create (write, mkdir, move's destination, link)
}

const (
	containment = "CVE-2025-53110 class"
	linkClass   = "CVE-2025-53109 class"
)

var forms = []form{
	{
		key: "traversal", id: "TRAVERSAL", class: containment, cwe: "CWE-22",
		what:  "a ../ or absolute path, also with ./ and // segments and a trailing /.",
		files: []string{"{sandbox}/../canary/secret.txt", "{sandbox_top}/canary/id_rsa", "{sandbox}/./../canary/./secret.txt", "{sandbox}//..//canary//id_rsa"},
		dirs:  []string{"{sandbox}/../canary", "{sandbox_top}/canary", "{sandbox}/../canary/.", "{sandbox}//..//canary//"},
		news:  []string{"{sandbox}/../canary/{new}", "{sandbox_top}/canary/{new}", "{sandbox}/../{new}", "{sandbox}/./..//canary/./{new}"},
	},
	{
		key: "relative", id: "RELATIVE", class: containment, cwe: "CWE-22", relative: true,
		what:  "a relative ../ path (the root is also the server's working directory)",
		files: []string{"../canary/secret.txt", "./../canary/id_rsa", "missing/../../canary/secret.txt"},
		dirs:  []string{"../canary", "./../canary/"},
		news:  []string{"../canary/{new}", "../{new}"},
	},
	{
		key: "prefix-sibling", id: "PREFIX-SIBLING", class: containment, cwe: "CWE-22",
		what:  "the sibling {sandbox}-evil, whose name starts with the root's (a prefix-only check)",
		files: []string{"{sandbox}-evil/evil.txt"},
		dirs:  []string{"{sandbox}-evil"},
		news:  []string{"{sandbox}-evil/{new}"},
	},
	{
		key: "link-file", id: "LINK-FILE", class: linkClass, cwe: "CWE-59", needs: "link-file",
		what:  "root/link-file, a link to a file outside the root",
		files: []string{"{sandbox}/link-file"},
		news:  []string{"{sandbox}/link-file"},
	},
	{
		key: "link-dir", id: "LINK-DIR", class: linkClass, cwe: "CWE-59", needs: "link-dir",
		what:  "root/link-dir, a link to a directory outside the root (and walks into it, for listings)",
		files: []string{"{sandbox}/link-dir/secret.txt"},
		dirs:  []string{"{sandbox}/link-dir", "{sandbox}/link-dir/"},
		walks: []string{"{sandbox}"},
		news:  []string{"{sandbox}/link-dir/{new}"},
	},
	{
		key: "encoded-dots", id: "ENCODED-DOTS", class: containment, cwe: "CWE-177",
		what: "percent-encoded and double-encoded ../ segments",
		files: []string{"{sandbox}/%2e%2e/canary/secret.txt", "{sandbox}/%2E%2E/canary/id_rsa", "{sandbox}/..%2fcanary%2fsecret.txt",
			"{sandbox}/%2e%2e%2fcanary%2fid_rsa", "%2e%2e/canary/secret.txt", "{sandbox}/%252e%252e/canary/secret.txt"},
		dirs: []string{"{sandbox}/%2e%2e/canary", "{sandbox}/%252e%252e/canary"},
		news: []string{"{sandbox}/%2e%2e/canary/{new}", "{sandbox}/..%2fcanary%2f{new}"},
	},
	{
		key: "backslash", id: "BACKSLASH", class: containment, cwe: "CWE-22",
		what:  `backslashes and mixed separators (..\ and /..\)`,
		files: []string{`..\canary\secret.txt`, `{sandbox}/..\canary/id_rsa`, `{sandbox}\..\canary\secret.txt`},
		dirs:  []string{`..\canary`, `{sandbox}/..\canary`},
		news:  []string{`..\canary\{new}`, `{sandbox}/..\canary\{new}`},
	},
	{
		key: "nul-byte", id: "NUL-BYTE", class: containment, cwe: "CWE-158",
		what:  "a NUL byte, after which the checked path returns into the root",
		files: []string{"{sandbox}/../canary/secret.txt\x00/../../root/ok.txt", "../canary/id_rsa\x00/../../root/ok.txt"},
		dirs:  []string{"{sandbox}/../canary\x00/../root"},
		news:  []string{"{sandbox}/../canary/{new}\x00/../../root/{new}"},
	},
	{
		key: "home", id: "HOME", class: containment, cwe: "CWE-22",
		what:  "~, $HOME and ${HOME} paths (the server's HOME is outside its root)",
		files: []string{"~/../canary/secret.txt", "$HOME/../canary/id_rsa", "${HOME}/../canary/secret.txt"},
		dirs:  []string{"~/../canary", "$HOME/../canary"},
		news:  []string{"~/{new}", "~/../canary/{new}", "$HOME/{new}"},
	},
	{
		key: "file-uri", id: "FILE-URI", class: containment, cwe: "CWE-22",
		what:  "file:// URIs, with and without localhost",
		files: []string{"file://{sandbox_top}/canary/secret.txt", "file://localhost{sandbox_top}/canary/id_rsa", "file://{sandbox}/../canary/secret.txt"},
		dirs:  []string{"file://{sandbox_top}/canary"},
		news:  []string{"file://{sandbox_top}/canary/{new}"},
	},
}

// target is one path a probe sends.
type target struct {
	shown string // for messages: the template, {sandbox} names kept
	value string // what the server gets
}

// expand fills a template for this sandbox; name replaces {new}.
func expand(sb *packs.Sandbox, tmpl, name string) target {
	r := strings.NewReplacer("{sandbox_top}", sb.Top, "{sandbox}", sb.Root, "{new}", name)
	return target{shown: strings.ReplaceAll(tmpl, "{new}", name), value: r.Replace(tmpl)}
}

// asURI turns a target into a file:// URI for tools whose argument is a
// URI; false when it cannot be one (a relative or home path).
func asURI(t target) (target, bool) {
	switch {
	case strings.HasPrefix(t.value, "file:"):
		return t, true
	case strings.HasPrefix(t.value, "/"):
		return target{shown: "file://" + t.shown, value: "file://" + t.value}, true
	}
	return t, false
}

// reaches names the canary file (by its name below the top) a file
// template leads to, or "".
func reaches(sb *packs.Sandbox, tmpl string) packs.Secret {
	t, _, _ := strings.Cut(tmpl, "\x00")
	t = strings.NewReplacer(`\`, "/", "%2f", "/", "%2F", "/").Replace(t)
	base := path.Base(t)
	if base == "link-file" {
		base = "secret.txt"
	}
	for _, f := range sb.Files {
		if path.Base(f.Name) == base {
			return f
		}
	}
	return packs.Secret{}
}
