package sarifcheck

import (
	"strings"
	"testing"
)

func TestUploadableNeedsAFile(t *testing.T) {
	located := `{"runs":[{"results":[{"ruleId":"A","locations":[{"physicalLocation":{"artifactLocation":{"uri":"go.mod"}}}]}]}]}`
	if errs := uploadable([]byte(located)); len(errs) != 0 {
		t.Errorf("a result at a file: %v, want none", errs)
	}
	for name, log := range map[string]string{
		"logical only": `{"runs":[{"results":[{"ruleId":"A","locations":[{"logicalLocations":[{"name":"node"}]}]}]}]}`,
		"no location":  `{"runs":[{"results":[{"ruleId":"A","locations":[]}]}]}`,
		"empty uri":    `{"runs":[{"results":[{"ruleId":"A","locations":[{"physicalLocation":{"artifactLocation":{"uri":""}}}]}]}]}`,
	} {
		errs := uploadable([]byte(log))
		if len(errs) != 1 || !strings.Contains(errs[0], "runs[0].results[0] (A) names no file") {
			t.Errorf("%s: %v, want the result named", name, errs)
		}
	}
}
