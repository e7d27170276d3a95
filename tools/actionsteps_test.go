package tools

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// step is one step of the Action, as the checks run it.
type step struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
}

// actionStep is the Action's step with the given id or name.
func actionStep(t *testing.T, idOrName string) step {
	t.Helper()
	a, _ := readAction(t)
	var steps []step
	if err := a.Runs.Steps.Decode(&steps); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.ID == idOrName || s.Name == idOrName {
			if s.Run == "" {
				t.Fatalf("step %q runs no script", idOrName)
			}
			return s
		}
	}
	t.Fatalf("%s has no step %q", actionFile, idOrName)
	return step{}
}

// ran is what a step's script did.
type ran struct {
	code    int               // the script's exit code
	outputs map[string]string // what it wrote to $GITHUB_OUTPUT
	log     string            // its stdout and stderr
}

// runStep runs a step's script as a runner runs a bash step (bash
// --noprofile --norc -eo pipefail), in dir, with env as its step env and
// the runner's variables pointing into dir.
func runStep(t *testing.T, s step, dir string, env map[string]string) ran {
	t.Helper()
	script := filepath.Join(t.TempDir(), "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "github_output")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GITHUB_OUTPUT=" + out,
		"GITHUB_PATH=" + filepath.Join(dir, "github_path"), "RUNNER_TEMP=" + dir, "RUNNER_OS=Linux", "RUNNER_ARCH=X64"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	log, err := cmd.CombinedOutput()
	r := ran{code: cmd.ProcessState.ExitCode(), outputs: map[string]string{}, log: string(log)}
	if err != nil && r.code <= 0 {
		t.Fatalf("%s: %v\n%s", s.Name, err, log)
	}
	raw, _ := os.ReadFile(out)
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		if k, v, ok := strings.Cut(lines[i], "="); ok {
			r.outputs[k] = v
		} else if k, delim, ok := strings.Cut(lines[i], "<<"); ok {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			r.outputs[k] = strings.Join(val, "\n")
		}
	}
	return r
}

// fakeSealmark is a stand-in sealmark that writes its arguments, one per
// line, to argv.txt beside it, creates the reports its flags name, prints
// -sarif-category in its help when FAKE_CATEGORY is set, and exits
// $FAKE_EXIT.
const fakeSealmark = `#!/bin/bash
if [ "$1" = help ]; then echo "  -sarif PATH"; [ -z "${FAKE_CATEGORY:-}" ] || echo "  -sarif-category NAME"; exit 0; fi
printf '%s\n' "$@" >"$(dirname "$0")/argv.txt"
while [ $# -gt 0 ]; do
  case "$1" in --json|--sarif|--junit) echo '{}' >"$2"; shift ;; --) break ;; esac
  shift
done
exit "${FAKE_EXIT:-0}"
`

// runEnv is the run step's env: the Action's defaults, then set.
func runEnv(bin string, set map[string]string) map[string]string {
	env := map[string]string{"SM_BIN": bin, "SM_COMMAND": "run", "SM_ARGS": "", "SM_CONFIG": "", "SM_PACKS": "",
		"SM_FAIL_ON": "", "SM_JSON": "sealmark.json", "SM_SARIF": "sealmark.sarif", "SM_JUNIT": "sealmark.xml", "SM_CATEGORY": ""}
	for k, v := range set {
		env[k] = v
	}
	return env
}

func TestRunStepPassesTheInputsAsFlags(t *testing.T) {
	s := actionStep(t, "run")
	if _, ok := s.Env["SM_ARGS"]; !ok {
		t.Fatalf("the run step's env has no SM_ARGS: %v", s.Env)
	}
	for name, tc := range map[string]struct {
		env      map[string]string
		wantArgv []string // nil: sealmark is not run
		wantCode string
	}{
		"a server command line": {
			map[string]string{"SM_ARGS": "-- node {cwd}/dist/index.js {sandbox}", "SM_FAIL_ON": "medium", "SM_PACKS": "core,fs", "FAKE_EXIT": "1"},
			[]string{"run", "--packs", "core,fs", "--fail-on", "medium", "--json", "sealmark.json", "--sarif", "sealmark.sarif", "--junit", "sealmark.xml", "--", "node", "{cwd}/dist/index.js", "{sandbox}"}, "1"},
		"no glob, no expansion": {
			map[string]string{"SM_ARGS": "-- node *.js $HOME `id`", "SM_JSON": "", "SM_JUNIT": ""},
			[]string{"run", "--sarif", "sealmark.sarif", "--", "node", "*.js", "$HOME", "`id`"}, "0"},
		"one argument per line": {
			map[string]string{"SM_ARGS": "--\nnode\nmy server.js\n\n--root=a b\n", "SM_SARIF": "", "SM_JSON": "", "SM_JUNIT": ""},
			[]string{"run", "--", "node", "my server.js", "--root=a b"}, "0"},
		"a config": {
			map[string]string{"SM_CONFIG": "ci/sealmark.yaml", "SM_SARIF": "", "SM_JSON": "", "SM_JUNIT": "", "FAKE_EXIT": "3"},
			[]string{"run", "--config", "ci/sealmark.yaml"}, "3"},
		"scan": {
			map[string]string{"SM_COMMAND": "scan", "SM_ARGS": ".vscode/mcp.json", "SM_JSON": "", "SM_JUNIT": ""},
			[]string{"scan", "--sarif", "sealmark.sarif", ".vscode/mcp.json"}, "0"},
		"a category, and a sealmark that has --sarif-category": {
			map[string]string{"SM_CATEGORY": "my-server", "FAKE_CATEGORY": "1", "SM_JSON": "", "SM_JUNIT": ""},
			[]string{"run", "--sarif", "sealmark.sarif", "--sarif-category", "my-server"}, "0"},
		"a category, and a sealmark without --sarif-category": {
			map[string]string{"SM_CATEGORY": "my-server", "SM_JSON": "", "SM_JUNIT": ""},
			[]string{"run", "--sarif", "sealmark.sarif"}, "0"},
		"a command that is neither run nor scan": {map[string]string{"SM_COMMAND": "merge"}, nil, "2"},
		"a config for scan":                      {map[string]string{"SM_COMMAND": "scan", "SM_CONFIG": "x.yaml"}, nil, "2"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin", "sealmark")
			if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(bin, []byte(fakeSealmark), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "a.js"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			r := runStep(t, s, dir, runEnv(bin, tc.env))
			if r.code != 0 {
				t.Fatalf("the run step exited %d, want 0 (the verdict step fails the job):\n%s", r.code, r.log)
			}
			if got := r.outputs["exit-code"]; got != tc.wantCode {
				t.Errorf("exit-code output %q, want %q\n%s", got, tc.wantCode, r.log)
			}
			argv, err := os.ReadFile(filepath.Join(dir, "bin", "argv.txt"))
			if tc.wantArgv == nil {
				if err == nil {
					t.Errorf("sealmark ran with %q, want it not run", argv)
				}
				return
			}
			if err != nil {
				t.Fatalf("sealmark did not run:\n%s", r.log)
			}
			if got, want := string(argv), strings.Join(tc.wantArgv, "\n")+"\n"; got != want {
				t.Errorf("sealmark's arguments:\n%s\nwant:\n%s", got, want)
			}
			if _, set := tc.env["SM_SARIF"]; !set {
				if want := filepath.Join(dir, "sealmark.sarif"); r.outputs["sarif"] != want {
					t.Errorf("sarif output %q, want %q", r.outputs["sarif"], want)
				}
			}
		})
	}
}

func TestRunStepMasksSecretsInItsLog(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sealmark")
	if err := os.WriteFile(bin, []byte(fakeSealmark), 0o755); err != nil {
		t.Fatal(err)
	}
	const secret = "sm-secret-4f2a9c"
	args := "--env API_TOKEN=" + secret + " --header=Authorization:Bearer-" + secret + " -header X-Key:" + secret + " -- node server.js"
	r := runStep(t, actionStep(t, "run"), dir, runEnv(bin, map[string]string{"SM_ARGS": args}))
	if strings.Contains(r.log, secret) {
		t.Errorf("the run step's log holds the secret:\n%s", r.log)
	}
	for _, want := range []string{"--env API_TOKEN=***", "--header=***", "-header X-Key=***", "-- node server.js"} {
		if !strings.Contains(r.log, want) {
			t.Errorf("the run step's log lacks %q:\n%s", want, r.log)
		}
	}
	argv, err := os.ReadFile(filepath.Join(dir, "argv.txt"))
	if err != nil || !strings.Contains(string(argv), "API_TOKEN="+secret+"\n") {
		t.Errorf("sealmark got %q (%v), want the secret itself", argv, err)
	}
}

func TestRunStepListsTheReportsWritten(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sealmark")
	if err := os.WriteFile(bin, []byte(fakeSealmark), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runStep(t, actionStep(t, "run"), dir, runEnv(bin, map[string]string{"SM_JSON": "-", "FAKE_EXIT": "1"}))
	want := filepath.Join(dir, "sealmark.xml") + "\n" + filepath.Join(dir, "sealmark.sarif")
	if r.outputs["reports"] != want {
		t.Errorf("reports output %q, want %q (no - for standard output)\n%s", r.outputs["reports"], want, r.log)
	}
}

func TestVerdictStepFailsAsSealmarkExited(t *testing.T) {
	s := actionStep(t, "Fail as sealmark exited")
	for code, want := range map[string]int{"0": 0, "1": 1, "2": 2, "3": 3, "130": 130, "": 3} {
		if r := runStep(t, s, t.TempDir(), map[string]string{"SM_CODE": code}); r.code != want {
			t.Errorf("sealmark's exit code %q: the step exited %d, want %d\n%s", code, r.code, want, r.log)
		}
	}
}

// release is a release as GoReleaser publishes it: the archive holding a
// stand-in sealmark that prints its version, and checksums.txt.
func release(t *testing.T, version string) (archive string, files map[string][]byte) {
	t.Helper()
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	bin := []byte("#!/bin/sh\necho \"sealmark " + version + "\"\n")
	for name, body := range map[string][]byte{"sealmark": bin, "README.md": []byte("x")} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	archive = "sealmark_" + strings.TrimPrefix(version, "v") + "_linux_amd64.tar.gz"
	other := "sealmark_" + strings.TrimPrefix(version, "v") + "_linux_arm64.tar.gz"
	sums := fmt.Sprintf("%x  %s\n%x  %s\n", sha256.Sum256([]byte("arm")), other, sha256.Sum256(tgz.Bytes()), archive)
	return archive, map[string][]byte{archive: tgz.Bytes(), "checksums.txt": []byte(sums), other: []byte("arm")}
}

// serve serves files under /VERSION/ on a loopback address.
func serve(t *testing.T, version string, files map[string][]byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[strings.TrimPrefix(r.URL.Path, "/"+version+"/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(body)
	}))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestInstallStepVerifiesTheChecksum(t *testing.T) {
	s := actionStep(t, "install")
	const version = "v9.8.7"
	archive, good := release(t, version)
	tampered := map[string][]byte{}
	for k, v := range good {
		tampered[k] = v
	}
	tampered[archive] = append(bytes.Clone(good[archive]), 0)
	unlisted := map[string][]byte{archive: good[archive], "checksums.txt": []byte(strings.SplitAfter(string(good["checksums.txt"]), "\n")[0])}
	for name, tc := range map[string]struct {
		files     map[string][]byte
		installed bool
	}{
		"a release as published":             {good, true},
		"an archive that is not the release": {tampered, false},
		"checksums that do not name it":      {unlisted, false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			r := runStep(t, s, dir, map[string]string{"SM_MODE": "release", "SM_VERSION": version,
				"SM_SOURCE": "/nonexistent", "SEALMARK_RELEASES_URL": serve(t, version, tc.files)})
			bin := filepath.Join(dir, "sealmark-bin", "sealmark")
			_, statErr := os.Stat(bin)
			if !tc.installed {
				if r.code == 0 || statErr == nil {
					t.Errorf("the step exited %d and the binary exists: %v; want a failure and no binary\n%s", r.code, statErr == nil, r.log)
				}
				return
			}
			if r.code != 0 {
				t.Fatalf("the step exited %d:\n%s", r.code, r.log)
			}
			if r.outputs["bin"] != bin || r.outputs["version"] != version {
				t.Errorf("outputs bin %q version %q, want %q %q", r.outputs["bin"], r.outputs["version"], bin, version)
			}
			path, _ := os.ReadFile(filepath.Join(dir, "github_path"))
			if strings.TrimSpace(string(path)) != filepath.Dir(bin) {
				t.Errorf("GITHUB_PATH got %q, want %q", path, filepath.Dir(bin))
			}
		})
	}
}

func TestPlanStepChoosesReleaseOrSource(t *testing.T) {
	s := actionStep(t, "plan")
	for name, tc := range map[string]struct {
		version, build, ref, repo string
		code                      int
		mode, wantVersion         string
	}{
		"a version":                      {"v1.4.0", "false", "main", "acme/server", 0, "release", "v1.4.0"},
		"used at a release tag":          {"", "false", "v1.4.0", "acme/server", 0, "release", "v1.4.0"},
		"used at a branch":               {"", "false", "main", "acme/server", 0, "source", ""},
		"build-from-source wins":         {"v1.4.0", "true", "v1.4.0", "acme/server", 0, "source", ""},
		"in Sealmark's own repository":   {"", "false", "v1.4.0", "sealmark/sealmark", 0, "source", ""},
		"a version that is not a tag":    {"latest", "false", "", "acme/server", 2, "", ""},
		"a build-from-source of neither": {"", "yes", "", "acme/server", 2, "", ""},
	} {
		r := runStep(t, s, t.TempDir(), map[string]string{"SM_VERSION": tc.version, "SM_BUILD": tc.build,
			"SM_ACTION_REF": tc.ref, "SM_REPOSITORY": tc.repo})
		if r.code != tc.code || r.outputs["mode"] != tc.mode || r.outputs["version"] != tc.wantVersion {
			t.Errorf("%s: exit %d mode %q version %q, want %d %q %q\n%s", name, r.code, r.outputs["mode"], r.outputs["version"],
				tc.code, tc.mode, tc.wantVersion, r.log)
		}
	}
}

// snapshotEnv names a GoReleaser dist directory (.ci/run's snapshot
// release) for TestInstallStepTakesTheSnapshotRelease.
const snapshotEnv = "SEALMARK_SNAPSHOT_DIST"

// TestInstallStepTakesTheSnapshotRelease serves what GoReleaser built
// from .goreleaser.yaml to the Action's install step, so the names the
// Action downloads are the names the release has, and the binary it
// installs prints the release's version.
func TestInstallStepTakesTheSnapshotRelease(t *testing.T) {
	dist := os.Getenv(snapshotEnv)
	if dist == "" {
		t.Skip(snapshotEnv + " is unset: .ci/run sets it to its snapshot release")
	}
	meta, err := os.ReadFile(filepath.Join(dist, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Version string }
	if err := json.Unmarshal(meta, &m); err != nil || m.Version == "" {
		t.Fatalf("%s/metadata.json: no version (%v): %s", dist, err, meta)
	}
	version := "v" + m.Version
	files := map[string][]byte{}
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() {
			if files[e.Name()], err = os.ReadFile(filepath.Join(dist, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	dir := t.TempDir()
	r := runStep(t, actionStep(t, "install"), dir, map[string]string{"SM_MODE": "release", "SM_VERSION": version,
		"SM_SOURCE": "/nonexistent", "SEALMARK_RELEASES_URL": serve(t, version, files)})
	if r.code != 0 {
		t.Fatalf("the install step exited %d on the snapshot release:\n%s", r.code, r.log)
	}
	if r.outputs["version"] != version {
		t.Errorf("the installed sealmark says version %q, want the release's %q", r.outputs["version"], version)
	}
}

// fakeSource is a module laid out as Sealmark's source is, whose
// cmd/sealmark prints its version as the real one does.
var fakeSource = map[string]string{
	"go.mod": "module example.com/fakesealmark\n\ngo 1.26\n",
	"cmd/sealmark/main.go": `package main

import ("fmt"; "os")

var version = ""

func main() {
	if version == "" {
		version = "dev"
	}
	if len(os.Args) > 1 && os.Args[1] == "version" {
		fmt.Println("sealmark " + version)
	}
}
`,
}

func TestInstallStepBuildsFromSource(t *testing.T) {
	src := t.TempDir()
	for name, body := range fakeSource {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := actionStep(t, "install")
	for ref, want := range map[string]string{"main": "devel-main", "": "dev", "a b": "dev"} {
		dir := t.TempDir()
		env := map[string]string{"SM_MODE": "source", "SM_SOURCE": src, "SM_ACTION_REF": ref,
			"GOCACHE": os.Getenv("GOCACHE"), "GOFLAGS": "-buildvcs=false"}
		if env["GOCACHE"] == "" {
			env["GOCACHE"] = filepath.Join(os.Getenv("HOME"), ".cache", "go-build")
		}
		r := runStep(t, s, dir, env)
		if r.code != 0 {
			t.Fatalf("ref %q: the step exited %d:\n%s", ref, r.code, r.log)
		}
		if r.outputs["version"] != want || r.outputs["bin"] != filepath.Join(dir, "sealmark-bin", "sealmark") {
			t.Errorf("ref %q: outputs version %q bin %q, want version %q", ref, r.outputs["version"], r.outputs["bin"], want)
		}
	}
}
