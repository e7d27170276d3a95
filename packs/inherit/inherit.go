// Package inherit tells a finding that is the server's SDK's own behaviour
// from one its author wrote: the SDKs Sealmark was calibrated on, how each
// is recognised from the server's first answer (server/discover or
// initialize), and the findings each gives by itself, measured on a server
// built on it with nothing overridden (internal/fixture/sdkservers, checked
// by hand: docs/sdk-calibration.md).
//
//	if sdk := inherit.Label(inherit.Server{Transport: "stdio", Init: surface.Init.Result}, "CORE-MODERN-META", f); sdk != "" {
//		f.Inherited = sdk // "mcp-go v1.2.1"
//	}
//
// A label never removes or lowers a finding: the server still behaves so.
// It says where the fix belongs.
package inherit

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
)

// Server is what Label knows of the server: its transport ("stdio",
// "http") and the result of its first start's server/discover or
// initialize, as sent.
type Server struct {
	Transport string
	Init      json.RawMessage
}

// SDK is one calibrated SDK at one version.
type SDK struct {
	// Name and Version name it in the label: "mcp-go v1.2.1".
	Name, Version string
	// Module is where it comes from, for the docs.
	Module string
	// Shapes are the top-level member orders of its discover and
	// initialize results: a Go SDK encodes its result structs in field
	// order, which a server built on it does not choose. Extra says what
	// else the result must hold.
	Shapes [][]string
	Extra  func(result map[string]json.RawMessage) bool
	// Behaviours are the findings the SDK gives by itself.
	Behaviours []Behaviour
}

// Behaviour is one finding an SDK gives by itself: the probe, the
// transport it shows on ("" for both) and the finding's message.
type Behaviour struct {
	Probe     string
	Transport string
	Message   *regexp.Regexp
	// Why says what the SDK does, for the docs.
	Why string
}

// Label returns "NAME VERSION" of the calibrated SDK the server is built
// on when the finding of probe is one of that SDK's own behaviours, and ""
// otherwise.
func Label(s Server, probe string, f Finding) string {
	sdk, ok := Identify(s.Init)
	if !ok {
		return ""
	}
	for _, b := range sdk.Behaviours {
		if b.Probe == probe && (b.Transport == "" || b.Transport == s.Transport) && b.Message.MatchString(f.Message) {
			return sdk.Name + " " + sdk.Version
		}
	}
	return ""
}

// Finding is what Label reads of a finding (packs.Finding has it).
type Finding struct{ Message string }

// Identify returns the calibrated SDK whose result shape init has.
func Identify(init json.RawMessage) (SDK, bool) {
	keys, members, ok := topLevel(init)
	if !ok {
		return SDK{}, false
	}
	for _, sdk := range SDKs {
		for _, shape := range sdk.Shapes {
			if slices.Equal(keys, shape) && (sdk.Extra == nil || sdk.Extra(members)) {
				return sdk, true
			}
		}
	}
	return SDK{}, false
}

// topLevel returns the member names of the JSON object raw in the order
// written, and the members.
func topLevel(raw json.RawMessage) ([]string, map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, false
	}
	var keys []string
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, false
		}
		k, ok := t.(string)
		if !ok {
			return nil, nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, false
		}
		keys = append(keys, k)
		members[k] = v
	}
	return keys, members, true
}
