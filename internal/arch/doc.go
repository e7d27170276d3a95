// Package arch holds Sealmark's architecture test: imports point down.
//
//	go test ./internal/arch
//
// The layers, lowest first: the base (redaction, the loopback guard, the
// environment, the observer record types); process machinery (launch,
// containment); the observers; the probe vocabulary with the sandbox and the
// session; the packs, the report and the configuration; the engine; the two
// front doors (sealmarktest, cmd/sealmark). An import points strictly down
// but for the same-layer edges the test names with why (packs/git importing
// internal/report fails). On top, each layer has an allowlist: a pack
// (packs/<name>) imports only packs, packs/internal/..., observers/... and
// named base helpers; the engine imports no pack by name; the
// configuration imports no pack. Fixture servers and test helpers are for
// tests only: no release package imports them. TestViolations proves the
// checker on throwaway import graphs, and TestThrowawayImportFails the
// whole test on a throwaway file in the engine that imports a pack (a go
// list overlay: the tree is not touched).
package arch
