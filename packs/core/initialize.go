package core

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sealmark/sealmark/packs"
)

// KnownVersions are the protocol versions the specification defines
// (packs.KnownVersions).
var KnownVersions = packs.KnownVersions

var initialize = packs.Probe{
	ID:       "CORE-INITIALIZE",
	Name:     "initialize",
	Severity: packs.High,
	Doc:      "initialize must negotiate a protocol version the specification defines, name the server and declare the capabilities it serves",
	Run: func(p *packs.Pass) {
		if !legacyOnly(p, "initialize; discover judges its DiscoverResult") {
			return
		}
		in := p.Surface.Init
		switch {
		case in.Version == "":
			p.Reportf("the initialize result has no protocolVersion").Evidencef("response", "initialize result: %s", brief(in.Result))
		case !slices.Contains(KnownVersions, in.Version):
			p.Reportf("initialize negotiated protocolVersion %q, which no specification defines (asked for %s)", in.Version, in.Requested).
				Evidencef("response", "initialize result protocolVersion %q", in.Version)
		default:
			p.Notef("negotiated %s (asked for %s)", in.Version, in.Requested)
		}
		if in.Server.Name == "" {
			p.Reportf("the initialize result has no serverInfo.name").Evidencef("response", "initialize result: %s", brief(in.Result))
		}
		if in.Capabilities == nil {
			p.Reportf("the initialize result has no capabilities object").Evidencef("response", "initialize result: %s", brief(in.Result))
			return
		}
		toolsDeclaredServed(p, "initialize")
	},
}

func keys(m map[string]json.RawMessage) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return "{" + strings.Join(ks, ", ") + "}"
}

// brief cuts a raw message for a message or evidence line.
func brief(b []byte) string {
	const max = 200
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > max {
		cut := max
		for !utf8.RuneStart(s[cut]) {
			cut-- // not inside a character: the text stays valid UTF-8
		}
		return s[:cut] + "…"
	}
	if s == "" {
		return "(empty)"
	}
	return s
}
