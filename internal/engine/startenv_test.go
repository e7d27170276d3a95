package engine_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/packs"
)

// TestStartEnvironmentIsStdios starts the same env-report server over
// stdio and, through server.start, over HTTP, with a caller's environment
// holding a variable of its own, and checks that both see the one scrubbed
// environment: the same names, the canaries, nothing of the caller's, the
// sandbox root as the working directory. (A --start server used to inherit
// the caller's environment in a throwaway directory, so a probe that
// judges the environment passed over HTTP and failed over stdio.)
func TestStartEnvironmentIsStdios(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the env-report server over stdio and over HTTP")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the POSIX table")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	caller := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=en_US.UTF-8", "CALLER_ONLY=from-the-caller"}
	whoami := func(cfg engine.Config) (map[string]any, *engine.Engine) {
		t.Helper()
		var got []map[string]any
		cfg.Caller = caller
		cfg.Catalog = []packs.Pack{whoamiPack(&got)}
		e, err := engine.New(cfg)
		require.NoError(t, err)
		rep := e.Run(context.Background(), engine.Hooks{})
		require.Empty(t, rep.HarnessError)
		require.Len(t, got, 1, "whoami ran")
		assert.Equal(t, "scrubbed", rep.Sandbox.EnvMode)
		return got[0], e
	}
	stdio, _ := whoami(fixtureConfig(t, "env-report"))
	httpCfg := fixtureConfig(t, "")
	httpCfg.Command, httpCfg.Args = "", nil
	httpCfg.Start = self + " " + httpfixture.Verb + " -addr 127.0.0.1:{port} -flaws=env-report"
	httpCfg.URL = "http://127.0.0.1:{port}/mcp"
	overHTTP, _ := whoami(httpCfg)

	names := func(v map[string]any) []string {
		return slices.Sorted(maps.Keys(v["env"].(map[string]any)))
	}
	assert.Equal(t, names(stdio), names(overHTTP), "the environment's names over stdio and over HTTP")
	for what, v := range map[string]map[string]any{"stdio": stdio, "http": overHTTP} {
		env := v["env"].(map[string]any)
		assert.NotContains(t, env, "CALLER_ONLY", "%s: the caller's own variable", what)
		assert.Regexp(t, `^sm-canary-[0-9a-f]{16}$`, env["SEALMARK_CANARY"], what)
		assert.Regexp(t, `^sk-sealmark-fake-[0-9a-f]{24}$`, env["SEALMARK_FAKE_API_KEY"], what)
		assert.Equal(t, "root", filepath.Base(v["cwd"].(string)), "%s: the server runs in the sandbox root", what)
	}
}
