// Package version says which Sealmark is running, from the build
// information the Go toolchain records in every binary, so a report names
// a released version ("v1.4.0") or the commit a development build came
// from ("devel-3f1c0e9a7b2d-dirty") rather than always "dev".
//
//	fmt.Println("sealmark", version.String())
package version

import "runtime/debug"

// Module is Sealmark's module path.
const Module = "github.com/sealmark/sealmark"

// String is the running Sealmark's version: the module's version when the
// binary was built from a released module (go install ...@v1.4.0, or a go
// test binary of a repository that requires Sealmark), "devel-<commit>"
// (with "-dirty" for uncommitted changes) for a build from a checkout, and
// "dev" when neither is known.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo is String for the given build information.
func FromBuildInfo(bi *debug.BuildInfo) string {
	mod := &bi.Main
	if mod.Path != Module {
		mod = nil
		for _, d := range bi.Deps {
			if d.Path == Module {
				mod = d
				if d.Replace != nil && d.Replace.Version != "" {
					mod = d.Replace
				}
				break
			}
		}
		if mod == nil {
			return "dev"
		}
	}
	if v := mod.Version; v != "" && v != "(devel)" {
		return v
	}
	if mod != &bi.Main {
		return "dev"
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "devel-" + rev
	if dirty {
		v += "-dirty"
	}
	return v
}
