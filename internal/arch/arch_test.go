package arch

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"

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
	{0, []string{"observers", "internal/version", "internal/mcpwire", "internal/example", "internal/redact", "internal/netguard", "internal/environ", "internal/cleanup", "internal/smbin", "internal/serverlog", "internal/layout", "internal/hostpath", "internal/quota", "internal/startvalue"}},
	{1, []string{"internal/launch", "internal/contain", "internal/seccomp", "internal/pin"}},
	{2, []string{"observers/"}},
	{3, []string{"packs", "internal/sandbox", "internal/session"}},
	{4, []string{"packs/", "internal/report", "internal/config"}},
	{5, []string{"internal/engine"}},
	{6, []string{"sealmarktest", "cmd/", ".", "internal/scan"}}, // "." is the module's root package (its examples)
}

// testOnly are fixture servers and helpers of Sealmark's own tests: no
// release package (outside testOnly) may import them.
var testOnly = []string{"internal/fixture", "packs/internal/packtest", "internal/realserver", "internal/sarifcheck", "internal/asnobody", "internal/reportcmp", "internal/arch"}

// pending are the upward imports known and not yet removed, each with why.
// The test fails when one of them is gone too, so the list stays true.
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

// TestImportsPointDown lists every package's own imports (go list, tests
// excluded) and checks that none points up a layer, that no release
// package imports a fixture or a test helper, and that the release binary
// (go list -deps ./cmd/sealmark) holds neither.
func TestImportsPointDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	require.NoError(t, err)
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(fields[0]+"/", module)
		pkg = strings.TrimSuffix(pkg, "/")
		if pkg == "" {
			pkg = "."
		}
		if isTestOnly(pkg) {
			continue
		}
		from, ok := rank(pkg)
		if !ok {
			t.Errorf("%s: in no layer: add it to layers or testOnly", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			if isTestOnly(dep) {
				edge := pkg + " -> " + dep
				if _, known := pending[edge]; known {
					seen[edge] = true
					continue
				}
				t.Errorf("%s imports %s, which is for tests only", pkg, dep)
				continue
			}
			to, ok := rank(dep)
			if ok && to > from {
				edge := pkg + " -> " + dep
				if _, known := pending[edge]; known {
					seen[edge] = true
					continue
				}
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down", pkg, from, dep, to)
			}
		}
	}
	require.NoError(t, sc.Err())
	deps, err := exec.Command("go", "list", "-deps", module+"cmd/sealmark").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(deps)) {
		if p, ours := strings.CutPrefix(dep, module); ours && isTestOnly(p) {
			if _, known := pending["release binary -> "+p]; known {
				seen["release binary -> "+p] = true
				continue
			}
			t.Errorf("the release binary holds %s", p)
		}
	}
	for edge, why := range pending {
		if !seen[edge] {
			t.Errorf("pending %q (%s) is gone: remove it from pending", edge, why)
		}
	}
}
