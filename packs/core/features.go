package core

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// Optional features: resources, prompts and logging. A feature the server
// does not declare is not applicable, never a failure; capabilities-served
// alone judges whether declarations and methods agree.

// declared reports whether the initialize result declares a capability.
func declared(p *packs.Pass, capability string) bool {
	raw, ok := p.Surface.Init.Capabilities[capability]
	return ok && string(raw) != "null"
}

// requestWithin sends a request bounded by d rather than CallTimeout.
func requestWithin(p *packs.Pass, d time.Duration, method string, params any) (*packs.Response, error) {
	ctx, cancel := context.WithTimeout(p.Ctx, d)
	defer cancel()
	return p.Server.Request(ctx, method, params)
}

// emptyLists reports whether a result lists nothing: it holds the list
// named key, empty, and no other list with anything in it (a server
// answering resources/list with {"resources": []}); other fields, such as
// a cursor or the modern era's cache hints, are not lists of anything.
func emptyLists(result json.RawMessage, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(result, &m) != nil {
		return false
	}
	if _, ok := m[key]; !ok {
		return false
	}
	for k, v := range m {
		var list []json.RawMessage
		if json.Unmarshal(v, &list) != nil {
			if k == key {
				return false
			}
			continue
		}
		if len(list) > 0 {
			return false
		}
	}
	return true
}

// featureMethods are the capabilities whose methods capabilities-served
// tries, each with a harmless request.
var featureMethods = []struct {
	capability, method string
	params             map[string]any
}{
	{"resources", "resources/list", map[string]any{}},
	{"prompts", "prompts/list", map[string]any{}},
	{"logging", "logging/setLevel", map[string]any{"level": "debug"}},
}

var capabilitiesServed = packs.Probe{
	ID:       "CORE-CAPABILITIES-SERVED",
	Name:     "capabilities-served",
	Severity: packs.High,
	Doc:      "the server must declare the resources, prompts and logging capabilities of the features it serves, and serve those it declares (spec 2025-11-25 server/resources, server/prompts, server/utilities/logging#capabilities); high when a request for one ends the server, medium when a declared one is not served or an undeclared one serves content, low when an undeclared one answers an empty list",
	Run: func(p *packs.Pass) {
		if !ready(p) {
			return
		}
		// The three requests go out at once: a server that ignores unknown
		// methods costs one wait, not three.
		type answer struct {
			res *packs.Response
			err error
		}
		answers := make([]answer, len(featureMethods))
		var wg sync.WaitGroup
		for i, fm := range featureMethods {
			if fm.capability == "logging" && modern(p) {
				continue // the modern era has no logging/setLevel
			}
			wg.Go(func() {
				res, err := requestWithin(p, shortWait(p), fm.method, fm.params)
				answers[i] = answer{res, err}
			})
		}
		wg.Wait()
		for i, fm := range featureMethods {
			if fm.capability == "logging" && modern(p) {
				continue
			}
			isDeclared := declared(p, fm.capability)
			res, err := answers[i].res, answers[i].err
			switch {
			case err != nil && !p.Server.Alive():
				p.Reportf("the server exited on %s (%s)", fm.method, exitOf(p)).Evidencef("process", "exit: %s", exitOf(p))
				return
			case err != nil && isDeclared:
				f := p.Reportf("the server declared the %s capability but %s got no answer within %s", fm.capability, fm.method, shortWait(p))
				f.Severity = packs.Medium
				f.Evidencef("response", "%s: %v", fm.method, err)
			case err != nil:
				p.Notef("%s (not declared): no answer", fm.method)
			case res.Error != nil && res.Error.Code == -32601 && isDeclared:
				f := p.Reportf("the server declared the %s capability but answers %s with -32601 Method not found", fm.capability, fm.method)
				f.Severity = packs.Medium
				f.Evidencef("response", "%s: %s; capabilities %s", fm.method, oneLine(res.Brief()), keys(p.Surface.Init.Capabilities))
			case res.Error == nil && !isDeclared:
				// A client that reads the capabilities never asks for an
				// undeclared feature: serving one hides what the server
				// offers (medium); an empty list hides nothing (low).
				f := p.Reportf("the server answers %s but did not declare the %s capability", fm.method, fm.capability)
				f.Severity = packs.Medium
				if emptyLists(res.Result, fm.capability) {
					f.Severity = packs.Low
				}
				f.Evidencef("response", "%s: %s; capabilities %s", fm.method, brief(res.Result), keys(p.Surface.Init.Capabilities))
			default:
				p.Notef("%s (declared: %v): %s", fm.method, isDeclared, oneLine(res.Brief()))
			}
		}
	},
}

// featureStart does what the resources, prompts and logging probes share:
// not applicable unless declared; inconclusive when the feature's first
// method is not served (capabilities-served reports that). It returns the
// first method's answer, or nil when the probe is over.
func featureStart(p *packs.Pass, capability, method string, params any) *packs.Response {
	if !declared(p, capability) {
		p.NotApplicable("the server does not declare the %s capability", capability)
		return nil
	}
	if !ready(p) {
		return nil
	}
	res, err := p.Request(method, params)
	switch {
	case err != nil && !p.Server.Alive():
		p.Reportf("the server exited on %s (%s)", method, exitOf(p)).Evidencef("process", "exit: %s", exitOf(p))
		return nil
	case err != nil:
		p.Inconclusive("%s got no answer within %s; capabilities-served reports a declared feature that is not served", method, p.CallTimeout)
		return nil
	case res.Error != nil && res.Error.Code == -32601:
		p.Inconclusive("%s answered -32601; capabilities-served reports it", method)
		return nil
	case res.Error != nil:
		if refused := networkRefused(p); refused != "" {
			// Its upstream is out of reach here: a server that reports
			// that as an error behaves; whether it serves the feature with
			// its service at hand is not seen.
			p.Inconclusive("%s failed with %s while the sandbox refused the server's network (%s): the service it needs is out of reach here; declare it (sandbox services) to judge %s",
				method, oneLine(res.Brief()), refused, capability)
			return nil
		}
		p.Reportf("the server declared the %s capability but %s failed with %s", capability, method, oneLine(res.Brief())).
			Evidencef("response", "%s: %s", method, oneLine(res.Brief()))
		return nil
	}
	return res
}

// networkRefused is the first destination the sandbox refused the server
// during this probe ("" when none was refused, or nothing was observed).
func networkRefused(p *packs.Pass) string {
	if p.Observed == nil {
		return ""
	}
	for _, r := range p.Observed.Probe() {
		if r.Kind == observers.KindSocket && r.Data[observers.KeyVerdict] == "deny" {
			return r.Summary
		}
	}
	return ""
}

// listDefects checks a list result: the list under key must be an array of
// objects, each with the named string fields non-empty.
func listDefects(result json.RawMessage, key string, fields ...string) []string {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil || r == nil {
		return []string{"the result is not an object"}
	}
	var items []map[string]json.RawMessage
	if json.Unmarshal(r[key], &items) != nil || r[key] == nil || string(r[key]) == "null" {
		return []string{fmt.Sprintf("the result has no %q array", key)}
	}
	var defects []string
	for i, it := range items {
		for _, f := range fields {
			var s string
			if json.Unmarshal(it[f], &s) != nil || s == "" {
				defects = append(defects, fmt.Sprintf("%s[%d] has no %s string", key, i, f))
			}
		}
		if len(defects) >= 3 {
			break
		}
	}
	return defects
}

// secondRequest sends a feature's second request and reports a crash or a
// missing answer; it returns nil when the probe is over.
func secondRequest(p *packs.Pass, method string, params any) *packs.Response {
	res, err := p.Request(method, params)
	switch {
	case err != nil && !p.Server.Alive():
		p.Reportf("the server exited on %s (%s)", method, exitOf(p)).Evidencef("process", "exit: %s", exitOf(p))
		return nil
	case err != nil:
		f := p.Reportf("%s got no answer within %s", method, p.CallTimeout)
		f.Severity = packs.Medium
		f.Evidencef("response", "%v", err)
		return nil
	}
	return res
}

// soft reports a SHOULD-level finding.
func soft(p *packs.Pass, format string, args ...any) *packs.Finding {
	f := p.Reportf(format, args...)
	f.Severity = packs.Low
	return f
}

// missingResource is a URI no server has.
const missingResource = "sealmark://no-such-resource"

var resources = packs.Probe{
	ID:       "CORE-RESOURCES",
	Name:     "resources",
	Severity: packs.High,
	Doc:      "a server declaring resources must list them as {resources:[{uri,name}]}, and answer resources/read of an unknown URI with error -32002 (legacy, SHOULD; spec 2025-11-25 server/resources#error-handling) or -32602 (modern, MUST; spec 2026-07-28 server/resources#error-handling)",
	Run: func(p *packs.Pass) {
		res := featureStart(p, "resources", "resources/list", map[string]any{})
		if res == nil {
			return
		}
		for _, d := range listDefects(res.Result, "resources", "uri", "name") {
			p.Reportf("resources/list: %s", d).Evidencef("response", "resources/list: %s", brief(res.Result))
		}
		read := secondRequest(p, "resources/read", map[string]any{"uri": missingResource})
		if read == nil {
			return
		}
		evidence := func(f *packs.Finding) {
			f.Evidencef("response", "resources/read %s: %s", missingResource, outcome(read))
		}
		if modern(p) {
			switch {
			case read.Error != nil && read.Error.Code == -32602:
			case read.Error != nil:
				evidence(p.Reportf("resources/read of an unknown URI was answered with %s; protocol %s requires -32602", oneLine(read.Brief()), p.Surface.Init.Version))
			default:
				evidence(p.Reportf("resources/read of an unknown URI was answered with a result (%s); protocol %s requires error -32602", brief(read.Result), p.Surface.Init.Version))
			}
			return
		}
		switch {
		case read.Error != nil && read.Error.Code == -32002:
		case read.Error != nil && read.Error.Code == -32602:
			evidence(soft(p, "resources/read of an unknown URI was answered with -32602 (the 2026-07-28 code); protocol %s asks for -32002", p.Surface.Init.Version))
		case read.Error != nil:
			evidence(soft(p, "resources/read of an unknown URI was answered with %s, want -32002 Resource not found", oneLine(read.Brief())))
		default:
			evidence(soft(p, "resources/read of an unknown URI was answered with a result (%s), want error -32002", brief(read.Result)))
		}
	},
}

var prompts = packs.Probe{
	ID:       "CORE-PROMPTS",
	Name:     "prompts",
	Severity: packs.High,
	Doc:      "a server declaring prompts must list them as {prompts:[{name}]}, and should answer prompts/get of an unknown name with error -32602 (spec 2025-11-25 server/prompts#error-handling)",
	Run: func(p *packs.Pass) {
		res := featureStart(p, "prompts", "prompts/list", map[string]any{})
		if res == nil {
			return
		}
		for _, d := range listDefects(res.Result, "prompts", "name") {
			p.Reportf("prompts/list: %s", d).Evidencef("response", "prompts/list: %s", brief(res.Result))
		}
		const name = "sealmark-no-such-prompt"
		wantInvalidParams(p, secondRequest(p, "prompts/get", map[string]any{"name": name}),
			"prompts/get of an unknown prompt", "was answered with a result", "prompts/get "+name)
	},
}

var loggingSetLevel = packs.Probe{
	ID:       "CORE-LOGGING-SET-LEVEL",
	Name:     "logging-set-level",
	Severity: packs.Medium,
	Doc:      "a server declaring logging must answer logging/setLevel with a valid level with an empty result, and should answer an invalid level with error -32602 (spec 2025-11-25 server/utilities/logging#error-handling)",
	Run: func(p *packs.Pass) {
		if modern(p) {
			p.NotApplicable("protocol %s has no logging/setLevel", p.Surface.Init.Version)
			return
		}
		// debug, so that nothing the server logs is hidden from secret-echo.
		res := featureStart(p, "logging", "logging/setLevel", map[string]any{"level": "debug"})
		if res == nil {
			return
		}
		if !emptyResult(res.Result) {
			soft(p, "logging/setLevel debug was answered with %s, want an empty result", brief(res.Result)).
				Evidencef("response", "logging/setLevel debug: %s", brief(res.Result))
		}
		const level = "sealmark-loud"
		wantInvalidParams(p, secondRequest(p, "logging/setLevel", map[string]any{"level": level}),
			"logging/setLevel with an invalid level", "was accepted", "logging/setLevel "+level)
	},
}

// wantInvalidParams judges the answer to a request that should get error
// -32602: another error or a result is a soft finding naming what was
// asked (subject), how a result reads (accepted) and the call as evidence.
// A nil answer (the request could not be judged) reports nothing.
func wantInvalidParams(p *packs.Pass, res *packs.Response, subject, accepted, call string) {
	switch {
	case res == nil:
	case res.Error != nil && res.Error.Code == -32602:
	case res.Error != nil:
		soft(p, "%s was answered with %s, want -32602", subject, oneLine(res.Brief())).
			Evidencef("response", "%s: %s", call, oneLine(res.Brief()))
	default:
		soft(p, "%s %s, want error -32602", subject, accepted).
			Evidencef("response", "%s: %s", call, brief(res.Result))
	}
}
