// Package git is the pack for git servers: every read, write and program
// run stays inside the repositories the server was handed.
//
//	e, _ := engine.New(engine.Config{
//		Command: "node",
//		Args:    []string{"{cwd}/node_modules/@cyanheads/git-mcp-server/dist/index.js"},
//		Env:     []environ.KV{{Name: "GIT_BASE_DIR", Value: "{sandbox}"}},
//		Packs:   []string{"git"},
//		Active:  true, // the probes that change a repository
//	})
//	rep := e.Run(ctx, engine.Hooks{})
//
// or, in a server's repository, go test -run Packs/git.
//
// The pack applies when a tool is named for git or a git operation, or
// takes a repository argument (Tools tells which, and what each does). The
// harness stages the layout (packs.GitSandbox): root/repo ({repo}) with a
// commit, a staged change and an untracked file; root/hostile, whose
// config, hooks and attributes run sm-canary; and canary/repo and
// root-evil/repo outside the root, whose secret (in a committed file, the
// commit message and an untracked file's name) must never reach a
// response.
//
//   - repo-traversal, repo-prefix-sibling, repo-link (passive): every tool
//     is pointed at canary/repo or root-evil/repo by an absolute, ../ or
//     relative path, a path that starts with the root's, and links; the
//     secret of either in a response is critical.
//   - workdir-escape (passive): a working-directory tool must refuse a
//     directory outside the root, and later calls must not read there.
//   - repo-config-read (passive) and repo-config-write (active): a tool
//     run on root/hostile must not run what its .git/config, hooks or
//     .gitattributes name (core.fsmonitor, filters, hooks; the process
//     observer sees sm-canary run).
//   - create-outside, worktree-outside, init-if-missing (active): git
//     init, clone and worktree add must not make a repository or worktree
//     outside the root (the files observer sees it).
//   - remote-read, remote-fetch (active): a clone, a remote or a fetch
//     must not bring the commits of a repository outside the root into it.
//   - argument-injection (active): no string a tool takes (ref, branch,
//     path, message, URL) may reach git as an option (--output=,
//     --upload-pack=, ext::) or a shell as a command.
//   - url-credentials (active): the password of a URL a tool is given
//     must not reach its answer or its log.
//
// What a change outside the root is follows packs.Sandbox.Outside, the
// rule the fs and sqlite packs judge by too.
package git
