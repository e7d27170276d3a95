package tools

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v4"
)

// The files the checks read, relative to this directory.
const (
	actionFile  = "../action.yml"
	exampleFile = "../docs/examples/sealmark.yml"
	ciPage      = "../docs/ci.md"
)

// repoRoot is the repository's root, an absolute path: actionlint finds
// the local action of `uses: ./` under it.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// lint is actionlint's verdict on one workflow, linted as if it were
// .github/workflows/NAME of this repository, with shellcheck on its run
// scripts when the machine has it.
func lint(t *testing.T, name string, workflow []byte) []*actionlint.Error {
	t.Helper()
	root := repoRoot(t)
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	opts := &actionlint.LinterOptions{WorkingDir: root, LogWriter: io.Discard}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		opts.Shellcheck = sc
	}
	l, err := actionlint.NewLinter(io.Discard, opts)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(filepath.Join(root, ".github", "workflows", name), workflow, proj)
	if err != nil {
		t.Fatalf("%s: actionlint: %v", name, err)
	}
	return errs
}

// noLintErrors fails the test with each error actionlint found.
func noLintErrors(t *testing.T, name string, errs []*actionlint.Error) {
	t.Helper()
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", name, e.Line, e.Column, e.Message, e.Kind)
	}
}

func TestShellcheckRuns(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("shellcheck is not on PATH: .ci/run installs Debian's shellcheck so actionlint checks the Action's scripts")
		}
		t.Skip("shellcheck is not on PATH (apt-get install shellcheck): the run scripts are linted without it")
	}
}

func TestExampleWorkflowLints(t *testing.T) {
	raw, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	noLintErrors(t, exampleFile, lint(t, "sealmark.yml", raw))
}

// yamlBlock is a ```yaml block of a Markdown page.
var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

func TestCIPageShowsTheExampleWorkflow(t *testing.T) {
	page, err := os.ReadFile(ciPage)
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range yamlBlock.FindAllSubmatch(page, -1) {
		if bytes.Equal(m[1], example) {
			return
		}
	}
	t.Errorf("%s has no ```yaml block equal to %s: the page shows the workflow the test lints", ciPage, exampleFile)
}

// action is the part of action.yml the checks read.
type action struct {
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string    `yaml:"using"`
		Steps yaml.Node `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T) (action, []byte) {
	t.Helper()
	raw, err := os.ReadFile(actionFile)
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.Unmarshal(raw, &a); err != nil {
		t.Fatalf("%s: %v", actionFile, err)
	}
	if a.Runs.Using != "composite" || len(a.Runs.Steps.Content) == 0 {
		t.Fatalf("%s: runs.using %q with %d steps, want a composite action", actionFile, a.Runs.Using, len(a.Runs.Steps.Content))
	}
	return a, raw
}

// usingWorkflow is a workflow that uses the Action (uses: ./) with the
// given inputs, as a repository's workflow would.
func usingWorkflow(with map[string]string) []byte {
	var b strings.Builder
	b.WriteString("on: push\njobs:\n  sealmark:\n    runs-on: ubuntu-latest\n    permissions:\n      security-events: write\n    steps:\n")
	b.WriteString("      - uses: actions/checkout@v4\n      - uses: ./\n        id: sealmark\n        with:\n")
	for name, value := range with {
		fmt.Fprintf(&b, "          %s: %q\n", name, value)
	}
	b.WriteString("      - if: always()\n        run: echo \"${{ steps.sealmark.outputs.exit-code }}\"\n")
	return []byte(b.String())
}

// TestActionLints lints the Action twice: a workflow that uses it with
// every input (actionlint reads action.yml for the inputs a local action
// takes), and the Action's own steps as the job of a reusable workflow
// whose inputs are the Action's, so actionlint checks their expressions,
// the popular actions' inputs and, with shellcheck, the scripts.
func TestActionLints(t *testing.T) {
	a, _ := readAction(t)
	with := map[string]string{}
	for name := range a.Inputs {
		with[name] = "x"
	}
	noLintErrors(t, "uses ./ with every input", lint(t, "use-action.yml", usingWorkflow(with)))
	noLintErrors(t, "the Action's steps as a workflow", lint(t, "action-steps.yml", stepsWorkflow(t, a)))
}

// stepsWorkflow is a reusable workflow whose one job runs the Action's
// steps, its inputs those of the Action.
func stepsWorkflow(t *testing.T, a action) []byte {
	t.Helper()
	inputs := map[string]any{}
	for name, in := range a.Inputs {
		inputs[name] = map[string]any{"type": "string", "required": false, "description": in.Description}
	}
	doc := map[string]any{
		"on": map[string]any{"workflow_call": map[string]any{"inputs": inputs}},
		"jobs": map[string]any{"action": map[string]any{
			"runs-on": "ubuntu-latest",
			"steps":   &a.Runs.Steps,
		}},
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLintCatchesBrokenWorkflows proves the checks above can fail: each
// broken workflow or Action draws an error from actionlint.
func TestLintCatchesBrokenWorkflows(t *testing.T) {
	a, _ := readAction(t)
	cases := map[string]struct {
		workflow []byte
		want     string // in an error's message
	}{
		"an input the Action does not have":        {usingWorkflow(map[string]string{"no-such-input": "x"}), `input "no-such-input" is not defined in action "Sealmark"`},
		"a broken expression":                      {[]byte("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.x.outputs. }}\n"), "unexpected end of input"},
		"not YAML":                                 {[]byte("on: push\njobs:\n  x:\n    runs-on: [ubuntu-latest\n"), "could not parse"},
		"a step with neither run nor uses":         {[]byte("on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - name: nothing\n"), `step must run script with "run" section or run action with "uses" section`},
		"an Action step reading an input it lacks": {brokenSteps(t, a, "${{ inputs.fail-on }}", "${{ inputs.no-such-input }}"), `property "no-such-input" is not defined`},
		"an unknown input of upload-artifact":      {brokenSteps(t, a, "if-no-files-found:", "if-no-file-found:"), `input "if-no-file-found" is not defined`},
	}
	if _, err := exec.LookPath("shellcheck"); err == nil {
		cases["an unquoted array in a script"] = struct {
			workflow []byte
			want     string
		}{brokenSteps(t, a, `"$SM_BIN" "${argv[@]}"`, `"$SM_BIN" ${argv[@]}`), "SC2068"}
	}
	for name, tc := range cases {
		errs := lint(t, "broken.yml", tc.workflow)
		found := false
		for _, e := range errs {
			found = found || strings.Contains(e.Message, tc.want)
		}
		if !found {
			t.Errorf("%s: actionlint found %d errors, none saying %q: %v", name, len(errs), tc.want, errs)
		}
	}
}

// brokenSteps is stepsWorkflow with old replaced by new in the Action's
// steps.
func brokenSteps(t *testing.T, a action, old, new string) []byte {
	t.Helper()
	out := string(stepsWorkflow(t, a))
	if !strings.Contains(out, old) {
		t.Fatalf("the Action's steps have no %q to break", old)
	}
	return []byte(strings.Replace(out, old, new, 1))
}
