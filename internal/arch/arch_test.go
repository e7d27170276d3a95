package arch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/sealmark/sealmark/"

// layers ranks the module's packages, lowest first; a package is ranked by
// its longest listed prefix. A package may import one of its own rank or
// lower.
var layers = []struct {
	rank     int
	prefixes []string
}{
	{0, []string{"observers", "internal/version", "internal/mcpwire", "internal/example", "internal/redact", "internal/netguard", "internal/environ", "internal/cleanup", "internal/smbin", "internal/serverlog", "internal/layout", "internal/hostpath", "internal/quota", "internal/startvalue", "internal/capbuf"}},
	{1, []string{"internal/launch", "internal/contain", "internal/seccomp", "internal/pin"}},
	{2, []string{"observers/"}},
	{3, []string{"packs", "internal/sandbox", "internal/session"}},
	{4, []string{"packs/", "internal/report", "internal/config"}},
	{5, []string{"internal/engine", "internal/catalogue"}},
	{6, []string{"sealmarktest", "cmd/", ".", "internal/scan"}}, // "." is the module's root package (its examples)
}

// testOnly are fixture servers and helpers of Sealmark's own tests: no
// release package (outside testOnly) may import them.
var testOnly = []string{"internal/fixture", "internal/starve", "packs/internal/packtest", "internal/realserver", "internal/sarifcheck", "internal/asnobody", "internal/reportcmp", "internal/arch", "internal/slowtest"}

// sameRank are the imports allowed between packages of one rank, each
// from-prefix → to-prefix with why; any other same-rank import fails
// (packs/git → internal/report would tie a pack to the report's form).
var sameRank = []struct{ from, to, why string }{
	{"internal/environ", "internal/redact", "the environment masks secret values"},
	{"internal/hostpath", "internal/redact", "a host path is shown by its stable name"},
	{"internal/example", "internal/mcpwire", "the bundled example speaks the wire format"},
	{"internal/contain", "internal/launch", "containment wraps a launch"},
	{"internal/contain", "internal/seccomp", "containment installs the seccomp filter"},
	{"internal/smbin", "internal/quota", "the sm binary also starts as a quota's guard"},
	{"internal/smbin", "internal/cleanup", "a signal's cleanup stops the helper's build"},
	{"internal/smbin", "internal/capbuf", "the helper's build output is bounded"},
	{"observers/", "observers/internal/", "the observers share their ledger"},
	{"internal/sandbox", "packs", "the sandbox fills the probe vocabulary's views"},
	{"internal/session", "packs", "the session speaks the probe vocabulary's types"},
	{"internal/report/cmd/genschema", "internal/report", "the schema generator prints the report's schema"},
	{"cmd/sealmark", "internal/scan", "the CLI's scan command"},
	{"packs/", "packs/internal/", "the packs' shared helpers"},
}

// baseHelpers are the packages below the packs that a pack may import
// besides packs, packs/internal/... and observers/...: helpers of the
// base, never the report, the configuration, the engine or a door.
var baseHelpers = []string{"internal/pin", "internal/cleanup", "internal/redact", "internal/smbin", "internal/layout", "internal/sandbox", "internal/mcpwire", "internal/startvalue", "internal/environ"}

// allow is, per layer, what its packages may import of the module beyond
// the rank rule (nil: anything the rank allows); deny is what they may
// not import whatever the rank says.
var rules = []struct {
	name  string
	match func(pkg string) bool
	allow func(dep string) bool
	deny  func(dep string) bool
}{
	{
		name:  "a pack imports only packs, packs/internal/..., observers/... and base helpers",
		match: isPack,
		allow: func(dep string) bool {
			return dep == "packs" || strings.HasPrefix(dep, "packs/internal/") || dep == "observers" || strings.HasPrefix(dep, "observers/") || slices.Contains(baseHelpers, dep)
		},
	},
	{
		name:  "the engine knows no pack by name",
		match: func(pkg string) bool { return pkg == "internal/engine" || strings.HasPrefix(pkg, "internal/engine/") },
		deny:  func(dep string) bool { return isPack(dep) || dep == "internal/catalogue" },
	},
	{
		name:  "the configuration knows no pack",
		match: func(pkg string) bool { return pkg == "internal/config" },
		deny:  func(dep string) bool { return strings.HasPrefix(dep, "packs/") },
	},
}

// isPack reports whether pkg is a pack (packs/<name>, not packs/internal).
func isPack(pkg string) bool {
	name, ok := strings.CutPrefix(pkg, "packs/")
	return ok && name != "" && name != "internal" && !strings.HasPrefix(name, "internal/")
}

// pending are the imports known to break a rule and not yet removed, each
// with why. The test fails when one of them is gone too, so the list
// stays true.
var pending = map[string]string{}

func rank(pkg string) (int, bool) {
	best, r := -1, 0
	for _, l := range layers {
		for _, p := range l.prefixes {
			under := strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p) // "observers/": strictly under
			self := !strings.HasSuffix(p, "/") && (pkg == p || strings.HasPrefix(pkg, p+"/"))
			if (under || self) && len(p) > best {
				best, r = len(p), l.rank
			}
		}
	}
	return r, best >= 0
}

func isTestOnly(pkg string) bool {
	for _, p := range testOnly {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}

// violations checks an import graph (package → its own imports of the
// module, both relative to the module) and the release binary's
// dependencies: an edge is "from -> to" ("release binary -> to" for the
// binary), mapped to what it breaks.
func violations(graph map[string][]string, binary []string) map[string]string {
	out := map[string]string{}
	for pkg, imps := range graph {
		if isTestOnly(pkg) {
			continue
		}
		from, ok := rank(pkg)
		if !ok {
			out[pkg+" -> ?"] = pkg + ": in no layer: add it to layers or testOnly"
			continue
		}
		for _, dep := range imps {
			edge := pkg + " -> " + dep
			if isTestOnly(dep) {
				out[edge] = fmt.Sprintf("%s imports %s, which is for tests only", pkg, dep)
				continue
			}
			to, ok := rank(dep)
			switch {
			case ok && to > from:
				out[edge] = fmt.Sprintf("%s (layer %d) imports %s (layer %d): imports point down", pkg, from, dep, to)
				continue
			case ok && to == from && !sameRankAllowed(pkg, dep):
				out[edge] = fmt.Sprintf("%s imports %s of its own layer (%d): imports point down, or name the edge in sameRank", pkg, dep, from)
				continue
			}
			for _, r := range rules {
				if !r.match(pkg) {
					continue
				}
				if (r.allow != nil && !r.allow(dep)) || (r.deny != nil && r.deny(dep)) {
					out[edge] = fmt.Sprintf("%s imports %s: %s", pkg, dep, r.name)
				}
			}
		}
	}
	for _, p := range binary {
		if isTestOnly(p) {
			out["release binary -> "+p] = "the release binary holds " + p
		}
	}
	return out
}

// sameRankAllowed reports whether sameRank names the edge (a prefix
// ending in / matches strictly under it; another matches itself and
// under it).
func sameRankAllowed(pkg, dep string) bool {
	match := func(p, prefix string) bool {
		if strings.HasSuffix(prefix, "/") {
			return strings.HasPrefix(p, prefix)
		}
		return p == prefix || strings.HasPrefix(p, prefix+"/")
	}
	for _, e := range sameRank {
		if match(pkg, e.from) && match(dep, e.to) {
			return true
		}
	}
	return pkg == dep
}

// TestImportsPointDown lists every package's own imports (go list, tests
// excluded) and checks them (violations): none points up a layer or, but
// for sameRank, across one; each layer's rules hold; no release package
// imports a fixture or a test helper, and the release binary (go list
// -deps ./cmd/sealmark) holds neither. A known breach waits in pending.
func TestImportsPointDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	graph := importGraph(t)
	deps, err := exec.Command("go", "list", "-deps", module+"cmd/sealmark").Output()
	require.NoError(t, err)
	var binary []string
	for _, dep := range strings.Fields(string(deps)) {
		if strings.HasPrefix(dep+"/", module) {
			binary = append(binary, ours(dep))
		}
	}
	found := violations(graph, binary)
	for _, edge := range slices.Sorted(maps.Keys(found)) {
		if _, known := pending[edge]; !known {
			t.Error(found[edge])
		}
	}
	for edge, why := range pending {
		if _, still := found[edge]; !still {
			t.Errorf("pending %q (%s) is gone: remove it from pending", edge, why)
		}
	}
}

// statSources stats every Go file of the module. go list reads them in a
// process of its own, which go test's result cache does not follow: a
// cached pass would outlive a new import that breaks the layers (CI
// passed one so). The files this test stats are in the cache's key.
func statSources(t *testing.T) {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root:
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			_, err = os.Stat(p)
		}
		return err
	})
	require.NoError(t, err)
}

// importGraph is every package's own imports of the module (go list,
// tests excluded), both relative to the module; args go to go list before
// the packages (-overlay).
func importGraph(t *testing.T, args ...string) map[string][]string {
	t.Helper()
	statSources(t)
	args = append(append([]string{"list", "-f", `{{.ImportPath}} {{join .Imports " "}}`}, args...), module+"...")
	out, err := exec.Command("go", args...).Output()
	require.NoError(t, err)
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := ours(fields[0])
		graph[pkg] = []string{}
		for _, imp := range fields[1:] {
			if strings.HasPrefix(imp+"/", module) {
				graph[pkg] = append(graph[pkg], ours(imp))
			}
		}
	}
	require.NoError(t, sc.Err())
	return graph
}

// TestThrowawayImportFails adds a throwaway file to the engine that
// imports a pack (go list -overlay: the tree is not touched) and reads the
// import graph as TestImportsPointDown does: the edge is caught as a
// breach of "the engine knows no pack by name", which pending excuses
// for no pack. Without the file the engine imports no pack.
func TestThrowawayImportFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "throwaway.go")
	require.NoError(t, os.WriteFile(src, []byte("package engine\n\nimport _ \""+module+"packs/core\"\n"), 0o644))
	engineDir, err := filepath.Abs("../engine")
	require.NoError(t, err)
	overlay, err := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(engineDir, "zz_throwaway.go"): src}})
	require.NoError(t, err)
	overlayFile := filepath.Join(dir, "overlay.json")
	require.NoError(t, os.WriteFile(overlayFile, overlay, 0o644))

	const edge = "internal/engine -> packs/core"
	got := violations(importGraph(t, "-overlay", overlayFile), nil)
	assert.Contains(t, got[edge], "the engine knows no pack by name")
	assert.NotContains(t, pending, edge, "the breach is excused")
	for e := range violations(importGraph(t), nil) {
		assert.False(t, strings.HasPrefix(e, "internal/engine -> packs/"), "without the throwaway file: %s", e)
	}
}

// ours is a module package's path relative to the module ("." for its
// root).
func ours(pkg string) string {
	p := strings.TrimSuffix(strings.TrimPrefix(pkg+"/", module), "/")
	if p == "" {
		return "."
	}
	return p
}

// TestViolations proves the checker on throwaway import graphs: each
// breach of a rule is caught, naming the rule, and a graph that keeps
// them passes.
func TestViolations(t *testing.T) {
	good := map[string][]string{
		"packs/git":       {"packs", "observers/files", "packs/internal/gitargs", "internal/redact"},
		"internal/engine": {"packs", "internal/report", "internal/sandbox"},
		"internal/config": {"internal/environ"},
		"cmd/sealmark":    {"internal/engine", "internal/scan"},
	}
	require.Empty(t, violations(good, []string{"internal/engine", "packs/git"}))
	for edge, want := range map[string]string{
		"packs/git -> internal/report":               "of its own layer",
		"packs/git -> internal/config":               "of its own layer",
		"packs/git -> internal/launch":               "a pack imports only packs",
		"packs/git -> packs/fs":                      "of its own layer",
		"internal/engine -> packs/core":              "the engine knows no pack by name",
		"internal/engine -> packs/inherit":           "the engine knows no pack by name",
		"internal/engine -> packs/table":             "the engine knows no pack by name",
		"internal/engine -> internal/catalogue":      "of its own layer",
		"internal/engine -> packs/internal/packtest": "for tests only",
		"internal/config -> packs/table":             "of its own layer",
		"internal/config -> packs":                   "",
		"packs -> internal/engine":                   "imports point down",
		"internal/report -> internal/fixture":        "for tests only",
	} {
		from, to, _ := strings.Cut(edge, " -> ")
		got := violations(map[string][]string{from: {to}}, nil)
		if want == "" {
			assert.Empty(t, got, edge)
			continue
		}
		assert.Contains(t, got[edge], want, edge)
	}
	assert.Contains(t, violations(nil, []string{"internal/fixture/fsserver"}), "release binary -> internal/fixture/fsserver")
}
