// Package layout names the sandbox's directories, once, for the sandbox
// that makes them, the observers that watch them and the packs that judge
// what changed in them.
//
//	root := filepath.Join(top, layout.Root) // the server's working directory
//	for _, d := range layout.Watched { ... } // what the files observer snapshots
package layout

// The directories of a sandbox, under its top.
const (
	Root     = "root"      // the server's root and working directory ({sandbox})
	RootEvil = "root-evil" // a sibling whose name shares root's prefix
	Canary   = "canary"    // secrets outside the root
	Home     = "home"      // the server's HOME ({sandbox_home})
	Tmp      = "tmp"       // the server's TMPDIR
	Bin      = "bin"       // the harness's sm-* programs; never watched
)

// Watched are the directories the files observer watches and the packs
// restore: every one but Bin, which the harness owns.
var Watched = []string{Root, RootEvil, Canary, Home, Tmp}
