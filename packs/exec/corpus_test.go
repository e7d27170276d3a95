package exec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/packs"
)

// TestToolsOnRealToolLists runs the guess over the real tool lists core's
// tool-metadata is calibrated on (packs/core/testdata/toollists): the exec
// pack must take exactly the tools that run commands, and no other.
func TestToolsOnRealToolLists(t *testing.T) {
	files, err := filepath.Glob("../core/testdata/toollists/*.json")
	if err != nil || len(files) == 0 {
		t.Skipf("no tool lists: %v", err)
	}
	var got []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var list struct {
			Tools []packs.Tool `json:"tools"`
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, et := range Tools(&packs.Surface{Tools: list.Tools}, nil) {
			got = append(got, strings.TrimSuffix(filepath.Base(f), ".json")+" "+et.Name+"("+et.Command+")")
		}
	}
	t.Logf("%d tool lists", len(files))
	// kubectl_generic runs kubectl with the command as its arguments: its
	// control (sm-echo) fails and the probes say so (inconclusive), which
	// is what a user of it should read. The evaluate tools of the browser
	// servers take JavaScript in a "script" and are left out.
	want := []string{
		"agent-infra__mcp-server-commands@1.2.18 run_command(command)",
		"agent-infra__mcp-server-commands@1.2.18 run_script(script)",
		"mcp-server-kubernetes@4.1.7 kubectl_generic(command)",
		"wonderwhy-er__desktop-commander@0.2.52 start_process(command)",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("command tools:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
