package git

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// Op is what a git tool does, as far as the probes care.
type Op string

// The operations the git pack tells apart.
const (
	Read     Op = "read"     // reads a repository: status, log, diff, show, blame, grep, ...
	Write    Op = "write"    // changes a repository: commit, checkout, add, reset, branch, tag, ...
	Init     Op = "init"     // creates a repository at a path
	Clone    Op = "clone"    // copies a repository from a URL to a destination
	Worktree Op = "worktree" // adds a worktree at a path
	Export   Op = "export"   // writes a file: archive, bundle, format-patch
	Remote   Op = "remote"   // adds or changes a remote's URL
	Workdir  Op = "workdir"  // sets the directory later calls run in
)

// Tool is one tool as the git pack probes it.
type Tool struct {
	Name string
	Op   Op
	// Repo is the argument naming the repository or the directory the
	// command runs in; "" when the tool uses the server's own.
	Repo         string
	RepoRequired bool
	URL          string   // Clone, Remote: the source or remote URL argument
	Dest         string   // Clone, Worktree, Export: what is created; Workdir: the directory
	Refs         []string // the other string arguments that reach git: refs, branches, names, messages, paths
	Paths        string   // an array of paths (git add's files), or ""
	// Mode is the argument choosing what a many-mode tool does (git_remote
	// mode=list|add|remove, git_worktree mode=list|add|...), "" when the
	// tool does one thing; Modes are its values.
	Mode  string
	Modes []string
	// InitFlag is a boolean argument that has the tool run git init at
	// its path when no repository is there (initializeIfNotPresent), or "".
	InitFlag string
	Schema   json.RawMessage
}

// Argument names, normalized, by what they carry.
var (
	repoNames = []string{"repopath", "repo", "repository", "repositorypath", "repodir", "repositorydir", "gitdir", "directory",
		"dir", "cwd", "workingdir", "workdir", "workingdirectory", "projectpath", "project", "root", "path"}
	urlNames  = []string{"url", "repourl", "repositoryurl", "remoteurl", "source", "src", "from", "origin", "remote"}
	destNames = []string{"destination", "dest", "targetdir", "targetpath", "target", "localpath", "clonepath", "output",
		"outputpath", "outputdir", "outputfile", "file", "to", "directory", "dir", "path", "worktreepath"}
	pathsNames = []string{"files", "paths", "filepaths", "pathspec", "pathspecs"}
	// worktreeNames name a worktree's own path: a tool that has one takes
	// the repository in its plain "path".
	worktreeNames = []string{"worktreepath", "worktree", "worktreedir", "worktreedirectory"}
	modeNames     = []string{"mode", "action", "operation", "op", "command", "subcommand", "cmd"}
	gitWords      = []string{"git", "commit", "checkout", "clone", "rebase", "stash", "cherry", "blame", "bisect", "worktree",
		"fetch", "pull", "push", "merge", "reflog"}
	readWords = []string{"status", "log", "diff", "show", "blame", "grep", "describe", "reflog", "shortlog", "ls", "list",
		"get", "read", "view", "search", "info", "history", "rev", "parse"}
)

// Tools finds the git tools of a surface and what each does. A tool is a
// git tool when its name says git (or an operation only git has) or it
// takes a repository argument; the operation comes from its name and, for
// the read side, its readOnlyHint.
func Tools(s *packs.Surface) []Tool {
	var out []Tool
	for _, t := range s.Tools {
		if gt, ok := guess(t); ok {
			out = append(out, gt)
		}
	}
	return out
}

func guess(t packs.Tool) (Tool, bool) {
	ws := packs.Words(t.Name)
	args := packs.Props(t.InputSchema)
	gt := Tool{Name: t.Name, Schema: t.InputSchema}
	gt.Mode, gt.Modes = modeOf(args)
	gt.InitFlag = initFlag(args)
	gt.Op = opOf(ws, t, gt.Modes)
	taken := []string{}
	pick := func(names []string) string {
		for _, n := range names {
			for _, a := range args {
				if a.Text() && a.Norm == n && !slices.Contains(taken, a.Name) {
					taken = append(taken, a.Name)
					return a.Name
				}
			}
		}
		return ""
	}
	switch gt.Op {
	case Workdir:
		gt.Dest = pick(append([]string{"path", "directory", "dir", "cwd"}, repoNames...))
		if gt.Dest == "" {
			return Tool{}, false
		}
	case Clone:
		gt.URL = pick(urlNames)
		gt.Dest = pick(destNames)
		gt.Repo = pick(repoNames)
	case Remote:
		gt.URL = pick(urlNames)
		gt.Repo = pick(repoNames)
	case Worktree, Export:
		if gt.Op == Worktree {
			gt.Dest = pick(worktreeNames)
		}
		if gt.Dest != "" {
			gt.Repo = pick(repoNames) // git_worktree(path=repository, worktreePath=...)
			break
		}
		gt.Repo = pick(repoNames[:len(repoNames)-1]) // "path" is where the worktree or file goes
		gt.Dest = pick(destNames)
	default:
		gt.Repo = pick(repoNames)
	}
	for _, a := range args {
		switch {
		case a.TextList() && slices.Contains(pathsNames, a.Norm):
			gt.Paths = a.Name
		case a.Text() && !slices.Contains(taken, a.Name) && !fixed(a.Schema):
			gt.Refs = append(gt.Refs, a.Name)
		}
		if a.Name == gt.Repo {
			gt.RepoRequired = a.Required
		}
	}
	isGit := hasAny(ws, gitWords...) || gt.Repo != "" && slices.ContainsFunc(args, func(a packs.Prop) bool {
		return a.Name == gt.Repo && strings.Contains(a.Norm, "repo")
	})
	if !isGit {
		return Tool{}, false
	}
	return gt, true
}

// modeOf finds the argument that chooses a many-mode tool's operation: a
// string chosen from a list, named mode, action, operation or command.
func modeOf(args []packs.Prop) (string, []string) {
	for _, a := range args {
		if !a.Text() || !slices.Contains(modeNames, a.Norm) {
			continue
		}
		var p struct {
			Enum []any `json:"enum"`
		}
		if json.Unmarshal(a.Schema, &p) != nil || len(p.Enum) == 0 {
			continue
		}
		var modes []string
		for _, v := range p.Enum {
			if s, ok := v.(string); ok {
				modes = append(modes, s)
			}
		}
		return a.Name, modes
	}
	return "", nil
}

// initFlag finds a boolean argument that asks the tool to initialize a
// repository where there is none: initializeIfNotPresent, initIfMissing,
// initRepo, createIfMissing. A bare init is left out: it is also
// submodule update's --init.
func initFlag(args []packs.Prop) string {
	for _, a := range args {
		if a.Type != "boolean" || !strings.HasPrefix(a.Norm, "init") && !strings.HasPrefix(a.Norm, "create") {
			continue
		}
		for _, w := range []string{"notpresent", "missing", "notexist", "ifneeded", "ifnone", "repo"} {
			if strings.Contains(a.Norm, w) {
				return a.Name
			}
		}
	}
	return ""
}

// opMode is the mode a many-mode tool is called in for its operation:
// add for a worktree or remote tool; "" when the tool has no such mode.
func (t Tool) opMode() string {
	if (t.Op == Worktree || t.Op == Remote) && slices.Contains(t.Modes, "add") {
		return "add"
	}
	return ""
}

// opOf tells the operation from the tool's name words, its modes and its
// annotations.
func opOf(ws []string, t packs.Tool, modes []string) Op {
	switch {
	case hasAny(ws, "cd", "chdir") || hasAny(ws, "set", "change", "switch") && hasAny(ws, "working", "workdir", "cwd", "wd", "directory", "dir"):
		return Workdir
	case hasAny(ws, "clone"):
		return Clone
	case hasAny(ws, "worktree"):
		return Worktree
	case hasAny(ws, "init"):
		return Init
	case hasAny(ws, "archive", "bundle", "export") || hasAny(ws, "format") && hasAny(ws, "patch"):
		return Export
	case hasAny(ws, "remote") && (hasAny(ws, "add", "set", "url", "update") || slices.Contains(modes, "add")):
		return Remote
	}
	if h := t.Annotations.ReadOnlyHint; h != nil {
		if *h {
			return Read
		}
		return Write
	}
	if hasAny(ws, readWords...) && !hasAny(ws, "commit", "checkout", "add", "reset", "push", "pull", "merge", "rebase", "stash", "create", "delete", "remove", "tag", "branch", "switch", "restore", "rm", "mv", "apply", "revert", "fetch", "sync", "flow") {
		return Read
	}
	return Write
}

// fixed reports whether a property's value is chosen from a list (enum,
// const): no free text reaches git through it.
func fixed(schema json.RawMessage) bool {
	var p struct {
		Enum  []any `json:"enum"`
		Const any   `json:"const"`
	}
	return json.Unmarshal(schema, &p) == nil && (len(p.Enum) > 0 || p.Const != nil)
}

func hasAny(ws []string, names ...string) bool {
	for _, w := range ws {
		if slices.Contains(names, w) {
			return true
		}
	}
	return false
}
