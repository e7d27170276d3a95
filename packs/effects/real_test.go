package effects_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestRealServers runs the effects pack, with --active, against the pinned
// real fetching servers, and pins their verdicts.
func TestRealServers(t *testing.T) {
	// server-everything's gzip-file-as-resource (readOnlyHint false, so
	// with --active) fetches any http(s) URL: every loopback form and the
	// upstream's redirect reach the listener. Its answer is a resource
	// link, so nothing of the body comes back in the call: high. Checked
	// by hand: a python3 -m http.server on 127.0.0.1 logged
	// "GET /hand-hex" and "GET /hand-mapped" for data=http://0x7f000001:PORT/hand-hex
	// and http://[::ffff:127.0.0.1]:PORT/hand-mapped sent over stdio;
	// file:// and gopher:// were answered "Unsupported URL protocol".
	t.Run("server-everything-2026.8.31", func(t *testing.T) {
		t.Parallel()
		script := realserver.Everything.CwdArg(t)
		rep, err := packtest.Run(t.TempDir(), config(true, "node", script))
		require.NoError(t, err)
		gzip := func(url string) []string {
			return []string{`high: gzip-file-as-resource(data="` + url + `") reached the loopback listener: GET /`}
		}
		const at = "/sealmark-ssrf/{token}/gzip-file-as-resource"
		expect(t, rep, map[string][]string{
			"EFFECTS-SSRF-LOOPBACK":      gzip("http://127.0.0.1:{listener_port}" + at),
			"EFFECTS-SSRF-IPV6-LOOPBACK": gzip("http://[::1]:{listener6_port}" + at),
			"EFFECTS-SSRF-LOCALHOST":     gzip("http://localhost:{listener_port}" + at),
			"EFFECTS-SSRF-DECIMAL-IPV4":  gzip("http://2130706433:{listener_port}" + at),
			"EFFECTS-SSRF-HEX-IPV4":      gzip("http://0x7f000001:{listener_port}" + at),
			"EFFECTS-SSRF-IPV4-MAPPED":   gzip("http://[::ffff:127.0.0.1]:{listener_port}" + at),
			"EFFECTS-SSRF-REDIRECT":      gzip("{upstream}/redirect?sealmark={token}"),
		})
	})
	// mcp-fetch-server 1.1.2 refuses localhost and private addresses
	// (private-ip) before fetching and again after a redirect, but the
	// WHATWG URL parser turns [::ffff:127.0.0.1] into [::ffff:7f00:1],
	// which private-ip's IPv6 patterns do not match: the IPv4-mapped form
	// gets through, and fetch_html, fetch_markdown, fetch_txt and
	// fetch_readable return the body (critical); fetch_json (the body is
	// not JSON) and fetch_youtube_transcript only reach it (high). Its
	// proxy argument is a URL too and gets the same value; Node's fetch
	// ignores it (the listener sees origin-form requests). Checked by hand:
	// fetch_txt(url="http://[::ffff:127.0.0.1]:PORT/hand-mapped") returned
	// the file a python3 -m http.server served ("hand-check body"), while
	// http://127.0.0.1:PORT/ and http://0x7f000001:PORT/ were answered
	// "Fetcher blocked request to private address".
	t.Run("mcp-fetch-server-1.1.2", func(t *testing.T) {
		t.Parallel()
		script := realserver.Fetch.CwdArg(t)
		rep, err := packtest.Run(t.TempDir(), config(true, "node", script))
		require.NoError(t, err)
		mapped := func(sev, tool, tail string) string {
			u := "http://[::ffff:127.0.0.1]:{listener_port}/sealmark-ssrf/{token}/" + tool
			return sev + ": " + tool + `(proxy="` + u + `", url="` + u + `") reached the loopback listener: GET /sealmark-ssrf/{token}/` + tool + tail
		}
		const back = "; the listener's answer came back in the response"
		expect(t, rep, map[string][]string{
			"EFFECTS-SSRF-IPV4-MAPPED": {
				mapped("critical", "fetch_html", back), mapped("critical", "fetch_markdown", back),
				mapped("critical", "fetch_txt", back), mapped("critical", "fetch_readable", back),
				mapped("high", "fetch_json", ""), mapped("high", "fetch_youtube_transcript", ""),
			},
		})
	})
}
