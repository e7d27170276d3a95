package engine_test

import (
	"context"
	"encoding/json"
	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/slowtest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/example"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/httpfixture"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
)

func TestMain(m *testing.M) {
	report.SetWriteCheck(report.ValidateJSON) // every report a test writes matches the published schema
	contain.Dispatch()
	fixture.Dispatch()
	httpfixture.Dispatch() // the HTTP fixture, for TestStartEnvironmentIsStdios
	example.Dispatch()     // the bundled example server, for BenchmarkDefaultRunSplit
	smbin.Dispatch()
	os.Exit(m.Run())
}

func fixtureConfig(t testing.TB, flaws string) engine.Config {
	self, err := os.Executable()
	require.NoError(t, err)
	return engine.Config{Catalog: catalogue.All,
		Command: self, Args: []string{fixture.Verb, "-flaws=" + flaws},
		SandboxDir: t.TempDir(), StartTimeout: slowtest.Scale(5 * time.Second), CallTimeout: 2 * time.Second,
		StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
	}
}

// whoami is a pack whose one probe asks the env-report fixture for its
// environment and working directory.
func whoamiPack(got *[]map[string]any) packs.Pack {
	return packs.Pack{Name: "whoami", Doc: "reports the server's environment", Probes: []packs.Probe{{
		ID: "TEST-WHOAMI", Name: "whoami", Doc: "asks the server who it is",
		Run: func(p *packs.Pass) {
			res, err := p.Call("whoami", nil)
			if err != nil || res.Error != nil {
				p.Reportf("whoami failed: %v %s", err, res.Brief())
				return
			}
			var r struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal(res.Result, &r); err != nil || len(r.Content) == 0 {
				p.Reportf("whoami result: %v", err)
				return
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(r.Content[0].Text), &v); err != nil {
				p.Reportf("whoami text: %v", err)
				return
			}
			*got = append(*got, v)
		},
	}}}
}

// TestServerEnvironmentIsTheSeedTable starts the env-report fixture twice
// and checks that the first start sees exactly the seed's table plus the
// two canaries, the second the table alone, and neither anything else of
// the caller's environment.
func TestServerEnvironmentIsTheSeedTable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the env-report fixture started twice")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the POSIX table")
	}
	var got []map[string]any
	cfg := fixtureConfig(t, "env-report")
	home := t.TempDir() // no ~/.npm here, so no package-manager cache is inherited
	cfg.Caller = []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=en_US.UTF-8",
		"DATABASE_URL=postgres://admin:hunter2@db.invalid/prod", "AWS_SECRET_ACCESS_KEY=fake", "GOPATH=/x",
	}
	pk := whoamiPack(&got)
	cfg.Catalog = []packs.Pack{pk, {Name: "again", Doc: "a second start", Probes: pk.Probes}}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, got, 2, "whoami ran on both starts")

	base := []string{"HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TEMP", "TERM", "TMP", "TMPDIR", "USER"}
	// SEALMARK_RUN is the run marker the process observer finds the run's
	// processes by, daemons included.
	base = append(base, "SEALMARK_RUN")
	for i, want := range [][]string{append(slices.Clone(base), "SEALMARK_CANARY", "SEALMARK_FAKE_API_KEY"), base} {
		env := got[i]["env"].(map[string]any)
		var names []string
		for k := range env {
			names = append(names, k)
		}
		sort.Strings(names)
		sort.Strings(want)
		assert.Equal(t, want, names, "start %d: environment names", i+1)
		assert.NotContains(t, env, "DATABASE_URL")
		assert.Equal(t, "en_US.UTF-8", env["LANG"])
		assert.Equal(t, "sealmark", env["USER"])
		cwd := got[i]["cwd"].(string)
		assert.Equal(t, "root", filepath.Base(cwd), "the server runs in the sandbox root")
		assert.Equal(t, filepath.Join(filepath.Dir(cwd), "home"), env["HOME"])
		assert.Equal(t, filepath.Join(filepath.Dir(cwd), "bin")+":/usr/local/bin:/usr/bin:/bin", env["PATH"])
		for _, tmp := range []string{"TEMP", "TMP", "TMPDIR"} {
			assert.Equal(t, filepath.Join(filepath.Dir(cwd), "tmp"), env[tmp])
		}
	}
	assert.Regexp(t, `^sm-canary-[0-9a-f]{16}$`, got[0]["env"].(map[string]any)["SEALMARK_CANARY"])
	assert.Regexp(t, `^sk-sealmark-fake-[0-9a-f]{24}$`, got[0]["env"].(map[string]any)["SEALMARK_FAKE_API_KEY"])
	assert.Equal(t, "scrubbed", rep.Sandbox.EnvMode)
	assert.Contains(t, rep.Sandbox.Inherited, "LANG")
	entries, err := os.ReadDir(cfg.SandboxDir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the sandbox is deleted after the run")
}

// TestInheritEnvIsCustom checks the inherited mode: the caller's variables
// reach the server, the working directory is a throwaway one, the run is CUSTOM.
func TestInheritEnvIsCustom(t *testing.T) {
	var got []map[string]any
	cfg := fixtureConfig(t, "env-report")
	cfg.InheritEnv = true
	cfg.Caller = []string{"PATH=/usr/bin:/bin", "SOME_SETTING=kept"}
	cfg.Catalog = []packs.Pack{whoamiPack(&got)}
	e, err := engine.New(cfg)
	require.NoError(t, err)
	rep := e.Run(context.Background(), engine.Hooks{})
	require.Empty(t, rep.HarnessError)
	require.Len(t, got, 1)
	env := got[0]["env"].(map[string]any)
	assert.Equal(t, "kept", env["SOME_SETTING"])
	assert.Contains(t, env, "SEALMARK_CANARY")
	assert.Equal(t, "work", filepath.Base(got[0]["cwd"].(string)), "a throwaway directory inside the sandbox")
	assert.Equal(t, "CUSTOM", rep.Class)
	assert.Equal(t, "inherited", rep.Sandbox.EnvMode)
}
