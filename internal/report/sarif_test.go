package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sealmark/sealmark/packs"
)

// sarifDoc is the part of a SARIF log the checks read back.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name           string `json:"name"`
				Version        string `json:"version"`
				InformationURI string `json:"informationUri"`
				Rules          []struct {
					ID                   string `json:"id"`
					Name                 string `json:"name"`
					ShortDescription     struct{ Text string }
					HelpURI              string `json:"helpUri"`
					Help                 struct{ Text, Markdown string }
					DefaultConfiguration struct{ Level string }
					Properties           struct {
						Tags             []string `json:"tags"`
						SecuritySeverity string   `json:"security-severity"`
					}
				}
			}
		}
		AutomationDetails struct{ ID string }
		Invocations       []struct {
			ExecutionSuccessful        bool `json:"executionSuccessful"`
			ToolExecutionNotifications []struct {
				Level   string
				Message struct{ Text string }
			}
		}
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation struct{ URI string }
					Region           struct{ StartLine int }
				}
				LogicalLocations []struct{ Name string }
			}
			PartialFingerprints map[string]string
			Properties          map[string]string
		}
		Properties map[string]any
	}
}

// writeSARIF writes rep with opts and reads it back.
func writeSARIF(t *testing.T, rep *Report, opts SARIFOptions) (sarifDoc, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, rep, opts); err != nil {
		t.Fatalf("WriteSARIF: %v", err)
	}
	var doc sarifDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("SARIF does not parse: %v\n%s", err, buf.Bytes())
	}
	if len(doc.Runs) != 1 {
		t.Fatalf("SARIF has %d runs, want 1", len(doc.Runs))
	}
	return doc, buf.Bytes()
}

// checkSARIF reports every way doc breaks what code scanning relies on.
func checkSARIF(t *testing.T, doc sarifDoc) {
	t.Helper()
	if doc.Version != "2.1.0" || doc.Schema != "https://json.schemastore.org/sarif-2.1.0.json" {
		t.Errorf("version %q, $schema %q, want 2.1.0 and the schemastore URL", doc.Version, doc.Schema)
	}
	run := doc.Runs[0]
	if run.Tool.Driver.Name != "sealmark" {
		t.Errorf("driver name = %q, want sealmark", run.Tool.Driver.Name)
	}
	levels := []string{"error", "warning", "note"}
	rules := map[string]int{}
	for i, r := range run.Tool.Driver.Rules {
		if _, dup := rules[r.ID]; dup || r.ID == "" {
			t.Errorf("rule %d: id %q is empty or not unique", i, r.ID)
		}
		rules[r.ID] = i
		if !slices.Contains(levels, r.DefaultConfiguration.Level) {
			t.Errorf("rule %s: level %q, want one of %v", r.ID, r.DefaultConfiguration.Level, levels)
		}
		if r.ShortDescription.Text == "" {
			t.Errorf("rule %s: empty shortDescription", r.ID)
		}
		security := slices.ContainsFunc(r.Properties.Tags, func(tag string) bool { return strings.HasPrefix(tag, "external/cwe/") })
		switch {
		case security != slices.Contains(r.Properties.Tags, "security"):
			t.Errorf("rule %s: tags %v: security exactly when a CWE is named", r.ID, r.Properties.Tags)
		case security:
			if s, err := strconv.ParseFloat(r.Properties.SecuritySeverity, 64); err != nil || s < 0 || s > 10 {
				t.Errorf("rule %s: security-severity %q, want a score in [0, 10]", r.ID, r.Properties.SecuritySeverity)
			}
		case r.Properties.SecuritySeverity != "":
			t.Errorf("rule %s: a protocol-hygiene rule with security-severity %q", r.ID, r.Properties.SecuritySeverity)
		}
		if r.Help.Text == "" || !strings.Contains(r.Help.Markdown, "**Why it matters.**") || !strings.Contains(r.Help.Markdown, "**How to fix.**") {
			t.Errorf("rule %s: help %+v, want the rule, why it matters and how to fix it", r.ID, r.Help)
		}
		if !strings.HasPrefix(r.HelpURI, "https://") {
			t.Errorf("rule %s: helpUri %q", r.ID, r.HelpURI)
		}
	}
	if run.Tool.Driver.InformationURI != InformationURI {
		t.Errorf("informationUri %q, want %q", run.Tool.Driver.InformationURI, InformationURI)
	}
	if id := run.AutomationDetails.ID; !strings.HasPrefix(id, "sealmark/") || !strings.HasSuffix(id, "/") {
		t.Errorf("automationDetails.id %q, want sealmark/<server>/", id)
	}
	for i, res := range run.Results {
		ri, ok := rules[res.RuleID]
		if !ok || ri != res.RuleIndex {
			t.Errorf("result %d: ruleId %q ruleIndex %d, want a rule at that index (rules %v)", i, res.RuleID, res.RuleIndex, rules)
		}
		if !slices.Contains(levels, res.Level) {
			t.Errorf("result %d: level %q, want one of %v", i, res.Level, levels)
		}
		if res.PartialFingerprints[SARIFFingerprintKey] == "" {
			t.Errorf("result %d: partialFingerprints %v lack %s", i, res.PartialFingerprints, SARIFFingerprintKey)
		}
		if res.Message.Text == "" {
			t.Errorf("result %d: empty message", i)
		}
		if len(res.Locations) != 1 {
			t.Errorf("result %d: %d locations, want 1", i, len(res.Locations))
		} else if ph := res.Locations[0].PhysicalLocation; ph != nil && (ph.ArtifactLocation.URI == "" || ph.Region.StartLine != 1) {
			t.Errorf("result %d: physical location %+v, want a file at line 1", i, *ph)
		}
	}
	if len(run.Invocations) != 1 {
		t.Errorf("%d invocations, want 1", len(run.Invocations))
	}
}

func TestWriteSARIFGolden(t *testing.T) {
	tests := []struct {
		name string
		rep  *Report
	}{
		{"standard.sarif.golden", sampleReport()},
		{"custom.sarif.golden", customReport()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Finalize(tt.rep, sampleRedactor())
			var buf bytes.Buffer
			if err := WriteSARIF(&buf, tt.rep, SARIFOptions{}); err != nil {
				t.Fatal(err)
			}
			assertGolden(t, buf.Bytes(), tt.name)
		})
	}
}

func TestWriteSARIFStructure(t *testing.T) {
	for _, rep := range []*Report{sampleReport(), customReport()} {
		Finalize(rep, sampleRedactor())
		doc, first := writeSARIF(t, rep, SARIFOptions{})
		checkSARIF(t, doc)
		_, second := writeSARIF(t, rep, SARIFOptions{})
		if !bytes.Equal(first, second) {
			t.Errorf("two writes of one report differ")
		}

		// Every finding of a failing probe is one result, in order, with
		// its fingerprint; probes of every verdict have a rule.
		var wantFPs []string
		nProbes := 0
		for _, pk := range rep.Packs {
			for _, pr := range pk.Probes {
				nProbes++
				if pr.Verdict == packs.Failed {
					for _, f := range failureFindings(pr) {
						wantFPs = append(wantFPs, f.Fingerprint)
					}
				}
			}
		}
		var gotFPs []string
		for _, res := range doc.Runs[0].Results {
			gotFPs = append(gotFPs, res.PartialFingerprints[SARIFFingerprintKey])
		}
		if !slices.Equal(gotFPs, wantFPs) {
			t.Errorf("result fingerprints %v, want %v", gotFPs, wantFPs)
		}
		if got := len(doc.Runs[0].Tool.Driver.Rules); got != nProbes {
			t.Errorf("%d rules, want one per probe that ran (%d)", got, nProbes)
		}
	}
}

func TestWriteSARIFStableAcrossRuns(t *testing.T) {
	a, b := newRun(), newRun()
	fingerprints := func(ru run) map[string]string {
		rep := ru.report()
		Finalize(rep, ru.redactor())
		doc, _ := writeSARIF(t, rep, SARIFOptions{})
		return doc.Runs[0].Results[0].PartialFingerprints
	}
	fa, fb := fingerprints(a), fingerprints(b)
	if fa[SARIFFingerprintKey] == "" || fa[SARIFFingerprintKey] != fb[SARIFFingerprintKey] {
		t.Errorf("fingerprints of two runs of one server: %v and %v, want equal and set", fa, fb)
	}
}

func TestWriteSARIFLevels(t *testing.T) {
	tests := []struct {
		sev          packs.Severity
		level, score string
	}{
		{packs.Critical, "error", "9.5"},
		{packs.High, "error", "7.5"},
		{packs.Medium, "warning", "5.0"},
		{packs.Low, "note", "3.0"},
		{packs.Info, "note", "0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.sev.String(), func(t *testing.T) {
			rep := &Report{Packs: []Pack{{Name: "p", Probes: []Probe{{
				ID: "P-1", Name: "one", Verdict: packs.Failed, Severity: tt.sev, CWE: "CWE-20",
				Findings: []packs.Finding{{Severity: tt.sev, Message: "m"}},
			}}}}}
			doc, _ := writeSARIF(t, rep, SARIFOptions{})
			checkSARIF(t, doc)
			rule := doc.Runs[0].Tool.Driver.Rules[0]
			if rule.DefaultConfiguration.Level != tt.level || rule.Properties.SecuritySeverity != tt.score {
				t.Errorf("rule level %q score %q, want %q %q", rule.DefaultConfiguration.Level, rule.Properties.SecuritySeverity, tt.level, tt.score)
			}
			if got := doc.Runs[0].Results[0].Level; got != tt.level {
				t.Errorf("result level %q, want %q", got, tt.level)
			}
		})
	}
}

func TestWriteSARIFResultsOnlyForFailures(t *testing.T) {
	note := []packs.Finding{{Severity: packs.High, Message: "seen but not judged"}}
	rep := &Report{Packs: []Pack{{Name: "p", Probes: []Probe{
		{ID: "PASS", Name: "a", Verdict: packs.Passed, Findings: note},
		{ID: "NA", Name: "b", Verdict: packs.NotApplicable, Reason: "no tool", Findings: note},
		{ID: "INC", Name: "c", Verdict: packs.Inconclusive, Reason: "timed out", Findings: note},
		{ID: "ERR", Name: "d", Verdict: packs.Errored, Reason: "observer lost data"},
		{ID: "FAIL", Name: "e", Verdict: packs.Failed, Severity: packs.Medium, Reason: "control differed"},
	}}}}
	doc, _ := writeSARIF(t, rep, SARIFOptions{})
	checkSARIF(t, doc)
	run := doc.Runs[0]
	var ids []string
	for _, r := range run.Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if want := []string{"PASS", "NA", "INC", "ERR", "FAIL"}; !slices.Equal(ids, want) {
		t.Errorf("rules %v, want %v", ids, want)
	}
	if len(run.Results) != 1 {
		t.Fatalf("%d results, want 1 (the failing probe): %+v", len(run.Results), run.Results)
	}
	res := run.Results[0]
	// A failure without a finding still shows, described by its reason.
	if res.RuleID != "FAIL" || res.Level != "warning" || res.Message.Text != "control differed" {
		t.Errorf("result %s %s %q, want FAIL warning %q", res.RuleID, res.Level, res.Message.Text, "control differed")
	}
	if got, want := res.PartialFingerprints[SARIFFingerprintKey], Fingerprint("FAIL", "control differed"); got != want {
		t.Errorf("fingerprint %q, want %q", got, want)
	}
	inv := run.Invocations[0]
	if !inv.ExecutionSuccessful {
		t.Error("executionSuccessful false without a harness error")
	}
	if len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Message.Text != "ERR: observer lost data" {
		t.Errorf("notifications %+v, want the errored probe's", inv.ToolExecutionNotifications)
	}
}

func TestWriteSARIFResultDetails(t *testing.T) {
	rep := &Report{
		Server: Server{URL: "http://127.0.0.1:{port}/mcp"},
		Packs: []Pack{{Name: "fs", Probes: []Probe{{
			ID: "FS-1", Name: "escape", Verdict: packs.Failed, Severity: packs.High,
			Findings: []packs.Finding{
				{Severity: packs.High, Confidence: packs.ConfidenceMedium, Message: "read outside", CWE: "CWE-22",
					Evidence: []packs.Evidence{{Observer: "files", Detail: "opened {sandbox}/../x"}}},
				{Severity: packs.Low, Message: "also", CWE: "cwe-200"},
				{Severity: packs.Low, Message: "again", CWE: "22"},
				{Severity: packs.Low, Message: "odd", CWE: "see CWE list"},
			},
		}}}},
	}
	doc, _ := writeSARIF(t, rep, SARIFOptions{ArtifactURI: "configs/notes.yaml"})
	checkSARIF(t, doc)
	run := doc.Runs[0]
	tags := run.Tool.Driver.Rules[0].Properties.Tags
	if want := []string{"security", "fs", "external/cwe/cwe-200", "external/cwe/cwe-22"}; !slices.Equal(tags, want) {
		t.Errorf("tags %v, want %v", tags, want)
	}
	res := run.Results[0]
	if want := "read outside\nevidence: files: opened {sandbox}/../x"; res.Message.Text != want {
		t.Errorf("message %q, want %q", res.Message.Text, want)
	}
	if got := res.Locations[0].PhysicalLocation; got == nil || got.ArtifactLocation.URI != "configs/notes.yaml" {
		t.Errorf("artifact %+v, want the ArtifactURI option", got)
	}
	if got := res.Locations[0].LogicalLocations; len(got) != 1 || got[0].Name != "http://127.0.0.1:{port}/mcp" {
		t.Errorf("logical locations %+v, want the server URL", got)
	}
	want := map[string]string{"pack": "fs", "probe": "escape", "verdict": "fail", "severity": "high", "confidence": "medium", "cwe": "CWE-22"}
	for k, v := range want {
		if res.Properties[k] != v {
			t.Errorf("properties[%s] = %q, want %q", k, res.Properties[k], v)
		}
	}

	// Without a config file, results name no file: never one that does
	// not exist. The server stays their logical location.
	_, raw := writeSARIF(t, rep, SARIFOptions{})
	if bytes.Contains(raw, []byte("physicalLocation")) || bytes.Contains(raw, []byte("sealmark.yaml")) {
		t.Errorf("a run without a config file names a file:\n%s", raw)
	}
	if !bytes.Contains(raw, []byte(`"name": "http://127.0.0.1:{port}/mcp"`)) {
		t.Errorf("the server is no longer the logical location:\n%s", raw)
	}
}

func TestWriteSARIFHarnessError(t *testing.T) {
	rep := &Report{Class: Custom, ClassReasons: []string{"--no-sandbox"}, HarnessError: "server exited during initialize"}
	Finalize(rep, nil)
	doc, raw := writeSARIF(t, rep, SARIFOptions{})
	checkSARIF(t, doc)
	inv := doc.Runs[0].Invocations[0]
	if inv.ExecutionSuccessful {
		t.Error("executionSuccessful true with a harness error")
	}
	if len(inv.ToolExecutionNotifications) != 1 || inv.ToolExecutionNotifications[0].Level != "error" ||
		inv.ToolExecutionNotifications[0].Message.Text != "server exited during initialize" {
		t.Errorf("notifications %+v, want the harness error", inv.ToolExecutionNotifications)
	}
	if !bytes.Contains(raw, []byte(`"results": []`)) {
		t.Errorf("results is not an empty list:\n%s", raw)
	}
	if got := doc.Runs[0].Properties["class"]; got != Custom {
		t.Errorf("run class %v, want %s", got, Custom)
	}
}

func TestWriteSARIFDuplicateProbeIDs(t *testing.T) {
	fail := func(id, name, msg string) Probe {
		return Probe{ID: id, Name: name, Verdict: packs.Failed, Severity: packs.High, Findings: []packs.Finding{{Severity: packs.High, Message: msg}}}
	}
	rep := &Report{Packs: []Pack{
		{Name: "a", Probes: []Probe{fail("X", "x", "one"), fail("", "unnamed", "two")}},
		{Name: "b", Probes: []Probe{fail("Y", "y", "three"), fail("X", "x-again", "four")}},
	}}
	doc, _ := writeSARIF(t, rep, SARIFOptions{})
	checkSARIF(t, doc) // ids unique, every ruleIndex right
	var ids []string
	for _, r := range doc.Runs[0].Tool.Driver.Rules {
		ids = append(ids, r.ID)
	}
	if want := []string{"X", "a/unnamed", "Y"}; !slices.Equal(ids, want) {
		t.Errorf("rules %v, want %v", ids, want)
	}
	if n := len(doc.Runs[0].Results); n != 4 {
		t.Errorf("%d results, want 4", n)
	}
}

func TestWriteSARIFHostileText(t *testing.T) {
	hostile := "a\x00b\x1b[2Jc\xffd\u202ee\r\nsecond line"
	rep := &Report{
		Server: Server{Command: "node\x1b", Args: []string{hostile}},
		Packs: []Pack{{Name: "p\x07", Probes: []Probe{{
			ID: "P\x00", Name: hostile, Doc: hostile, Verdict: packs.Failed, Severity: packs.High,
			Findings: []packs.Finding{{Severity: packs.High, Message: hostile, CWE: hostile,
				Evidence: []packs.Evidence{{Observer: hostile, Detail: hostile}}}},
		}}}},
		Warnings:     []string{hostile},
		HarnessError: hostile,
	}
	doc, raw := writeSARIF(t, rep, SARIFOptions{})
	checkSARIF(t, doc)
	if !utf8.Valid(raw) {
		t.Error("SARIF is not valid UTF-8")
	}
	var all []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			all = append(all, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				all = append(all, k)
				walk(e)
			}
		}
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	walk(generic)
	for _, s := range all {
		for _, r := range s {
			if (unicode.IsControl(r) && r != '\n') || r == utf8.RuneError || bidi(r) {
				t.Errorf("SARIF string %q holds %U", s, r)
				break
			}
		}
	}
	msg := doc.Runs[0].Results[0].Message.Text
	if !strings.Contains(msg, `a\x00b\x1b[2Jc\xffd\u202ee`) || !strings.Contains(msg, "\nsecond line") {
		t.Errorf("message %q does not show the hostile text escaped, line by line", msg)
	}
}

func TestWriteSARIFAcceptedFindingIsSuppressed(t *testing.T) {
	fail := func(msg, accepted string) packs.Finding {
		return packs.Finding{Severity: packs.High, Message: msg, Accepted: accepted}
	}
	rep := &Report{Packs: []Pack{{Name: "core", Probes: []Probe{{
		ID: "X", Name: "x", Verdict: packs.Failed, Severity: packs.High,
		Findings: []packs.Finding{fail("open", ""), fail("kept", "old clients need it\nuntil v3")},
	}}}}}
	Finalize(rep, nil)
	_, raw := writeSARIF(t, rep, SARIFOptions{})
	var doc struct {
		Runs []struct {
			Results []struct {
				Message      struct{ Text string }
				Suppressions []struct{ Kind, Status, Justification string }
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	res := doc.Runs[0].Results
	if len(res) != 2 {
		t.Fatalf("%d results, want 2: an accepted finding stays in the log", len(res))
	}
	for _, r := range res {
		switch r.Message.Text {
		case "open":
			if len(r.Suppressions) != 0 {
				t.Errorf("open finding suppressed: %+v", r.Suppressions)
			}
		case "kept":
			want := []struct{ Kind, Status, Justification string }{{"external", "accepted", "old clients need it\nuntil v3"}}
			if !slices.Equal(r.Suppressions, want) {
				t.Errorf("accepted finding suppressions %+v, want %+v", r.Suppressions, want)
			}
		default:
			t.Errorf("unexpected result %q", r.Message.Text)
		}
	}
}

func TestWriteSARIFSecurityOnlyForSecurityRules(t *testing.T) {
	rep := &Report{FailOn: "low", Server: Server{Command: "node", Args: []string{"{cwd}/dist/index.js", "{sandbox}"}},
		Packs: []Pack{{Name: "core", Probes: []Probe{
			{ID: "CORE-UNKNOWN-METHOD", Name: "unknown-method", Verdict: packs.Failed, Severity: packs.Medium,
				Findings: []packs.Finding{{Severity: packs.Medium, Message: "answered -32603"}}},
			{ID: "CORE-SECRET-ECHO", Name: "secret-echo", Verdict: packs.Failed, Severity: packs.Critical, CWE: "CWE-200",
				Findings: []packs.Finding{{Severity: packs.Critical, Message: "echoed", CWE: "CWE-200"}}},
			{ID: "CORE-PARSE-ERROR", Name: "parse-error", Verdict: packs.Failed, Severity: packs.Low,
				Findings: []packs.Finding{{Severity: packs.Low, Message: "no -32700"}}},
		}}}}
	doc, raw := writeSARIF(t, rep, SARIFOptions{})
	checkSARIF(t, doc)
	rules := doc.Runs[0].Tool.Driver.Rules
	if rules[0].Properties.SecuritySeverity != "" || slices.Contains(rules[0].Properties.Tags, "security") {
		t.Errorf("protocol-hygiene rule %s: tags %v security-severity %q, want neither", rules[0].ID, rules[0].Properties.Tags, rules[0].Properties.SecuritySeverity)
	}
	if want := specLegacy + "/basic"; rules[0].HelpURI != want {
		t.Errorf("hygiene helpUri %q, want the spec section %q", rules[0].HelpURI, want)
	}
	if rules[1].Properties.SecuritySeverity != "9.5" || rules[1].HelpURI != "https://cwe.mitre.org/data/definitions/200.html" {
		t.Errorf("security rule: security-severity %q helpUri %q, want 9.5 and the CWE page", rules[1].Properties.SecuritySeverity, rules[1].HelpURI)
	}
	if !strings.Contains(rules[1].Help.Markdown, "[CWE-200: Exposure of Sensitive Information](https://cwe.mitre.org/data/definitions/200.html)") {
		t.Errorf("security help %q lacks the CWE", rules[1].Help.Markdown)
	}
	// At fail_on low every one of them fails the run: level error.
	for _, res := range doc.Runs[0].Results {
		if res.Level != "error" {
			t.Errorf("result %s level %q at fail_on low, want error", res.RuleID, res.Level)
		}
	}
	if got, want := doc.Runs[0].AutomationDetails.ID, AutomationID(rep.Server); got != want || got != "sealmark/index/" {
		t.Errorf("automationDetails.id %q, want %q", got, want)
	}
	other := AutomationID(Server{Command: "python3", Args: []string{"-m", "notes"}})
	if other == AutomationID(rep.Server) {
		t.Errorf("two servers share the category %q", other)
	}
	if bytes.Contains(raw, []byte("sealmark.yaml")) {
		t.Error("a result names sealmark.yaml, which the run never read")
	}
}
