package tools

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"
)

// inputRow is a row of docs/ci.md's inputs table.
var inputRow = regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|")

// TestActionInputsUsedAndDocumented keeps action.yml's inputs, the steps
// that read them and docs/ci.md's inputs table the same set.
func TestActionInputsUsedAndDocumented(t *testing.T) {
	a, _ := readAction(t)
	steps, err := yaml.Marshal(&a.Runs.Steps)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(ciPage)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range inputRow.FindAllStringSubmatch(string(page), -1) {
		documented[m[1]] = true
	}
	if msg := inputsMismatch(a, string(steps), documented); msg != "" {
		t.Error(msg)
	}
}

// inputsMismatch says what is wrong between the Action's inputs, the text
// of its steps and the documented input names, or "" when nothing is.
func inputsMismatch(a action, steps string, documented map[string]bool) string {
	var problems []string
	for name, in := range a.Inputs {
		if !strings.Contains(steps, "inputs."+name+" ") && !strings.Contains(steps, "inputs."+name+"}") {
			problems = append(problems, "input "+name+": no step reads it")
		}
		if !documented[name] {
			problems = append(problems, "input "+name+": not in "+ciPage+"'s inputs table")
		}
		if strings.TrimSpace(in.Description) == "" {
			problems = append(problems, "input "+name+": no description")
		}
	}
	for name := range documented {
		if _, ok := a.Inputs[name]; !ok {
			problems = append(problems, ciPage+" documents input "+name+", which action.yml does not have")
		}
	}
	sort.Strings(problems)
	return strings.Join(problems, "\n")
}

func TestInputsMismatchSeesEachGap(t *testing.T) {
	a, _ := readAction(t)
	steps, err := yaml.Marshal(&a.Runs.Steps)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for name := range a.Inputs {
		all[name] = true
	}
	if msg := inputsMismatch(a, string(steps), all); msg != "" {
		t.Fatalf("every input documented: %s", msg)
	}
	undocumented := map[string]bool{}
	for name := range all {
		undocumented[name] = name != "fail-on"
	}
	undocumented["no-such-input"] = true
	unread := strings.ReplaceAll(string(steps), "inputs.packs ", "inputs.other ")
	msg := inputsMismatch(a, unread, undocumented)
	for _, want := range []string{"input fail-on: not in", "documents input no-such-input", "input packs: no step reads it"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the gaps found: %q, want one saying %q", msg, want)
		}
	}
}
