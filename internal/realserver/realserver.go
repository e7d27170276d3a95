// Package realserver finds the pinned real MCP servers the tests run. Each
// lives in its own directory under testdata/npm with its own package.json
// and package-lock.json, exactly what npx gives a user (a shared tree would
// resolve other versions of their dependencies), installed by .ci/run with
// npm ci.
//
//	script := realserver.Filesystem062.Script(t) // skips when not installed
//	sealmarktest.Server(t, sealmarktest.Config{Command: "node", Args: []string{script, "{sandbox}"}})
//
// Adding a server: make testdata/npm/<dir>/package.json naming the one
// package at an exact version, run npm install there to write the lock,
// and add a Server value here; .ci/run installs every directory.
package realserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Server is one pinned real server: the directory under testdata/npm, the
// npm package it installs and the script that starts it, relative to the
// package.
type Server struct {
	Dir     string // under testdata/npm
	Package string // the npm package name
	Entry   string // the entry script, relative to the package directory
}

// The pinned servers.
var (
	Filesystem062    = Server{"fs-0.6.2", "@modelcontextprotocol/server-filesystem", "dist/index.js"}
	FilesystemLatest = Server{"fs-2026.8.31", "@modelcontextprotocol/server-filesystem", "dist/index.js"}
	Everything       = Server{"everything", "@modelcontextprotocol/server-everything", "dist/index.js"}
	Postgres062      = Server{"postgres-0.6.2", "@modelcontextprotocol/server-postgres", "dist/index.js"}
	GitHubMCP        = Server{"github-mcp-server-1.8.7", "github-mcp-server", "dist/index.js"}
	MCPGit           = Server{"mcp-git-0.0.4", "mcp-git", "dist/cli.js"}
	DesktopCommander = Server{"desktop-commander-0.2.52", "@wonderwhy-er/desktop-commander", "dist/index.js"}
	ShellServer      = Server{"mcp-shell-server-2.7.1", "@mako10k/mcp-shell-server", "dist/index.js"}
	Fetch            = Server{"fetch-1.1.2", "mcp-fetch-server", "dist/index.js"}
	SQLite           = Server{"sqlite-1.0.9", "mcp-sqlite", "mcp-sqlite-server.js"}
	DatabaseServer   = Server{"database-server-1.1.0", "@executeautomation/database-server", "dist/src/index.js"}
	// Supergateway is no MCP server of its own: the HTTP bridge a user puts
	// in front of a stdio server (--stdio CMD --outputTransport
	// streamableHttp), as the db pack's HTTP run does.
	Supergateway = Server{"supergateway-4.0.0", "supergateway", "dist/index.js"}
)

// SARIFSchema is the official SARIF 2.1.0 JSON Schema, shipped by a pinned
// npm package installed the same way.
var SARIFSchema = Server{"sarif-schema", "@microsoft/jest-sarif", "lib/schemas/sarif-2.1.0-rtm.5.json"}

// SARIFMultitool is Microsoft's SARIF multitool, whose validate command
// with the GitHub rules (--rule-kind Gh) checks what code scanning needs:
// the linux build, a self-contained .NET program shipped in the npm package
// @microsoft/sarif-multitool-linux, an optional dependency of the pinned
// @microsoft/sarif-multitool.
var SARIFMultitool = Server{"sarif-multitool", "@microsoft/sarif-multitool-linux", "Sarif.Multitool"}

// Root is the module root: the nearest directory above the working
// directory holding go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Path is the absolute path of the entry script (or file), whether or not
// it is installed.
func (s Server) Path() (string, error) {
	root, err := Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "testdata", "npm", s.Dir, "node_modules", filepath.FromSlash(s.Package), filepath.FromSlash(s.Entry)), nil
}

// Installed reports whether the entry is there, and why not.
func (s Server) Installed() (string, error) {
	p, err := s.Path()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return p, fmt.Errorf("%s is not installed: run npm ci in testdata/npm/%s, as .ci/run does", s.Package, s.Dir)
	} else if err != nil {
		return p, err
	}
	return p, nil
}

// Script returns the absolute path of the entry script, skipping t with the
// reason when node or the package is missing.
func (s Server) Script(t testing.TB) string {
	t.Helper()
	if !strings.HasSuffix(s.Entry, ".json") {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skipf("node is not on PATH: the real server %s cannot run", s.Package)
		}
	}
	p, err := s.Installed()
	if err != nil {
		t.Skip(err.Error())
	}
	return p
}

// CwdArg returns the entry script as a {cwd} template ("{cwd}/../../testdata/npm/..."),
// so reports show it without the checkout's real path; it skips t like Script.
func (s Server) CwdArg(t testing.TB) string {
	t.Helper()
	p := s.Script(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, p)
	if err != nil {
		t.Fatal(err)
	}
	return "{cwd}/" + filepath.ToSlash(rel)
}
