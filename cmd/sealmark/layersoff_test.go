package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
)

// everyLayerApplied is an Isolation where every mechanism applies, so what
// layersOff turns off shows whatever this machine allows.
func everyLayerApplied() contain.Isolation {
	on := func(name string) contain.Layer { return contain.Layer{Name: name, Applied: true} }
	return contain.Isolation{
		Pgid: on("pgid"), Pdeathsig: on("pdeathsig"), Subreaper: on("subreaper"),
		NoNewPrivs: on("no_new_privs"), FileSize: on("rlimit-fsize"),
		LandlockFS: on("landlock-fs"), LandlockNet: on("landlock-net"), LandlockScope: on("landlock-scope"),
		NetNS: on("netns"), PidNS: on("pidns"), UserNS: on("userns"),
		MountNS: on("mountns"), Secrets: on("secrets"), IPCUTS: on("ipc+uts"), Caps: on("caps"),
		SeccompNotify: on("seccomp-notify"), Cgroup: on("cgroup"), Quota: on("tmpfs"),
		CgroupControllers: []string{"pids", "memory"},
	}
}

func TestLayersOffTurnsOffExactlyItsLayers(t *testing.T) {
	// What each name of engine.Layers turns off, by contain's layer names.
	turns := map[string][]string{
		"landlock":   {"landlock-fs", "landlock-net", "landlock-scope"},
		"seccomp":    {"seccomp-notify"},
		"namespaces": {"netns", "pidns", "userns", "mountns", "secrets", "ipc+uts", "caps"},
		"cgroup":     {"cgroup"},
		"fsize":      {"rlimit-fsize"},
		"quota":      {"tmpfs"},
		"secrets":    {"secrets"},
	}
	require.ElementsMatch(t, engine.Layers, slices.Collect(maps.Keys(turns)), "a layer of engine.Layers without a case here")
	for _, name := range engine.Layers {
		got := layersOff(everyLayerApplied(), []string{name}, 1024)
		for _, l := range got.Layers() {
			if slices.Contains(turns[name], l.Name) {
				assert.Equal(t, contain.Layer{Name: l.Name, Why: "off by config"}, l, "%s off", name)
			} else {
				assert.True(t, l.Applied, "%s off leaves %s on: %s", name, l.Name, l)
			}
		}
	}
	// Nothing off: the probe as it was, with the process and memory
	// limits set on the leaf.
	line := layersOff(everyLayerApplied(), nil, 1024).Line()
	assert.Contains(t, line, " cgroup=+pids.max+memory.max ")
	assert.Contains(t, line, " quota=tmpfs(1024MiB) ")
	assert.Regexp(t, ` secrets=hidden\(\d+\) `, line, "as many stores as this machine's home has")
	line = regexp.MustCompile(`secrets=hidden\(\d+\)`).ReplaceAllString(line, "secrets=hidden")
	assert.Equal(t, everyLayerApplied().Line(), strings.NewReplacer("+pids.max+memory.max", "", "tmpfs(1024MiB)", "tmpfs").Replace(line))

	// A layer this machine refuses keeps its own reason: turning it off
	// changes nothing the user should act on.
	refused := everyLayerApplied()
	refused.LandlockFS = contain.Layer{Name: "landlock-fs", Why: "landlock_create_ruleset: function not implemented"}
	got := layersOff(refused, []string{"landlock"}, 1024)
	assert.Equal(t, refused.LandlockFS, got.LandlockFS)
	assert.Equal(t, "off by config", got.LandlockNet.Why)
}

func TestDoctorShowsTheLayersOff(t *testing.T) {
	argv := serverArgs(t, "")
	code, out, errOut := doctorRun(t, append([]string{"--layers-off", "landlock,fsize", "--"}, argv...)...)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	assert.Regexp(t, checkLine("warn", "isolation", regexp.QuoteMeta("sandbox.layers_off: landlock, fsize: the server runs with weaker containment and the run is CUSTOM")), out)
	assert.Contains(t, out, `sandbox.layers_off = ["landlock", "fsize"]   (flag --layers-off)`)
	probe := contain.Probe()
	if probe.LandlockFS.Applied {
		assert.Regexp(t, checkLine("(ok|warn)", "isolation", `procs=.* fs=none\(landlock-fs: off by config\)`), out)
	}
	if probe.FileSize.Applied {
		assert.Regexp(t, checkLine("(ok|warn)", "isolation", `procs=.* rlimits=none\(rlimit-fsize: off by config\)`), out)
	}

	// Without the key nothing says so.
	code, out, _ = doctorRun(t, append([]string{"--"}, argv...)...)
	assert.Equal(t, 0, code)
	assert.NotContains(t, out, "off by config")
	assert.NotContains(t, out, "sandbox.layers_off:")

	// --no-sandbox has no layers to turn off.
	_, out, _ = doctorRun(t, append([]string{"--no-sandbox", "--layers-off", "landlock", "--"}, argv...)...)
	assert.NotContains(t, out, "off by config")
}

func TestRunWithLayersOffIsCustom(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run with the layers off")
	}
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	t.Setenv("SEALMARK_LAYERS_OFF", "cgroup")
	args := append(runArgs(t, "--quiet", "--packs", "core", "--layers-off", "fsize,landlock", "--json", jsonPath, "--"), serverArgs(t, "")...)
	code, out, errOut := sealmark(t, args...)
	assert.Equal(t, 0, code, "stdout: %s\nstderr: %s", out, errOut)
	raw, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var rep struct {
		Class        string   `json:"class"`
		ClassReasons []string `json:"classReasons"`
		Sandbox      struct {
			Isolation string `json:"isolation"`
		} `json:"sandbox"`
	}
	require.NoError(t, json.Unmarshal(raw, &rep))
	assert.Equal(t, "CUSTOM", rep.Class)
	assert.Contains(t, rep.ClassReasons, "sandbox.layers_off: fsize, landlock: the server ran with weaker containment", "the flag wins over SEALMARK_LAYERS_OFF")
	if contain.Probe().FileSize.Applied {
		assert.Contains(t, rep.Sandbox.Isolation, "rlimits=none(rlimit-fsize: off by config)")
	}
	if contain.Probe().LandlockFS.Applied {
		assert.Contains(t, rep.Sandbox.Isolation, "fs=none(landlock-fs: off by config)")
	}
	assert.NotContains(t, rep.Sandbox.Isolation, "cgroup: off by config", "the flag replaced the variable's list")
}

// TestLayerNamesAgree keeps the names the engine knows, the schema's enum
// and the help line in step.
func TestLayerNamesAgree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "sealmark.schema.json"))
	require.NoError(t, err)
	var schema struct {
		Properties struct {
			Sandbox struct {
				Properties struct {
					LayersOff struct {
						Items struct {
							Enum []string `json:"enum"`
						} `json:"items"`
					} `json:"layers_off"`
				} `json:"properties"`
			} `json:"sandbox"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(raw, &schema))
	assert.Equal(t, engine.Layers, schema.Properties.Sandbox.Properties.LayersOff.Items.Enum)
	for _, r := range config.Reference() {
		if r.Key == "sandbox.layers_off" {
			assert.Contains(t, r.Doc, strings.Join(engine.Layers, ", "))
			assert.Equal(t, "--layers-off", r.Flag)
			assert.Equal(t, "SEALMARK_LAYERS_OFF", r.Env)
		}
	}
}
