package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildSealmark builds this command into a fresh directory with the given
// go build flags and returns what its "version" prints.
func buildSealmark(t *testing.T, flags ...string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "sealmark")
	build := exec.CommandContext(ctx, goCmd, append(append([]string{"build", "-o", bin}, flags...), ".")...)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build %v: %s", flags, out)
	out, err = exec.CommandContext(ctx, bin, "version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

func TestVersionOfARelease(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: go build of a release with its version")
	}
	// GoReleaser's -X (.goreleaser.yaml): the release's tag.
	assert.Equal(t, "sealmark v9.8.7-rc.1\n", buildSealmark(t, "-ldflags", "-X main.version=v9.8.7-rc.1"))
}

func TestVersionOfABuildFromACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: go build from a checkout")
	}
	// Without the -X, the build information: in a git clone, the commit
	// the binary was built from (in the module's pseudo-version, or
	// devel-<commit>); where the go command sees no repository (a
	// linked worktree, a source archive), "dev".
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout (or no git): no commit to name")
	}
	want := "^sealmark dev\n$"
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err == nil && fi.IsDir() {
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		require.NoError(t, err)
		want = "^sealmark (v\\S+-|devel-)" + regexp.QuoteMeta(string(head[:12])) + "(\\+dirty|-dirty)?\n$"
	}
	assert.Regexp(t, want, buildSealmark(t, "-buildvcs=true"))
}

func TestVersionTakesNoArguments(t *testing.T) {
	code, out, errOut := sealmark(t, "version", "--json")
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "takes no arguments")
}
