// Package arch holds Sealmark's architecture test: imports point down.
//
//	go test ./internal/arch
//
// The layers, lowest first: the base (redaction, the loopback guard, the
// environment, the observer record types); process machinery (launch,
// containment); the observers; the probe vocabulary with the sandbox and the
// session; the packs, the report and the configuration; the engine; the two
// front doors (sealmarktest, cmd/sealmark). Fixture servers and test
// helpers are for tests only: no release package imports them.
package arch
