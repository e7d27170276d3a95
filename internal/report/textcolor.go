package report

import (
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// TextOptions choose what WriteTextWith shows and how.
type TextOptions struct {
	// Verbose lists every probe pack by pack, passing ones with their
	// notes and observations; without it the report lists only the
	// probes that need a look (FAIL, WARN, ACCEPTED, INCONCLUSIVE,
	// ERROR) and one line per reason a probe or pack did not apply.
	Verbose bool
	// Color marks the outcome labels, the severities and the summary's
	// failing counts with ANSI colours. For a terminal only: the caller
	// decides (NO_COLOR, --color, whether the output is a terminal).
	Color bool
}

// ANSI SGR sequences the text report uses when TextOptions.Color is set.
// Text from the server never carries one: clean escapes every control
// character, ESC included, so these are the only escapes in the report.
const (
	sgrReset   = "\x1b[0m"
	sgrBoldRed = "\x1b[1;31m"
	sgrRed     = "\x1b[31m"
	sgrYellow  = "\x1b[33m"
	sgrMagenta = "\x1b[35m"
	sgrGreen   = "\x1b[32m"
	sgrCyan    = "\x1b[36m"
)

// labelColors colour a probe's label: failing red, warning yellow, what
// could not be decided magenta, passing green.
var labelColors = map[string]string{
	"FAIL":         sgrBoldRed,
	"WARN":         sgrYellow,
	"INCONCLUSIVE": sgrMagenta,
	"ERROR":        sgrMagenta,
	"PASS":         sgrGreen,
}

// severityColors colour a finding's severity.
var severityColors = map[packs.Severity]string{
	packs.Critical: sgrBoldRed,
	packs.High:     sgrRed,
	packs.Medium:   sgrYellow,
	packs.Low:      sgrCyan,
}

// painter colours text when on; off, it returns the text as given.
type painter bool

// paint wraps s in sgr (nothing when sgr is empty or colour is off).
func (p painter) paint(sgr, s string) string {
	if !p || sgr == "" || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

// label pads a probe's label to width, then colours the label (not the
// padding, so the columns stay aligned).
func (p painter) label(l string, width int) string {
	pad := strings.Repeat(" ", max(0, width-len(l)))
	return p.paint(labelColors[l], l) + pad
}

// finding colours the severity in the first line of FindingText's text,
// which starts with findingHead(id, f).
func (p painter) finding(text, id string, f packs.Finding) string {
	sgr := severityColors[f.Severity]
	if !p || sgr == "" {
		return text
	}
	head := findingHead(id, f)
	if !strings.HasPrefix(text, head) {
		return text
	}
	sev := f.Severity.String()
	colored := p.paint(sgr, sev)
	if id != "" {
		prefix := clean(id) + " "
		return prefix + colored + text[len(prefix)+len(sev):]
	}
	return colored + text[len(sev):]
}

// Paint colours s as the text report colours the probe label label
// (FAIL, WARN, INCONCLUSIVE, ERROR, PASS) when color is set; s as given
// otherwise, or for a label without a colour. For other text writers (the
// scan table) that colour like the text report.
func Paint(color bool, label, s string) string {
	return painter(color).paint(labelColors[label], s)
}

// PaintSeverity is the severity's name, coloured as the text report
// colours it when color is set.
func PaintSeverity(color bool, sev packs.Severity) string {
	return painter(color).paint(severityColors[sev], sev.String())
}
