package effects_test

import (
	"testing"

	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// The texts a finding's message must contain, with its severity. The
// fixture's tools: fetch_url returns the body, check_link only the status,
// ping_host only "up"; read_note does what the effect flaws make it do;
// echo_note runs sm-echo, as its description says.
const (
	fetchAt = `critical: fetch_url(url="`
	checkAt = `high: check_link(link="`
	pingAt  = `high: ping_host(host="`
)

// hostForms are the forms that name the listener's host: a twin that lets
// one through reaches the listener through all three tools.
func hostForm(url, host, port string) []string {
	return []string{fetchAt + url, checkAt + url, pingAt + host + `", port="` + port + `")`}
}

var (
	loopbackFound  = hostForm("http://127.0.0.1:{listener_port}/sealmark-ssrf/", "127.0.0.1", "{listener_port}")
	ipv6Found      = hostForm("http://[::1]:{listener6_port}/sealmark-ssrf/", "::1", "{listener6_port}")
	localhostFound = hostForm("http://localhost:{listener_port}/sealmark-ssrf/", "localhost", "{listener_port}")
	decimalFound   = hostForm("http://2130706433:{listener_port}/sealmark-ssrf/", "2130706433", "{listener_port}")
	hexFound       = hostForm("http://0x7f000001:{listener_port}/sealmark-ssrf/", "0x7f000001", "{listener_port}")
	mappedFound    = hostForm("http://[::ffff:127.0.0.1]:{listener_port}/sealmark-ssrf/", "::ffff:127.0.0.1", "{listener_port}")
	redirectFound  = []string{fetchAt + `{upstream}/redirect?sealmark={token}") reached the loopback listener: GET /redirected`,
		checkAt + `{upstream}/redirect?sealmark={token}") reached the loopback listener: GET /redirected`}
)

// TestSSRFTwins proves every SSRF probe both ways: the clean server's
// filter refuses every form, and each twin whose filter misses one form is
// found through exactly that form (the redirect's target is a dotted
// 127.0.0.1, so missing dotted literals misses it too).
func TestSSRFTwins(t *testing.T) {
	t.Parallel()
	runTwins(t, packtest.Short(t, []packtest.Twin{
		{},
		{Flaws: "no-filter", Want: packtest.Want{
			"EFFECTS-SSRF-LOOPBACK": loopbackFound, "EFFECTS-SSRF-IPV6-LOOPBACK": ipv6Found,
			"EFFECTS-SSRF-LOCALHOST": localhostFound, "EFFECTS-SSRF-DECIMAL-IPV4": decimalFound,
			"EFFECTS-SSRF-HEX-IPV4": hexFound, "EFFECTS-SSRF-IPV4-MAPPED": mappedFound,
			"EFFECTS-SSRF-REDIRECT": redirectFound,
		}},
		{Flaws: "filter-misses-dotted", Want: packtest.Want{"EFFECTS-SSRF-LOOPBACK": loopbackFound, "EFFECTS-SSRF-REDIRECT": redirectFound}},
		{Flaws: "filter-misses-ipv6", Want: packtest.Want{"EFFECTS-SSRF-IPV6-LOOPBACK": ipv6Found}},
		{Flaws: "filter-misses-localhost", Want: packtest.Want{"EFFECTS-SSRF-LOCALHOST": localhostFound}},
		{Flaws: "filter-misses-decimal", Want: packtest.Want{"EFFECTS-SSRF-DECIMAL-IPV4": decimalFound}},
		{Flaws: "filter-misses-hex", Want: packtest.Want{"EFFECTS-SSRF-HEX-IPV4": hexFound}},
		{Flaws: "filter-misses-mapped", Want: packtest.Want{"EFFECTS-SSRF-IPV4-MAPPED": mappedFound}},
		{Flaws: "filter-misses-redirect", Want: packtest.Want{"EFFECTS-SSRF-REDIRECT": redirectFound}},
		{Flaws: "file-scheme", Want: packtest.Want{"EFFECTS-SSRF-FILE-URI": {
			`critical: fetch_url(url="file://{sandbox_top}/canary/secret.txt") returned the content of canary/secret.txt`}}},
		{Flaws: "gopher-scheme", Want: packtest.Want{"EFFECTS-SSRF-GOPHER": {
			`high: fetch_url(url="gopher://127.0.0.1:{listener_port}/_sealmark-ssrf/{token}/fetch_url") reached the loopback listener: `,
			`high: check_link(link="gopher://127.0.0.1:{listener_port}/_sealmark-ssrf/{token}/check_link") reached the loopback listener: `}}},
		{Flaws: "redirect-leaks-credentials", Want: packtest.Want{
			"EFFECTS-SSRF-REDIRECT": redirectFound,
			"EFFECTS-REDIRECT-CREDENTIALS": {
				`critical: fetch_url(url="{upstream}/redirect?sealmark={token}") followed the redirect from {upstream} to {listener} and sent header Authorization to the new origin`,
				`critical: check_link(link="{upstream}/redirect?sealmark={token}") followed the redirect from {upstream} to {listener} and sent header Authorization to the new origin`,
			},
		}},
	}, "every SSRF probe's twins against the fixture fetch server", "correct", "filter-misses-dotted"))
}

// TestEffectTwins proves the sweep's probes both ways: each effect flaw of
// read_note is found as that call's doing (a delete or a rename outside
// the sandbox as what it tried), and private output (mode 0600)
// and echo_note's described sm-echo are not findings.
func TestEffectTwins(t *testing.T) {
	t.Parallel()
	const readNote = `read_note(name="sealmark-{token}")`
	runTwins(t, packtest.Short(t, []packtest.Twin{
		{Flaws: "private-output"},
		{Flaws: "write-install", Want: packtest.Want{"EFFECTS-WRITES-OUTSIDE-SANDBOX": {
			`medium: ` + readNote + ` opened {install}/sealmark-fixture-state.json for writing (a data file in the server's own install directory, shared by every user of the install), outside the sandbox`}}},
		{Flaws: "write-tmp", Want: packtest.Want{"EFFECTS-WRITES-OUTSIDE-SANDBOX": {
			`medium: ` + readNote + ` opened {tmp}/sealmark-fixture-sealmark-{token}.txt for writing (the system temp directory, shared by every user), outside the sandbox`}}},
		{Flaws: "delete-install", Want: packtest.Want{"EFFECTS-WRITES-OUTSIDE-SANDBOX": {
			`medium: ` + readNote + ` tried to delete {install}/sealmark-fixture-sealmark-{token}.lock (a data file in the server's own install directory, shared by every user of the install), outside the sandbox`}}},
		{Flaws: "rename-tmp", Want: packtest.Want{"EFFECTS-WRITES-OUTSIDE-SANDBOX": {
			`medium: ` + readNote + ` tried to rename {tmp}/sealmark-fixture-sealmark-{token}.txt to {tmp}/sealmark-fixture-sealmark-{token}.old (the system temp directory, shared by every user), outside the sandbox`}}},
		{Flaws: "world-readable-output", Want: packtest.Want{"EFFECTS-SHARED-OUTPUT": {
			`medium: ` + readNote + ` wrote what it was given into tmp/sealmark-export-sealmark-{token}.txt, readable by everyone (0644), in the temp directory`}}},
		{Flaws: "spawn-on-read", Want: packtest.Want{"EFFECTS-SPAWNS": {`high: ` + readNote + ` ran sm-echo sealmark-{token}`}}},
		// Effects 20 ms after the answer: the barrier after each call waits
		// for the timer, as the fixed 50 ms it replaces did.
		{Flaws: "late-spawn", Want: packtest.Want{"EFFECTS-SPAWNS": {`high: ` + readNote + ` ran sm-echo sealmark-{token}`}}},
		{Flaws: "late-write-tmp", Want: packtest.Want{"EFFECTS-WRITES-OUTSIDE-SANDBOX": {
			`medium: ` + readNote + ` opened {tmp}/sealmark-fixture-sealmark-{token}.txt for writing (the system temp directory, shared by every user), outside the sandbox`}}},
		{Flaws: "listen-per-call", Want: packtest.Want{"EFFECTS-LISTENERS": {`medium: ` + readNote + ` opened a listening socket: tcp on 127.0.0.1 (loopback)`}}},
		{Flaws: "network-call", Want: packtest.Want{"EFFECTS-NETWORK": {`info: ` + readNote + ` tried the network: connect 127.0.0.1:9, DNS 127.0.0.53:53`}}},
		{Flaws: "retry-forever", Want: packtest.Want{"EFFECTS-NETWORK": {
			`info: ` + readNote + ` tried the network: connect 127.0.0.1:9`,
			`medium: the server keeps trying connect 127.0.0.1:9 after its calls answered`}}},
	}, "every sweep probe's twins against the fixture server", "private-output", "write-tmp"))
}
