package fs

import (
	"encoding/json"
	"slices"

	"github.com/sealmark/sealmark/packs"
)

// What makes an argument a path on this machine. A name alone is not
// enough: API servers name a sort direction sort_dir, a project's slug
// projectPath, a file in a hosted repository path, and an attachment's name
// file_name. An argument is taken for a path only when
//
//   - its name reads as one (path, file, dir, uri... as its last word), it
//     takes free text (no enum or const), and it is no sort direction or
//     order (a *_dir that says direction, ascending or descending);
//   - it does not name a store rather than a file (projectPath, repo_path,
//     namespace_path: the path of a project or repository);
//   - something speaks of files: its own name (file, dir, folder), or,
//     for path, uri and location, which also name URLs, API routes and
//     places, the tool's name, title or description or the argument's
//     description (file, directory, folder, disk, local, filesystem...);
//   - the file is on this machine: no other argument names a hosted store
//     the path lives in (an owner, a repo, a project, a bucket, or an id
//     of one), unless the argument itself says local, on disk, absolute
//     or the file system.
//
// And a tool whose path argument is optional is a file tool only when its
// name or title speaks of files: an optional output file of a browser or
// a cluster tool is not what the tool does.

// fileTalk are the words that speak of files and directories on a disk.
var fileTalk = []string{"file", "files", "filename", "filenames", "filepath", "filepaths", "filesystem", "fs",
	"directory", "directories", "dir", "dirs", "folder", "folders", "disk", "local", "locally",
	"mkdir", "rmdir", "readdir", "ls", "rm", "cat", "symlink", "symlinks"}

// fileNames are the words of an argument's name that say it holds a file
// or a directory by itself (filePath, target_dir, file_name).
var fileNames = []string{"file", "files", "filename", "filenames", "filepath", "filepaths", "dir", "dirpath", "directory", "folder"}

// localTalk are the words that place a path on this machine.
var localTalk = []string{"local", "locally", "disk", "filesystem", "absolute", "cwd", "machine"}

// storeWords name a hosted store a path lives in, in an argument's name;
// an argument whose name ends in id or slug names one too.
var storeWords = []string{"owner", "repo", "repository", "project", "bucket", "namespace", "org", "organization"}

// directionTalk says a *_dir argument is a direction, not a directory.
var directionTalk = []string{"direction", "asc", "ascending", "desc", "descending", "sort", "order"}

// pathCandidates are the properties of the tool that may carry a path on
// this machine, by the rules above.
func pathCandidates(t packs.Tool, props []packs.Prop) []packs.Prop {
	toolWords := packs.Words(t.Name + " " + cmpOr(t.Title, t.Annotations.Title) + " " + t.Description)
	remote := slices.ContainsFunc(props, store)
	var out []packs.Prop
	for _, p := range props {
		if !p.Text() && !p.TextList() || fixedChoice(p) || store(p) {
			continue
		}
		name := packs.Words(p.Name)
		own := slices.Concat(name, packs.Words(p.Description))
		switch {
		case hasAny(name, "sort", "order") || hasAny(name, "dir") && hasAny(packs.Words(p.Description), directionTalk...):
			continue // a sort direction
		case !hasAny(name, fileNames...) && !hasAny(toolWords, fileTalk...) && !hasAny(packs.Words(p.Description), fileTalk...):
			continue // a path, uri or location the tool never says is a file's
		case remote && !hasAny(own, localTalk...):
			continue // a path inside the hosted store another argument names
		}
		out = append(out, p)
	}
	return out
}

// store reports whether the property names a hosted store or a thing in
// one (owner, repo, project_id, bucket, page_id) or the path of a store
// (projectPath, repo_path), unless its description places it on this
// machine ("absolute path to the project directory").
func store(p packs.Prop) bool {
	ws := packs.Words(p.Name)
	if !hasAny(ws, storeWords...) && (len(ws) == 0 || !hasAny(ws[len(ws)-1:], "id", "ids", "slug")) {
		return false
	}
	return !hasAny(packs.Words(p.Description), slices.Concat(localTalk, []string{"directory", "folder"})...)
}

// fixedChoice reports whether the property takes one of fixed values (an
// enum or a const), which no sandbox path is.
func fixedChoice(p packs.Prop) bool {
	var s struct {
		Enum  []json.RawMessage `json:"enum"`
		Const json.RawMessage   `json:"const"`
	}
	_ = json.Unmarshal(p.Schema, &s)
	return len(s.Enum) > 0 || len(s.Const) > 0
}

// optionalPathOK reports whether the tool may be a file tool although its
// path argument is optional: its name or title speaks of files.
func optionalPathOK(t packs.Tool, path string, props []packs.Prop) bool {
	i := slices.IndexFunc(props, func(p packs.Prop) bool { return p.Name == path })
	if i < 0 || props[i].Required {
		return true
	}
	return hasAny(packs.Words(t.Name+" "+cmpOr(t.Title, t.Annotations.Title)), fileTalk...)
}

// hostedTalk reports whether a tool whose schema lists no arguments says it
// works on a hosted store ("a file in a GitLab project", "from a GitHub
// repository") and never on this machine.
func hostedTalk(t packs.Tool) bool {
	ws := packs.Words(cmpOr(t.Title, t.Annotations.Title) + " " + t.Description)
	return hasAny(ws, storeWords...) && !hasAny(ws, localTalk...)
}

// surfaceTool is the tool of the surface with the name.
func surfaceTool(s *packs.Surface, name string) packs.Tool {
	if s != nil {
		for _, t := range s.Tools {
			if t.Name == name {
				return t
			}
		}
	}
	return packs.Tool{Name: name}
}
