package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/sarifcheck"
	"github.com/sealmark/sealmark/packs"
)

// junitRoot is a JUnit XML document as a CI server reads it.
type junitRoot struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Classname string `xml:"classname,attr"`
			Name      string `xml:"name,attr"`
			Failure   *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rep, err := report.ReadJSON(f)
	require.NoError(t, err)
	return rep
}

// flawed has findings of three severities, one with a CWE and evidence the
// report must redact (the canary echo).
const flawed = "echo-canary,stdout-banner,bad-tool-name,wrong-unknown-method-code"

func TestReportsOfARealRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: every report format of a real run")
	}
	t.Parallel() // its runs are sandboxed and mostly wait on the server
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	code, _, errOut := sealmark(t, append(runArgs(t, "--json", at("first.json"), "--"), serverArgs(t, flawed)...)...)
	require.Equal(t, 1, code, errOut)

	// baseline write without a reason: a file --baseline refuses until the
	// justifications are written in.
	code, out, errOut := sealmark(t, "baseline", "write", "--out", at("base.json"), at("first.json"))
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `wrote \d+ accepted findings to .*base.json\n\d+ entries have no justification yet`, out)
	code, _, errOut = sealmark(t, append(runArgs(t, "--baseline", at("base.json"), "--"), serverArgs(t, flawed)...)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "no justification: say why the finding is accepted")

	// Accept the banner only, with a reason.
	raw, err := os.ReadFile(at("base.json"))
	require.NoError(t, err)
	var base report.Baseline
	require.NoError(t, json.Unmarshal(raw, &base))
	var kept []report.BaselineEntry
	for _, e := range base.Accepted {
		if e.Probe == "CORE-STDOUT-JSONRPC" {
			e.Justification = "the banner goes away in v2"
			kept = append(kept, e)
		}
	}
	require.Len(t, kept, 1)
	raw, err = json.Marshal(report.Baseline{Accepted: kept})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(at("base.json"), raw, 0o600))

	code, _, errOut = sealmark(t, append(runArgs(t, "--baseline", at("base.json"), "--json", at("r.json"), "--sarif", at("r.sarif"), "--junit", at("r.xml"), "--"), serverArgs(t, flawed)...)...)
	require.Equal(t, 1, code, errOut)
	rep := readReport(t, at("r.json"))
	sarif, err := os.ReadFile(at("r.sarif"))
	require.NoError(t, err)
	junit, err := os.ReadFile(at("r.xml"))
	require.NoError(t, err)
	for name, b := range map[string][]byte{"SARIF": sarif, "JUnit": junit} {
		for _, secret := range []string{"sm-canary-", "sk-sealmark-fake-"} {
			assert.NotContains(t, string(b), secret, "%s shows a secret", name)
		}
	}

	t.Run("SARIF", func(t *testing.T) {
		var log struct {
			Runs []struct {
				Tool struct {
					Driver struct {
						Rules []struct {
							ID         string
							Properties struct{ Tags []string }
						}
					}
				}
				Results []struct {
					RuleID       string
					Level        string
					Suppressions []struct{ Kind, Status, Justification string }
				}
			}
		}
		require.NoError(t, json.Unmarshal(sarif, &log))
		levels, suppressed := map[string]bool{}, 0
		for _, r := range log.Runs[0].Results {
			levels[r.Level] = true
			if len(r.Suppressions) > 0 {
				suppressed++
				assert.Equal(t, "CORE-STDOUT-JSONRPC", r.RuleID)
				assert.Equal(t, "the banner goes away in v2", r.Suppressions[0].Justification)
			}
		}
		assert.Equal(t, map[string]bool{"error": true, "warning": true, "note": true}, levels, "critical, medium and low findings")
		assert.Equal(t, 1, suppressed, "the accepted finding is a suppressed result")
		var cwe bool
		for _, r := range log.Runs[0].Tool.Driver.Rules {
			cwe = cwe || (r.ID == "CORE-SECRET-ECHO" && assert.Contains(t, r.Properties.Tags, "external/cwe/cwe-200"))
		}
		assert.True(t, cwe, "the secret-echo rule carries its CWE")

		sch := sarifcheck.Schema(t, "../..")
		require.NoError(t, sarifcheck.Validate(sch, sarif), "the official SARIF 2.1.0 schema rejects the run's log")
		broken := bytes.Replace(sarif, []byte(`"level": "error"`), []byte(`"level": "severe"`), 1)
		require.NotEqual(t, sarif, broken)
		assert.Error(t, sarifcheck.Validate(sch, broken), "the schema accepts a result of level severe: the validation proves nothing")

		// Code scanning's own rules, as Microsoft's SARIF multitool checks
		// them: none broken by a real run's log.
		assert.Empty(t, sarifcheck.GitHub(t, sarif), "the SARIF multitool's GitHub rules")
		var generic map[string]any
		require.NoError(t, json.Unmarshal(sarif, &generic))
		for _, r := range generic["runs"].([]any)[0].(map[string]any)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any) {
			delete(r.(map[string]any), "help")
		}
		helpless, err := json.Marshal(generic)
		require.NoError(t, err)
		assert.Contains(t, strings.Join(sarifcheck.GitHub(t, helpless), "\n"), "GH2012: ", "the multitool finds no rule without help: the check proves nothing")
	})

	t.Run("JUnit", func(t *testing.T) {
		var doc junitRoot
		dec := xml.NewDecoder(bytes.NewReader(junit))
		dec.Strict = true
		require.NoError(t, dec.Decode(&doc))
		var probes, failures, errs, skipped int
		for _, pk := range rep.Packs {
			for _, pr := range pk.Probes {
				probes++
				switch pr.Verdict {
				case packs.Failed:
					// At the default fail bar (high): the critical echo
					// fails, the accepted banner is skipped, the medium
					// and low findings are passed testcases (warnings).
					switch report.ProbeOutcome(pr, packs.High) {
					case report.OutcomeFail:
						failures++
					case report.OutcomeAccepted:
						require.True(t, allAccepted(pr))
						skipped++
					}
				case packs.Errored:
					errs++
				case packs.NotApplicable, packs.Inconclusive:
					skipped++
				}
			}
		}
		require.Greater(t, skipped, 1)
		assert.Equal(t, []int{probes, failures, errs, skipped}, []int{doc.Tests, doc.Failures, doc.Errors, doc.Skipped}, "tests, failures, errors, skipped")
		var cases, byVerdict int
		for _, s := range doc.Suites {
			cases += len(s.Cases)
			for _, c := range s.Cases {
				if c.Failure != nil || c.Skipped != nil || c.Error != nil {
					byVerdict++
				}
				switch c.Name {
				case "secret-echo":
					if assert.NotNil(t, c.Failure, "secret-echo") {
						assert.Contains(t, c.Failure.Message, "CORE-SECRET-ECHO critical")
					}
				case "tools-list":
					assert.Nil(t, c.Failure, "a low and a medium finding below --fail-on high: a passed testcase")
					assert.Contains(t, c.SystemOut, "warning: below fail_on high\nCORE-TOOLS-LIST low: ")
				case "stdout-jsonrpc-only":
					if assert.NotNil(t, c.Skipped, "the accepted probe is skipped, not failed") {
						assert.Equal(t, "CORE-STDOUT-JSONRPC accepted by the baseline: the banner goes away in v2", c.Skipped.Message)
					}
				}
			}
		}
		assert.Equal(t, probes, cases, "one testcase per probe")
		assert.Equal(t, failures+errs+skipped, byVerdict)
		assert.Equal(t, 1, failures, "only the critical finding fails")
	})
}

func allAccepted(pr report.Probe) bool {
	for _, f := range pr.Findings {
		if f.Accepted == "" {
			return false
		}
	}
	return len(pr.Findings) > 0
}

func TestBaselineWriteAcceptsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run writing a baseline and one reading it")
	}
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	code, _, errOut := sealmark(t, append(runArgs(t, "--fail-on", "low", "--json", at("r.json"), "--"), serverArgs(t, "stdout-banner")...)...)
	require.Equal(t, 1, code, errOut)
	code, out, errOut := sealmark(t, "baseline", "write", "--out", at("b.json"), "--justification", "accepted at release 2", at("r.json"))
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "no justification")
	code, out, errOut = sealmark(t, append(runArgs(t, "--fail-on", "low", "--baseline", at("b.json"), "--"), serverArgs(t, "stdout-banner")...)...)
	assert.Equal(t, 0, code, "every finding accepted: %s %s", out, errOut)
	assert.Contains(t, out, "accepted by the baseline: accepted at release 2")

	code, _, errOut = sealmark(t, "baseline", "write", "--out", at("b2.json"), at("missing.json"))
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "missing.json")
	require.NoError(t, os.WriteFile(at("bad.json"), []byte("not json"), 0o600))
	code, _, errOut = sealmark(t, "baseline", "write", "--out", at("b2.json"), at("bad.json"))
	assert.Equal(t, 3, code)
	assert.Contains(t, errOut, "sealmark baseline write: "+at("bad.json")+": ")
	code, _, errOut = sealmark(t, "baseline", "write", "--out", at("b2.json"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "want one JSON report (from sealmark run --json), got 0 arguments")
}

func TestDiffFailOn(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: diff's --fail-on over two runs")
	}
	t.Parallel()
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	code, _, errOut := sealmark(t, append(runArgs(t, "--json", at("new.json"), "--"), serverArgs(t, "stdout-banner")...)...)
	require.Equal(t, 0, code, errOut)
	// The old report: the same run without the banner's finding.
	rep := readReport(t, at("new.json"))
	removed := 0
	for pi := range rep.Packs {
		for qi := range rep.Packs[pi].Probes {
			pr := &rep.Packs[pi].Probes[qi]
			if pr.ID == "CORE-STDOUT-JSONRPC" {
				pr.Verdict, pr.Findings, removed = packs.Passed, nil, removed+1
			}
		}
	}
	require.Equal(t, 1, removed)
	var buf bytes.Buffer
	require.NoError(t, report.WriteJSON(&buf, rep))
	require.NoError(t, os.WriteFile(at("old.json"), buf.Bytes(), 0o600))

	code, out, _ := sealmark(t, "diff", at("old.json"), at("new.json"))
	assert.Equal(t, 0, code, "a new medium finding is below the default bar, high: %s", out)
	assert.Contains(t, out, "new: ")
	assert.Contains(t, out, "nothing new at or above --fail-on high")
	code, out, _ = sealmark(t, "diff", "--fail-on", "medium", at("old.json"), at("new.json"))
	assert.Equal(t, 1, code, out)
	assert.NotContains(t, out, "nothing new at or above")
	code, _, _ = sealmark(t, "diff", "--fail-on", "low", at("new.json"), at("old.json"))
	assert.Equal(t, 0, code, "a fixed finding is no regression")
}

func TestReportToStandardOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a run writing its report to standard output")
	}
	code, out, errOut := sealmark(t, append(runArgs(t, "--packs", "core", "--json", "-", "--"), serverArgs(t, "echo-canary")...)...)
	assert.Equal(t, 1, code, errOut)
	rep, err := report.ReadJSON(strings.NewReader(out))
	require.NoError(t, err, "standard output is the JSON report alone:\n%s", out)
	assert.Equal(t, "high", rep.FailOn)
	assert.Contains(t, errOut, "summary: ", "the text report goes to standard error")
	assert.NoFileExists(t, "-", "no file named -")

	code, _, errOut = sealmark(t, append(runArgs(t, "--json", "-", "--sarif", "-", "--"), serverArgs(t, "")...)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "sealmark run: flag --json: report.json and flag --sarif: report.sarif: only one report can go to standard output (-)")
}
