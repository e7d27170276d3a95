// Package table turns a server's own cases into a pack: each Row calls one
// tool with arguments that may name the sandbox's fixtures, and states what
// must hold, judged by the same sandbox and observers as the built-in packs.
//
//	rows := []table.Row{{
//		Name:   "refuses-dotdot",
//		Tool:   "read_file",
//		Args:   map[string]any{"path": "{sandbox}/../canary/secret.txt"},
//		Expect: []table.Expect{table.Refused(), table.NoCanary()},
//	}, {
//		Name:   "search-stays-inside",
//		Tool:   "search",
//		Args:   map[string]any{"root": "{sandbox}", "pattern": "**"},
//		Expect: []table.Expect{table.NotContains("{canary_dir}"), table.NoCanary()},
//	}, {
//		Name:     "drop-changes-nothing",
//		Tool:     "run_query",
//		Args:     map[string]any{"sql": "DROP TABLE notes"},
//		Expect:   []table.Expect{table.Refused(), table.FileChanges()},
//		Severity: packs.Critical,
//	}, {
//		Name:   "no-fetch-of-listener",
//		Tool:   "fetch",
//		Args:   map[string]any{"url": "{listener}/{token}"},
//		Expect: []table.Expect{table.NoConnection()},
//	}, {
//		Name:   "reads-ok-file",
//		Tool:   "read_file",
//		Args:   map[string]any{"path": "{ok_file}"},
//		Expect: []table.Expect{table.Succeeds(), table.Contains("{ok_token}"), table.Within(5 * time.Second)},
//	}}
//	pk, err := table.Pack("mine", rows) // every row checked up front
//	if err != nil {
//		return err // row refuses-dotdot: unknown placeholder {sandbx} (known: ...)
//	}
//	// pk is a packs.Pack: the engine and both front ends run it like any pack,
//	// and go test -run Packs/mine/refuses-dotdot runs one row.
//
// When a row breaks, its finding names the row and the rule, with evidence
// from the observer that saw it:
//
//	--- FAIL: TestPacks/mine/refuses-dotdot (0.01s)
//	    USER-REFUSES-DOTDOT high: row refuses-dotdot: read_file answered a result, want a refusal (protocol error or isError)
//	        evidence: response: tools/call read_file answered "<canary-file>"
//	    USER-REFUSES-DOTDOT high: row refuses-dotdot: the response of read_file holds the value of canary/secret.txt
//	        evidence: response: the result of tools/call read_file holds the value of canary/secret.txt
//
// The same rows in sealmark.yaml (ParseRows, Rows; Schema is their JSON
// Schema) build identical probes:
//
//	probes:
//	  - name: refuses-dotdot
//	    tool: read_file
//	    args: {path: "{sandbox}/../canary/secret.txt"}
//	    expect: [refused, no_canary]
//	  - name: drop-changes-nothing
//	    tool: run_query
//	    args: {sql: DROP TABLE notes}
//	    expect: [refused, {file_changes: []}]
//	    severity: critical
//
// # How a row runs
//
// A row is one probe with its own token. It fails at once, without calling,
// when the server does not list its tool ("row X: tool Y is not offered by
// the server", with the tools it does offer as evidence) or when an argument
// names a placeholder this run has no value for (no sandbox). Otherwise it
// calls the tool once, bounded by the run's call timeout or by the row's
// Within, and judges every expectation; each broken one is a finding of its
// own. An expectation this run cannot check (no sandbox, so no observers; no
// process observer off Linux) is a finding too, never a pass. An expectation
// of an observer that lost data during the call, with nothing seen, makes
// the row inconclusive. Row.Check, when set, runs last, with the same Pass
// the built-in probes get.
//
// Definition errors (a name that is not kebab-case, a duplicate, no tool,
// an unknown placeholder or expectation, a regexp that does not compile)
// are Pack's errors, found before anything runs.
package table
