package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/sealmark/sealmark/packs"
)

// SARIF's fixed strings.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	// srcRoot is the uriBaseId of a result's file: the repository root,
	// which code scanning resolves to the checkout.
	srcRoot = "%SRCROOT%"
	// SARIFFingerprintKey names the finding's Fingerprint among a SARIF
	// result's partialFingerprints, so code scanning dedupes across runs.
	SARIFFingerprintKey = "sealmarkFingerprint/v1"
)

// SARIFOptions are what WriteSARIF lets the caller choose. The zero
// value is the default.
type SARIFOptions struct {
	// ArtifactURI is the file every result's location names, at line 1: a
	// file that exists in the repository and describes the server
	// (sealmark run passes hostpath.SARIFArtifact: the config file read,
	// else the project's manifest; never a build output). Give it relative
	// to the repository root (uriBaseId %SRCROOT%), with forward slashes,
	// the same in every run: the file is part of an alert's identity.
	// Empty means no file: results carry only the server as a logical
	// location, never a file that does not exist; code scanning refuses
	// to upload such a log.
	ArtifactURI string
	// NoArtifact says why ArtifactURI is empty; the log carries it as a
	// configuration notification, so a reader of the log learns why its
	// results name no file.
	NoArtifact string
	// Category is the run's code scanning category: automationDetails.id
	// is Category followed by "/", and code scanning takes everything up
	// to the id's last "/" as the category, which keeps alerts apart.
	// Empty means "sealmark/" followed by ServerName (AutomationID), so
	// two servers tested in one repository do not close each other's
	// alerts and a run keeps its category however its command is spelled.
	// In WriteSARIFSet, Category is the prefix of each server's category
	// (SetCategory).
	Category string
	// Servers holds, for WriteSARIFSet, each server's own ArtifactURI and
	// NoArtifact by name (its own client configuration); a server not
	// listed takes the options' own.
	Servers map[string]SARIFOptions
}

// AutomationID is the default automationDetails.id of a run against
// server s: "sealmark/" followed by ServerName and "/", so code scanning
// takes "sealmark/NAME" as the category. It is the same in every run of
// the same server however its command is spelled and wherever it runs.
func AutomationID(s Server) string {
	return "sealmark/" + ServerName(s.Command, s.Args, s.URL) + "/"
}

// categoryID is the automationDetails.id of a run in category c: c, with
// any "/" it ends with trimmed, followed by "/".
func categoryID(c string) string {
	return strings.TrimRight(clean(strings.TrimSpace(c)), "/") + "/"
}

// MaxSARIFResults is how many results one SARIF run holds, below
// codeScanningLimit so that a flooded run still uploads.
const MaxSARIFResults = 5000

// codeScanningLimit is how many results GitHub code scanning accepts in one
// SARIF run.
const codeScanningLimit = 25000

// WriteSARIF writes rep as a SARIF 2.1.0 log of one run, for code
// scanning:
//   - one rule per probe that ran, whatever its verdict: id the probe ID,
//     name its name, description its Doc, level from its severity at the
//     report's fail bar (at or above it error, below it warning for medium
//     and higher, note otherwise), "security-severity" from its severity,
//     tagged "security", the pack name and each CWE its findings name
//     ("external/cwe/cwe-200");
//   - one result per finding of a failing probe (a probe that failed
//     without a finding gets one result carrying its reason), with the
//     finding's severity at the fail bar as level (error: it fails the
//     run), message and evidence as text, the Fingerprint under
//     SARIFFingerprintKey, verdict, outcome (fail, warn, accepted),
//     inherited (the SDK whose own behaviour the finding matches, if any),
//     confidence and pack as properties, and a location at line 1 of opts.ArtifactURI that names
//     the server as a logical location; a finding the baseline accepts
//     carries an external, accepted suppression with the justification, so
//     code scanning shows it as dismissed. Not-applicable, inconclusive and
//     passing probes have no results;
//   - invocations[0].executionSuccessful false when HarnessError is set,
//     with the harness error, the sandbox cleanup error and each errored
//     probe as tool execution notifications, and the warnings as
//     configuration notifications. A run that could not start the server
//     has no results but is not a clean run: check ExitCode before
//     uploading, or code scanning closes the open alerts;
//   - the class and its reasons, and the fail bar, as run properties;
//   - at most MaxSARIFResults results, the most severe first, and when
//     more were due a warning notification saying how many are left out.
//
// Text is cleaned as in WriteText; two equal reports give equal bytes.
func WriteSARIF(w io.Writer, rep *Report, opts SARIFOptions) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifFor(rep, opts)); err != nil {
		return fmt.Errorf("report: encode SARIF: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write SARIF: %w", err)
	}
	return nil
}

// sarifLevel is the SARIF level of severity s at fail bar bar: error at or
// above the bar (it fails the run), below it warning for medium and
// higher, note for low and info.
func sarifLevel(s, bar packs.Severity) string {
	switch {
	case s >= bar:
		return "error"
	case s >= packs.Medium:
		return "warning"
	}
	return "note"
}

// securitySeverity is the score code scanning ranks a rule by.
func securitySeverity(s packs.Severity) string {
	switch {
	case s >= packs.Critical:
		return "9.5"
	case s == packs.High:
		return "7.5"
	case s == packs.Medium:
		return "5.0"
	case s == packs.Low:
		return "3.0"
	}
	return "0.0"
}

// cweTag is the code scanning tag of a CWE written "CWE-200", "cwe-200" or
// "200"; ok is false for anything else.
func cweTag(cwe string) (tag string, ok bool) {
	n := strings.TrimSpace(cwe)
	if len(n) > 4 && strings.EqualFold(n[:4], "cwe-") {
		n = n[4:]
	}
	if n == "" || len(n) > 9 || strings.Trim(n, "0123456789") != "" {
		return "", false
	}
	return "external/cwe/cwe-" + n, true
}

// ruleID is a probe's rule id: its ID, or pack/name when it has none.
func ruleID(pk Pack, pr Probe) string {
	if pr.ID != "" {
		return clean(pr.ID)
	}
	return clean(pk.Name + "/" + pr.Name)
}

func sarifFor(rep *Report, opts SARIFOptions) sarifLog {
	loc := sarifLocation{LogicalLocations: serverLocation(rep.Server)}
	if opts.ArtifactURI != "" {
		loc.PhysicalLocation = &sarifPhysical{
			ArtifactLocation: sarifArtifact{URI: opts.ArtifactURI, URIBaseID: srcRoot},
			Region:           sarifRegion{StartLine: 1},
		}
	}
	category := AutomationID(rep.Server)
	if strings.Trim(opts.Category, "/ ") != "" {
		category = categoryID(opts.Category)
	}

	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "sealmark", Version: clean(rep.Tool.Version),
			InformationURI: InformationURI, Rules: []sarifRule{}}},
		AutomationDetails: &sarifAutomation{ID: category},
		Results:           []sarifResult{},
	}
	inv := sarifInvocationFor(rep)
	if opts.ArtifactURI == "" && opts.NoArtifact != "" {
		inv.ToolConfigurationNotifications = append(inv.ToolConfigurationNotifications, sarifNotification{Level: "warning",
			Message: sarifText{Text: "results have no file location: " + indent(opts.NoArtifact, "")}})
	}
	bar := rep.FailBar()

	index := map[string]int{} // rule id → index in Rules
	var cwes [][]string       // per rule, the CWE tags of its findings
	for _, pk := range rep.Packs {
		if PackIncomplete(pk) {
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, incompleteNotification(rep, pk))
		}
		for _, pr := range pk.Probes {
			id := ruleID(pk, pr)
			ri, seen := index[id]
			if !seen {
				ri = len(run.Tool.Driver.Rules)
				index[id] = ri
				run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(id, pk, pr, bar))
				cwes = append(cwes, nil)
				if tag := run.Tool.Driver.Rules[ri].cweTag; tag != "" {
					cwes[ri] = append(cwes[ri], tag)
				}
			}
			for _, f := range pr.Findings {
				if tag, ok := cweTag(f.CWE); ok && !slices.Contains(cwes[ri], tag) {
					cwes[ri] = append(cwes[ri], tag)
				}
			}
			switch pr.Verdict {
			case packs.Failed:
				for _, f := range failureFindings(pr) {
					run.Results = append(run.Results, sarifResultFor(id, ri, pk, pr, f, loc, bar))
				}
			case packs.Inconclusive:
				if rep.Untested(pk, pr, bar) {
					text := id + ": inconclusive, so untested"
					if pr.Reason != "" {
						text += ": " + indent(pr.Reason, "")
					}
					inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
						Level: "error", Message: sarifText{Text: text}, AssociatedRule: &sarifRef{ID: id, Index: ri},
					})
				}
			case packs.Errored:
				text := id + ": the harness broke"
				if pr.Reason != "" {
					text = id + ": " + indent(pr.Reason, "")
				}
				inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{
					Level: "error", Message: sarifText{Text: text}, AssociatedRule: &sarifRef{ID: id, Index: ri},
				})
			}
		}
	}
	for ri, tags := range cwes {
		slices.Sort(tags)
		r := &run.Tool.Driver.Rules[ri]
		if len(tags) > 0 && r.Properties.SecuritySeverity == "" {
			// A finding named a weakness the probe does not declare: it
			// is a security result all the same.
			r.Properties.Tags = slices.DeleteFunc(r.Properties.Tags, func(tag string) bool { return tag == "correctness" })
			r.Properties.Tags = append([]string{"security"}, r.Properties.Tags...)
			r.Properties.SecuritySeverity = securitySeverity(r.severity)
		}
		for _, tag := range tags {
			if !slices.Contains(r.Properties.Tags, tag) {
				r.Properties.Tags = append(r.Properties.Tags, tag)
			}
		}
	}
	if n := len(run.Results); n > MaxSARIFResults {
		// Past code scanning's limit the upload is refused: keep the most
		// severe results (errors, then warnings, then notes, each in report
		// order) and say how many are left out.
		rank := map[string]int{"error": 0, "warning": 1, "note": 2}
		slices.SortStableFunc(run.Results, func(a, b sarifResult) int { return rank[a.Level] - rank[b.Level] })
		run.Results = run.Results[:MaxSARIFResults:MaxSARIFResults]
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, sarifNotification{Level: "warning", Message: sarifText{
			Text: fmt.Sprintf("%d of %d results are not listed: this log holds at most %d, the most severe first (code scanning accepts %d per run); the JSON report lists every finding",
				n-MaxSARIFResults, n, MaxSARIFResults, codeScanningLimit)}})
	}
	run.Invocations = []sarifInvocation{inv}
	if rep.Class != "" || len(rep.ClassReasons) > 0 || rep.FailOn != "" {
		props := &sarifRunProps{Class: clean(rep.Class), FailOn: bar.String()}
		for _, r := range rep.ClassReasons {
			props.ClassReasons = append(props.ClassReasons, clean(r))
		}
		run.Properties = props
	}
	return sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}
}

// sarifInvocationFor describes the run itself: whether the harness could
// run, when, and what went wrong that is not a finding. Errored
// probes are added by sarifFor.
func sarifInvocationFor(rep *Report) sarifInvocation {
	inv := sarifInvocation{ExecutionSuccessful: rep.HarnessError == ""}
	if !rep.Started.IsZero() {
		inv.StartTimeUTC = rep.Started.UTC().Format(time.RFC3339Nano)
	}
	if !rep.Finished.IsZero() {
		inv.EndTimeUTC = rep.Finished.UTC().Format(time.RFC3339Nano)
	}
	if rep.HarnessError != "" {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "error", Message: sarifText{Text: indent(rep.HarnessError, "")}})
	}
	if rep.Sandbox.CleanupError != "" {
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarifNotification{Level: "warning", Message: sarifText{Text: "could not delete the sandbox: " + indent(rep.Sandbox.CleanupError, "")}})
	}
	for _, wn := range rep.Warnings {
		inv.ToolConfigurationNotifications = append(inv.ToolConfigurationNotifications,
			sarifNotification{Level: "warning", Message: sarifText{Text: indent(wn, "")}})
	}
	return inv
}

// serverLocation names the server under test: its command line, or its URL.
func serverLocation(s Server) []sarifLogical {
	switch {
	case s.Command != "":
		full := []string{word(s.Command)}
		for _, a := range s.Args {
			full = append(full, word(a))
		}
		return []sarifLogical{{Name: clean(s.Command), FullyQualifiedName: strings.Join(full, " "), Kind: "module"}}
	case s.URL != "":
		return []sarifLogical{{Name: clean(s.URL), Kind: "module"}}
	}
	return nil
}

// sarifRuleFor is the rule of one probe. A probe that declares a CWE is a
// security rule: tagged "security" and its CWE, with a
// "security-severity" code scanning ranks it by. The others are protocol
// hygiene, tagged "correctness", without one, so code scanning lists them
// as ordinary alerts at their level.
func sarifRuleFor(id string, pk Pack, pr Probe, bar packs.Severity) sarifRule {
	doc := clean(pr.Doc)
	if doc == "" {
		doc = "Sealmark probe " + clean(pr.Name)
	}
	cwe := pr.CWE // the probe's weakness, or the first one its findings name
	for _, f := range pr.Findings {
		if cweNumber(cwe) == "" {
			cwe = f.CWE
		}
	}
	text, md, uri := ruleHelp(pk, Probe{ID: id, Name: clean(pr.Name), CWE: cwe}, doc)
	r := sarifRule{
		ID:                   id,
		Name:                 clean(pr.Name),
		ShortDescription:     sarifText{Text: doc},
		FullDescription:      sarifText{Text: doc},
		HelpURI:              uri,
		Help:                 &sarifMessage{Text: text, Markdown: md},
		DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(pr.Severity, bar)},
		severity:             pr.Severity,
	}
	if tag, ok := cweTag(cwe); ok {
		r.Properties.Tags = []string{"security"} // the CWE tags follow, sorted (sarifFor)
		r.Properties.SecuritySeverity = securitySeverity(pr.Severity)
		r.cweTag = tag
	} else {
		r.Properties.Tags = []string{"correctness"}
	}
	if pk.Name != "" && !slices.Contains(r.Properties.Tags, clean(pk.Name)) {
		r.Properties.Tags = append(r.Properties.Tags, clean(pk.Name))
	}
	return r
}

func sarifResultFor(id string, ri int, pk Pack, pr Probe, f packs.Finding, loc sarifLocation, bar packs.Severity) sarifResult {
	res := sarifResult{
		RuleID:              id,
		RuleIndex:           ri,
		Level:               sarifLevel(f.Severity, bar),
		Message:             sarifText{Text: findingText(f, "")},
		Locations:           []sarifLocation{loc},
		PartialFingerprints: map[string]string{SARIFFingerprintKey: clean(f.Fingerprint)},
		Properties: sarifResultProps{
			Pack:       clean(pk.Name),
			Probe:      clean(pr.Name),
			Verdict:    clean(string(pr.Verdict)),
			Outcome:    string(findingOutcome(f, bar)),
			Severity:   f.Severity.String(),
			Confidence: f.Confidence.String(),
			CWE:        clean(f.CWE),
			Inherited:  clean(f.Inherited),
		},
	}
	if res.Message.Text == "" {
		res.Message.Text = id + " failed" // SARIF requires a message text
	}
	if f.Accepted != "" {
		res.Suppressions = []sarifSuppression{{Kind: "external", Status: "accepted", Justification: indent(f.Accepted, "")}}
	}
	return res
}

// findingOutcome is what one finding of a failing probe means for the run
// at bar: fail, warn, or accepted.
func findingOutcome(f packs.Finding, bar packs.Severity) Outcome {
	switch {
	case f.Accepted != "":
		return OutcomeAccepted
	case f.Severity >= bar:
		return OutcomeFail
	}
	return OutcomeWarn
}

// The SARIF 2.1.0 objects WriteSARIF writes, fields in the order of
// the specification.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool              sarifTool         `json:"tool"`
		AutomationDetails *sarifAutomation  `json:"automationDetails,omitempty"`
		Invocations       []sarifInvocation `json:"invocations"`
		Results           []sarifResult     `json:"results"`
		Properties        *sarifRunProps    `json:"properties,omitempty"`
	}
	sarifRunProps struct {
		Class        string   `json:"class,omitempty"`
		ClassReasons []string `json:"classReasons,omitempty"`
		FailOn       string   `json:"failOn,omitempty"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifAutomation struct {
		ID string `json:"id"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name,omitempty"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		HelpURI              string          `json:"helpUri,omitempty"`
		Help                 *sarifMessage   `json:"help,omitempty"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           sarifRuleProps  `json:"properties"`
		severity             packs.Severity  // the probe's, for a security-severity added later
		cweTag               string          // the rule's own CWE tag, added with the findings' ones
	}
	sarifMessage struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifRuleProps struct {
		Tags             []string `json:"tags"`
		SecuritySeverity string   `json:"security-severity,omitempty"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifInvocation struct {
		ExecutionSuccessful            bool                `json:"executionSuccessful"`
		StartTimeUTC                   string              `json:"startTimeUtc,omitempty"`
		EndTimeUTC                     string              `json:"endTimeUtc,omitempty"`
		ToolExecutionNotifications     []sarifNotification `json:"toolExecutionNotifications,omitempty"`
		ToolConfigurationNotifications []sarifNotification `json:"toolConfigurationNotifications,omitempty"`
	}
	sarifNotification struct {
		Level          string    `json:"level"`
		Message        sarifText `json:"message"`
		AssociatedRule *sarifRef `json:"associatedRule,omitempty"`
	}
	sarifRef struct {
		ID    string `json:"id"`
		Index int    `json:"index"`
	}
	sarifResult struct {
		RuleID              string             `json:"ruleId"`
		RuleIndex           int                `json:"ruleIndex"`
		Level               string             `json:"level"`
		Message             sarifText          `json:"message"`
		Locations           []sarifLocation    `json:"locations"`
		PartialFingerprints map[string]string  `json:"partialFingerprints"`
		Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
		Properties          sarifResultProps   `json:"properties"`
	}
	sarifSuppression struct {
		Kind          string `json:"kind"`
		Status        string `json:"status"`
		Justification string `json:"justification"`
	}
	sarifResultProps struct {
		Pack       string `json:"pack"`
		Probe      string `json:"probe"`
		Verdict    string `json:"verdict"`
		Outcome    string `json:"outcome"`
		Severity   string `json:"severity"`
		Confidence string `json:"confidence"`
		CWE        string `json:"cwe,omitempty"`
		// Inherited is the finding's Inherited: the SDK whose own
		// behaviour it matches.
		Inherited string `json:"inherited,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           sarifRegion   `json:"region"`
	}
	sarifArtifact struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogical struct {
		Name               string `json:"name"`
		FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
		Kind               string `json:"kind"`
	}
)
