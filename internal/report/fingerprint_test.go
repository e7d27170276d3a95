package report

import (
	"testing"
)

// TestStableMessageDropsWhatVaries: the messages of one finding on reruns
// of the same server, as measured (a stdout line number 38, 39 or 40, a
// temp name the server chose, an ephemeral port, a duration), get one
// fingerprint.
func TestStableMessageDropsWhatVaries(t *testing.T) {
	reruns := [][]string{
		{"stdout line 38 is a line that is not JSON", "stdout line 39 is a line that is not JSON", "stdout line 40 is a line that is not JSON"},
		{"an unrequested notification on line 7", "an unrequested notification on line 12"},
		{"read_note wrote what it was given into tmp/export-Xa9bQz.txt, readable by others (0644), in the temp directory",
			"read_note wrote what it was given into tmp/export-qwErty.txt, readable by others (0644), in the temp directory",
			"read_note wrote what it was given into tmp/export-a1b2c3.txt, readable by others (0644), in the temp directory"},
		{"save ran cp {sandbox}/tmp/tmpa8x3kd9q/in /out", "save ran cp {sandbox}/tmp/tmpzz91kq0w/in /out"},
		{"the server exited after 0.35s (status 1)", "the server exited after 1.2s (status 1)", "the server exited after 950ms (status 1)"},
		{"run opened a listening socket: tcp on 0.0.0.0:43567 (all interfaces)", "run opened a listening socket: tcp on 0.0.0.0:51002 (all interfaces)"},
		{"job 3f9a0c1d2e4b5a69 failed", "job 0b1c2d3e4f5a6b7c failed"},
		{"request 123e4567-e89b-12d3-a456-426614174000 failed", "request 9b2f0c4e-1a2b-4c3d-8e9f-0a1b2c3d4e5f failed"},
		{"child pid 4242 outlived the server", "child pid 77 outlived the server"},
		{"the server keeps trying 10.0.0.1:443 after its calls answered: 12 attempts in 2s with no call running",
			"the server keeps trying 10.0.0.1:443 after its calls answered: 19 attempts in 2s with no call running"},
		{"a line of 1048577 bytes, over the limit", "a line of 2097152 bytes, over the limit"},
		{"log at 2026-12-04T15:21:04.123Z said so", "log at 2026-12-05T09:00:00Z said so"},
		// desktop-commander 0.2.52, FS-WRITE-HOME, runs 1 and 2 of
		// reruns.sh on 2026-12-04: one call fewer before it renumbered
		// the names the probe makes.
		{`create_directory(path="~/sealmark-{token}-w3") changed the sandbox outside the root: created home/sealmark-{token}-w3 (directory)`,
			`create_directory(path="~/sealmark-{token}-w6") changed the sandbox outside the root: created home/sealmark-{token}-w6 (directory)`},
		{`move_file(source="{sandbox}/sealmark-{token}-src7", destination="~/sealmark-{token}-w8") changed the sandbox outside the root: created home/sealmark-{token}-w8 (31 bytes)`,
			`move_file(source="{sandbox}/sealmark-{token}-src10", destination="~/sealmark-{token}-w11") changed the sandbox outside the root: created home/sealmark-{token}-w11 (31 bytes)`},
		{`move_file(source="~/../canary/secret.txt", destination="{sandbox}/sealmark-{token}-in13") changed the sandbox outside the root: renamed canary/secret.txt -> root/sealmark-{token}-in13`,
			`move_file(source="~/../canary/secret.txt", destination="{sandbox}/sealmark-{token}-in16") changed the sandbox outside the root: renamed canary/secret.txt -> root/sealmark-{token}-in16`},
	}
	for _, msgs := range reruns {
		want := Fingerprint("X-PROBE", msgs[0])
		for _, m := range msgs[1:] {
			if got := Fingerprint("X-PROBE", m); got != want {
				t.Errorf("fingerprints differ:\n  %q -> %s (%q)\n  %q -> %s (%q)", msgs[0], want, StableMessage(msgs[0]), m, got, StableMessage(m))
			}
		}
	}
}

// TestStableMessageKeepsDistinctFindingsDistinct: two different tools,
// two different paths the user chose, two different error codes or
// protocol versions, two fixed ports and two rules never share a
// fingerprint.
func TestStableMessageKeepsDistinctFindingsDistinct(t *testing.T) {
	distinct := [][2]string{
		{`tool "read_file": inputSchema has no "type": "object"`, `tool "write_file": inputSchema has no "type": "object"`},
		{`tool "tool1": inputSchema has no "type": "object"`, `tool "tool2": inputSchema has no "type": "object"`},
		{`read_file(path="{sandbox}/link-file") returned the content of canary/secret.txt, outside the root`,
			`read_file(path="{sandbox}/link-dir/") returned the content of canary/secret.txt, outside the root`},
		{`read_file(path="/data/report2024.txt") returned x`, `read_file(path="/data/report2025.txt") returned x`},
		{"tools/list with params [] was answered with error -32603, want error -32602", "tools/list with params [] was answered with error -32601, want error -32602"},
		{"initialize asking for protocol 2025-06-18 was answered with 2024-11-05", "initialize asking for protocol 2025-11-25 was answered with 2024-11-05"},
		{"the server listens on all interfaces: 0.0.0.0:8080", "the server listens on all interfaces: 0.0.0.0:9090"},
		{`fetch(url="http://2130706433:{listener_port}/x") reached the loopback listener`, `fetch(url="http://0x7f000001:{listener_port}/x") reached the loopback listener`},
		{"SEALMARK_CANARY echoed in the response to tools/call get-env", "SEALMARK_FAKE_API_KEY echoed in the response to tools/call get-env"},
		{"write_file wrote into tmp/notes.txt", "write_file wrote into tmp/todo.txt"},
		{`create_directory(path="~/sealmark-{token}-w3") changed the sandbox outside the root: created home/sealmark-{token}-w3 (directory)`,
			`create_directory(path="~/../canary/sealmark-{token}-w4") changed the sandbox outside the root: created canary/sealmark-{token}-w4 (directory)`},
		{`move_file(source="{sandbox}/sealmark-{token}-src7", destination="~/sealmark-{token}-w8") changed x`,
			`move_file(source="{sandbox}/sealmark-{token}-src7", destination="~/sealmark-{token}-in8") changed x`},
		{`query(sql="x") wrote sealmark-{token}-w1`, `query(sql="x") wrote sealmark-{token}-w1b`},
	}
	for _, d := range distinct {
		if Fingerprint("X-PROBE", d[0]) == Fingerprint("X-PROBE", d[1]) {
			t.Errorf("one fingerprint for two findings:\n  %q\n  %q\n  (both %q / %q)", d[0], d[1], StableMessage(d[0]), StableMessage(d[1]))
		}
	}
	if Fingerprint("CORE-A", "same words") == Fingerprint("CORE-B", "same words") {
		t.Error("two rules share a fingerprint")
	}
}

// TestCurrentFingerprintUpgradesOldOnes: a fingerprint an older Sealmark
// stored (the hash of the message as it was) becomes the current one; a
// current fingerprint, or one not of the message, is kept.
func TestCurrentFingerprintUpgradesOldOnes(t *testing.T) {
	msg := "stdout line 38 is a line that is not JSON"
	old := rawFingerprint("CORE-STDOUT-JSONRPC", msg)
	got, up := CurrentFingerprint("CORE-STDOUT-JSONRPC", msg, old)
	if !up || got != Fingerprint("CORE-STDOUT-JSONRPC", msg) {
		t.Errorf("old fingerprint: got %s (upgraded %v), want %s", got, up, Fingerprint("CORE-STDOUT-JSONRPC", msg))
	}
	cur := Fingerprint("CORE-STDOUT-JSONRPC", msg)
	if got, up := CurrentFingerprint("CORE-STDOUT-JSONRPC", msg, cur); up || got != cur {
		t.Errorf("current fingerprint changed to %s (upgraded %v)", got, up)
	}
	// A message with nothing that varies hashes as before: nothing to upgrade.
	plain := "SEALMARK_CANARY echoed"
	if got, up := CurrentFingerprint("CORE-SECRET-ECHO", plain, rawFingerprint("CORE-SECRET-ECHO", plain)); up || got != rawFingerprint("CORE-SECRET-ECHO", plain) {
		t.Errorf("plain message: got %s (upgraded %v)", got, up)
	}
	if got, _ := CurrentFingerprint("X", msg, "0123456789abcdef"); got != "0123456789abcdef" {
		t.Errorf("an unrelated stored fingerprint changed to %s", got)
	}
}
