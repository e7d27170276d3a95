package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/sarifcheck"
)

// namedSample is a merged report of three servers: the sample, a custom
// run and one that could not start.
func namedSample() []NamedReport {
	harness := &Report{Schema: SchemaVersion, Class: Standard, HarnessError: "server exited during initialize"}
	Finalize(harness, nil)
	files, custom := sampleReport(), customReport()
	files.Schema, custom.Schema = SchemaVersion, SchemaVersion
	Finalize(files, nil) // as the engine hands reports to the writers
	Finalize(custom, nil)
	return []NamedReport{{"files", files}, {"custom/one", custom}, {"broken", harness}}
}

func TestJSONSetRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSONNamed(&buf, namedSample()))
	got, err := ReadJSONSet(&buf)
	require.NoError(t, err)
	var names []string
	for _, n := range got {
		names = append(names, n.Name)
	}
	assert.Equal(t, []string{"broken", "custom/one", "files"}, names, "in name order")
	assert.Equal(t, "server exited during initialize", got[0].Report.HarnessError)

	for _, bad := range []string{`{}`, `{"a": {"schema": "other"}}`, `[]`} {
		_, err := ReadJSONSet(bytes.NewReader([]byte(bad)))
		assert.Error(t, err, bad)
	}
}

func TestSARIFSetOneRunPerServer(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteSARIFSet(&buf, namedSample(), SARIFOptions{ArtifactURI: "package.json"})) // as scan passes the project's manifest
	if err := sarifcheck.Validate(sarifcheck.Schema(t, "../.."), buf.Bytes()); err != nil {
		t.Errorf("the SARIF schema rejects the merged log: %v\n%s", err, buf.Bytes())
	}
	for _, e := range sarifcheck.GitHub(t, buf.Bytes()) {
		t.Errorf("code scanning would refuse the merged log: %s", e)
	}
	var log struct {
		Runs []struct {
			AutomationDetails struct{ ID string } `json:"automationDetails"`
			Invocations       []struct {
				ExecutionSuccessful bool `json:"executionSuccessful"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &log))
	require.Len(t, log.Runs, 3)
	assert.Equal(t, "sealmark/files/", log.Runs[0].AutomationDetails.ID)
	assert.Equal(t, "sealmark/custom-one/", log.Runs[1].AutomationDetails.ID, "a / in the name would split the category")
	assert.False(t, log.Runs[2].Invocations[0].ExecutionSuccessful, "the server that could not start")
}

func TestJUnitSetOneSuitePerServer(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJUnitSet(&buf, namedSample()))
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	require.Len(t, doc.Suites, 3)
	assert.Equal(t, "files", doc.Suites[0].Name)
	assert.Equal(t, "broken", doc.Suites[2].Name)
	one := junitFor(sampleReport())
	assert.Equal(t, one.Tests, doc.Suites[0].Tests, "every testcase of the server's own JUnit")
	assert.Equal(t, one.Failures, doc.Suites[0].Failures)
	assert.Equal(t, 1, doc.Suites[2].Errors, "the harness error is the server's one error")
	assert.Equal(t, doc.Suites[0].Tests+doc.Suites[1].Tests+doc.Suites[2].Tests, doc.Tests)
	for _, c := range doc.Suites[0].Cases {
		assert.Regexp(t, `^files/`, c.Classname)
	}
}
