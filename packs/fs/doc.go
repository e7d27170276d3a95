// Package fs is the pack for file servers: it proves that every read and
// every write stays inside the server's root.
//
//	e, _ := engine.New(engine.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "{sandbox}"},
//		Packs:   []string{"fs"},
//		Active:  true, // the write side
//	})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/fs.
//
// The pack applies when a tool takes a path (Tools tells which, and in
// which role: read, read-many, list, search, stat, write, edit, mkdir,
// move, delete, link); Hinted lets configuration decide instead of the
// guess. The guess takes an argument for a path on this machine only when
// the tool or the argument speaks of files, and never a sort direction, an
// enum, a project's or repository's path, or a path inside a hosted store
// another argument names (see pathCandidates), so an API server's sort_dir,
// projectPath or repository file path is no file tool. For each way of naming a place outside the root — a form: ../ and
// absolute paths, relative ../, the root-evil prefix sibling
// (CVE-2025-53110 class), root/link-file and root/link-dir (CVE-2025-53109
// class), percent-encoded dots, backslashes, a NUL byte, ~ and $HOME, and
// file:// URIs — there are two probes:
//
//   - read-<form> (passive): every read, read-many and stat tool on the
//     form's files, every list and search tool on its directories. Oracle:
//     a canary file's content in the response (critical), or a canary
//     file's name in a listing or its size in a stat (high).
//   - write-<form> (active): every write, mkdir and link tool at a new name
//     outside the root, every move out to it and in from a canary, every
//     edit and delete on a canary. Oracle: the files observer sees a change
//     outside root/ (root-evil, canary, the probe's names in home and tmp),
//     or the harness finds a canary file changed or the probe's name at the
//     sandbox top (critical).
//
// link-create (active) asks each link tool for a link in the root pointing
// out, then reads and writes through it.
//
// A tool whose input schema names no arguments (a server whose schema
// converter failed) is still a file tool when its name, title or
// description says so (Pending): its role comes from those words, its
// argument names from the server's refusal of a call with no arguments
// (zod's issue list, "path: Required", pydantic's "Field required",
// "missing required argument 'path'"), and the probe's notes say so. One
// whose arguments cannot be learned is reported, never silently skipped.
//
// Every probe first runs a control per tool (read root/ok.txt and get its
// token, list the root and see ok.txt, write inside the root and see it
// land). A guessed tool that fails its control is left out as no file
// tool, with a note, and later probes of the start do not call it again;
// when that leaves no tool, the probe is not applicable with the reason. A
// hinted tool that fails its control, or a tool that cannot be probed, is
// left out with a note and the other tools' calls count; when no tool
// could be probed the probe is inconclusive, not a pass. The harness restores the sandbox (canary contents, ok.txt, the
// links, and nothing left with the probe's token) before each probe and
// after every write that changed it, so every probe starts from the same
// sandbox.
package fs
