package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "3f1c0e9a7b2d4c51aa"}, {Key: "vcs.modified", Value: "true"}}
	for name, tc := range map[string]struct {
		bi   debug.BuildInfo
		want string
	}{
		"released":       {debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.4.0"}}, "v1.4.0"},
		"checkout":       {debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}, Settings: rev}, "devel-3f1c0e9a7b2d-dirty"},
		"clean checkout": {debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}, Settings: rev[:1]}, "devel-3f1c0e9a7b2d"},
		"no vcs":         {debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, "dev"},
		"a dependency": {debug.BuildInfo{Main: debug.Module{Path: "example.com/my-server", Version: "(devel)"}, Settings: rev,
			Deps: []*debug.Module{{Path: "other/x", Version: "v9.9.9"}, {Path: Module, Version: "v1.5.2"}}}, "v1.5.2"},
		"replaced": {debug.BuildInfo{Main: debug.Module{Path: "example.com/my-server"},
			Deps: []*debug.Module{{Path: Module, Version: "v1.5.2", Replace: &debug.Module{Path: "../sealmark"}}}}, "v1.5.2"},
		"not a dependency": {debug.BuildInfo{Main: debug.Module{Path: "example.com/my-server", Version: "v2.0.0"}}, "dev"},
	} {
		if got := FromBuildInfo(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
