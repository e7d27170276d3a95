package fs

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// Role is what a tool does with the path it takes.
type Role string

// The roles the fs pack probes. The read side runs on every run; the write
// side (Write to Link) only on active runs.
const (
	Read     Role = "read"      // returns a file's content
	ReadMany Role = "read-many" // returns several files' content (a paths[] argument)
	List     Role = "list"      // lists a directory; a tree tool lists it recursively
	Search   Role = "search"    // walks a directory for names matching a pattern
	Stat     Role = "stat"      // returns a file's metadata
	Write    Role = "write"     // creates or overwrites a file with content
	Edit     Role = "edit"      // replaces text in an existing file
	Mkdir    Role = "mkdir"     // creates a directory
	Move     Role = "move"      // moves or renames (source, destination)
	Delete   Role = "delete"    // removes a file
	Link     Role = "link"      // creates a link (the link's path, its target)
)

// Writes reports whether the role changes the file system.
func (r Role) Writes() bool {
	switch r {
	case Write, Edit, Mkdir, Move, Delete, Link:
		return true
	}
	return false
}

// Hint overrides the guess for one tool: its role and which arguments carry
// paths. It is how per-pack hints in configuration reach the pack; see
// Hinted.
type Hint struct {
	Tool string // the tool's name
	Role Role   // the tool's role; "" leaves the tool unprobed
	Path string // the argument carrying the path (paths[] for ReadMany, the source for Move, the link for Link); "" guesses
	To   string // Move: the destination; Link: the target; "" guesses
}

// Tool is one tool as the fs pack probes it: its role and the names of the
// arguments it fills. Other required arguments are synthesized from the
// input schema.
type Tool struct {
	Name      string
	Role      Role
	Path      string // the argument carrying the path
	To        string // Move: the destination argument; Link: the target argument
	Pattern   string // Search: the pattern argument, if any
	Content   string // Write: the content argument, if any
	Edits     string // Edit: the array of {old, new} objects, or ""
	Old, New  string // Edit: the old and new text properties (of Edits' items, or top-level)
	URI       bool   // the path argument takes file:// URIs
	Recursive bool   // List: a tree tool, listing below the directory too
	Schema    json.RawMessage
	Hinted    bool // a hint named the tool's role: a failed control leaves its probes inconclusive
	// How says how the role and arguments were found when the schema did
	// not tell them ("" when it did, or a hint did).
	How string
}

// Argument names, normalized, by what they carry.
var (
	pathNames    = []string{"path", "file", "filename", "filepath", "fullpath", "uri", "fileuri", "dir", "directory", "dirpath", "folder", "location"}
	pathSuffixes = []string{"path", "file", "filename", "filepath", "dir", "dirpath", "directory", "folder", "uri"}
	manyNames    = []string{"paths", "files", "filepaths", "filenames", "uris"}
	sourceNames  = []string{"source", "src", "from", "oldpath", "sourcepath", "frompath", "oldname", "path"}
	destNames    = []string{"destination", "dest", "dst", "to", "newpath", "destinationpath", "destpath", "topath", "newname", "target"}
	targetNames  = []string{"target", "targetpath", "pointsto", "existingpath", "source", "src"}
	linkNames    = []string{"path", "linkpath", "link", "linkname", "destination", "dest", "newpath"}
	patternNames = []string{"pattern", "query", "glob", "regex", "search", "term", "q", "filter", "match", "name"}
	contentNames = []string{"content", "contents", "text", "data", "body", "value"}
	oldNames     = []string{"oldtext", "old", "oldstring", "oldstr", "search", "find", "from", "before", "original"}
	newNames     = []string{"newtext", "new", "newstring", "newstr", "replace", "replacement", "to", "after"}
)

// pick returns the first string property whose normalized name is in names
// (in the order of names), skipping those already taken.
func pick(props []packs.Prop, names []string, taken ...string) string {
	for _, n := range names {
		for _, p := range props {
			if p.Text() && p.Norm == n && !slices.Contains(taken, p.Name) {
				return p.Name
			}
		}
	}
	return ""
}

// pathArg is the argument of a single-path tool: a name from pathNames, or
// one whose last word is a path's (filePath, target_dir; not profile),
// preferring required ones.
func pathArg(props []packs.Prop) string {
	if p := pick(props, pathNames); p != "" {
		return p
	}
	for _, req := range []bool{true, false} {
		for _, p := range props {
			if !p.Text() || p.Required != req {
				continue
			}
			if ws := packs.Words(p.Name); len(ws) > 0 && slices.Contains(pathSuffixes, ws[len(ws)-1]) {
				return p.Name
			}
		}
	}
	return ""
}

func hasAny(ws []string, names ...string) bool {
	for _, w := range ws {
		if slices.Contains(names, w) {
			return true
		}
	}
	return false
}

// roleByName guesses a role from the tool's name alone, or "".
func roleByName(name string) (Role, bool) {
	ws := packs.Words(name)
	creates := hasAny(ws, "create", "make", "new", "add", "ensure")
	switch {
	case hasAny(ws, "symlink", "ln") || hasAny(ws, "link") && creates:
		return Link, false
	case hasAny(ws, "move", "mv", "rename"):
		return Move, false
	case hasAny(ws, "delete", "remove", "rm", "unlink", "trash", "del", "rmdir"):
		return Delete, false
	case hasAny(ws, "mkdir", "mkdirs") || creates && hasAny(ws, "directory", "dir", "folder", "directories", "folders"):
		return Mkdir, false
	case hasAny(ws, "edit", "patch", "replace", "modify", "update"):
		return Edit, false
	case hasAny(ws, "write", "save", "put", "append", "touch") || creates && hasAny(ws, "file"):
		return Write, false
	case hasAny(ws, "search", "find", "glob", "grep", "locate"):
		return Search, false
	case hasAny(ws, "tree"):
		return List, true
	case hasAny(ws, "list", "ls", "readdir", "browse", "dir"):
		return List, false
	case hasAny(ws, "info", "stat", "stats", "metadata", "exists", "size"):
		return Stat, false
	case hasAny(ws, "read", "cat", "get", "view", "open", "show", "head", "tail", "load", "fetch", "download", "contents", "content"):
		return Read, false
	}
	return "", false
}

// Tools finds the path-taking tools of a surface and their roles: a hint
// decides for the tool it names; otherwise the name, the annotations
// (readOnlyHint keeps a tool on the read side) and the input schema do.
// Tools that take no path, or whose role cannot be told, are left out, and
// so are those Pending lists.
func Tools(s *packs.Surface, hints []Hint) []Tool {
	ready, _ := classify(s, hints)
	return ready
}

// Pending lists the tools whose role their name, title, description or a
// hint tells but whose input schema names no arguments: the probes learn
// their argument names from the server (a call with no arguments) before
// using them. Role and How are set; the argument names are not.
func Pending(s *packs.Surface, hints []Hint) []Tool {
	_, pending := classify(s, hints)
	return pending
}

func classify(s *packs.Surface, hints []Hint) (ready, pending []Tool) {
	for _, t := range s.Tools {
		if t.Name == "" {
			continue
		}
		var ft Tool
		var ok bool
		if i := slices.IndexFunc(hints, func(h Hint) bool { return h.Tool == t.Name }); i >= 0 {
			if hints[i].Role == "" {
				continue
			}
			if ft, ok = fromHint(t, hints[i]); !ok && schemaless(t.InputSchema) {
				pending = append(pending, Tool{Name: t.Name, Role: hints[i].Role, Path: hints[i].Path, To: hints[i].To, How: "the hint", Schema: t.InputSchema, Hinted: true})
				continue
			}
		} else {
			ft, ok = guess(t)
			if !ok && schemaless(t.InputSchema) {
				if role, recursive, how := inferRole(t); role != "" {
					pending = append(pending, Tool{Name: t.Name, Role: role, Recursive: recursive, How: how, Schema: t.InputSchema})
				}
				continue
			}
		}
		if ok {
			ready = append(ready, ft)
		}
	}
	return ready, pending
}

// guess tells a tool's role from its name (or its readOnlyHint) and its
// path arguments from the input schema, among the arguments that may carry
// a path on this machine (see pathCandidates).
func guess(t packs.Tool) (Tool, bool) {
	props := packs.Props(t.InputSchema)
	role, recursive := roleByName(t.Name)
	readOnly := t.Annotations.ReadOnlyHint != nil && *t.Annotations.ReadOnlyHint
	if role == "" && t.ReadOnly() {
		role = Read
	}
	if role.Writes() && readOnly {
		role = Read // the server says it only reads: probe it as a reader
	}
	if role == "" {
		return Tool{}, false
	}
	ft := Tool{Name: t.Name, Role: role, Recursive: recursive, Schema: t.InputSchema}
	ft, ok := complete(ft, props, pathCandidates(t, props))
	if !ok || !optionalPathOK(t, ft.Path, props) {
		return Tool{}, false
	}
	return ft, true
}

// fileish reports whether the tool's name, title or description speaks of
// files, directories or paths.
func fileish(t packs.Tool) bool {
	return hasAny(packs.Words(t.Name+" "+cmpOr(t.Title, t.Annotations.Title)+" "+t.Description), fileWords...)
}

func fromHint(t packs.Tool, h Hint) (Tool, bool) {
	props := packs.Props(t.InputSchema)
	ft := Tool{Name: t.Name, Role: h.Role, Path: h.Path, To: h.To, Schema: t.InputSchema, Hinted: true}
	_, ft.Recursive = roleByName(t.Name)
	return complete(ft, props, props)
}

// complete finds the arguments the role needs, the path ones among paths
// (a subset of props); false when a needed one is missing.
func complete(ft Tool, props, paths []packs.Prop) (Tool, bool) {
	switch ft.Role {
	case Move:
		ft.Path = cmpOr(ft.Path, pick(paths, sourceNames))
		ft.To = cmpOr(ft.To, pick(paths, destNames, ft.Path))
	case Link:
		ft.To = cmpOr(ft.To, pick(paths, targetNames))
		ft.Path = cmpOr(ft.Path, pick(paths, linkNames, ft.To))
	case Read, ReadMany:
		if ft.Path == "" {
			ft.Path = pathArg(paths)
		}
		if many := manyArg(paths); ft.Path == "" && many != "" || ft.Role == ReadMany {
			ft.Role, ft.Path = ReadMany, cmpOr(ft.Path, many)
		}
	default:
		ft.Path = cmpOr(ft.Path, pathArg(paths))
	}
	if ft.Path == "" || (ft.Role == Move || ft.Role == Link) && ft.To == "" {
		return Tool{}, false
	}
	ft.URI = strings.Contains(packs.NormalizeName(ft.Path), "uri") || strings.Contains(packs.NormalizeName(ft.Path), "url")
	switch ft.Role {
	case Search:
		ft.Pattern = pick(props, patternNames, ft.Path)
	case Write:
		ft.Content = pick(props, contentNames, ft.Path)
	case Edit:
		ft.Edits, ft.Old, ft.New = editShape(props, ft.Path)
	}
	return ft, true
}

func manyArg(props []packs.Prop) string {
	for _, n := range manyNames {
		for _, p := range props {
			if p.TextList() && p.Norm == n {
				return p.Name
			}
		}
	}
	return ""
}

// editShape finds how an edit tool takes its replacement: an array of
// {old, new} objects, or two top-level strings.
func editShape(props []packs.Prop, path string) (arr, old, neu string) {
	for _, p := range props {
		if len(p.Items) == 0 {
			continue
		}
		items := packs.Props(p.Items)
		o, n := pick(items, oldNames), pick(items, newNames)
		if o != "" && n != "" {
			return p.Name, o, n
		}
	}
	o, n := pick(props, oldNames, path), pick(props, newNames, path)
	if o != "" && n != "" {
		return "", o, n
	}
	return "", "", ""
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
