// Package sealmarktest is Sealmark's go test front door: put it in any MCP
// server's repository, whatever language the server is written in.
//
//	// server_test.go
//	package server_test
//
//	import (
//		"testing"
//
//		"github.com/sealmark/sealmark/sealmarktest"
//	)
//
//	func TestMain(m *testing.M) { sealmarktest.Main(m) }
//
//	func TestPacks(t *testing.T) {
//		sealmarktest.Server(t, sealmarktest.Config{
//			Command: "node",
//			Args:    []string{"{cwd}/dist/index.js", "{sandbox}"},
//		})
//	}
//
// go test runs every pack as a subtest of TestPacks and every probe as a
// subtest of its pack: go test -run Packs/core runs one pack (the drift
// check, core/tool-drift, included), go test -run Packs/core/secret-echo
// one probe. A finding at or above Config.FailOn fails its probe's subtest,
// printed once at the probe's own source position:
//
//	--- FAIL: TestPacks/core/secret-echo (0.01s)
//	    secrets.go:17: CORE-SECRET-ECHO critical: SEALMARK_CANARY echoed in the response to tools/call debug_info [CWE-200]
//	        evidence: response: the response to tools/call debug_info contains the value of SEALMARK_CANARY
//
// Server runs the same loop as sealmark run, so both give the same report
// for the same settings; Config.ConfigFile makes one sealmark.yaml drive
// both, and the sealmark.lock.json that sealmark pin writes beside it
// (Config.Lock names another) pins the tools across runs: core/tool-pin
// fails on a tool added, removed or changed since. go test -sealmark.report=report.json (or SEALMARK_REPORT) writes
// the JSON reports of the package's Server calls, keyed by test name, when
// the tests end.
package sealmarktest
