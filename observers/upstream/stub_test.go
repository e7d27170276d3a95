package upstream

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/observers"
)

func TestRecordsRequestCarryingToken(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	assert.Equal(t, "upstream", s.Name())
	require.True(t, strings.HasPrefix(s.URL(), "http://127.0.0.1:"), s.URL())

	s.Begin("smtok-u1")
	got := get(t, s.URL()+"/v1/smtok-u1?q=1")
	assert.Equal(t, 200, got.status)
	assert.Equal(t, "application/json", got.header.Get("Content-Type"))
	assert.Equal(t, `{"ok":true,"path":"/v1/smtok-u1"}`, got.body)

	r := only(t, s.Collect("smtok-u1"), observers.KindUpstream)
	assert.Equal(t, "upstream", r.Observer)
	assert.Equal(t, "smtok-u1", r.Token)
	assert.False(t, r.Time.IsZero())
	host := strings.TrimPrefix(s.URL(), "http://")
	assert.Equal(t, map[string]string{
		"peer":        r.Data["peer"],
		"method":      "GET",
		"path":        "/v1/smtok-u1?q=1",
		"host":        host,
		"headers":     "Accept-Encoding,Connection,Host,User-Agent",
		"bytes":       "0",
		"status":      "200",
		"token_found": "true",
		"attributed":  "token",
	}, r.Data)
	assert.True(t, strings.HasPrefix(r.Data["peer"], "127.0.0.1:"), r.Data["peer"])
	assert.Equal(t, fmt.Sprintf("GET /v1/smtok-u1?q=1 on %s answered 200 (token in request)", host), r.Summary)
	assert.Empty(t, s.Collect("smtok-u1"), "a record is returned once")
}

func TestRedirectRoute(t *testing.T) {
	s := begin(t, Options{Redirect: "http://127.0.0.1:9/redirected"}, defaultLimits)
	got := get(t, s.URL()+"/redirect")
	assert.Equal(t, 302, got.status)
	assert.Equal(t, "http://127.0.0.1:9/redirected", got.header.Get("Location"))

	plain := begin(t, Options{}, defaultLimits)
	got = get(t, plain.URL()+"/redirect")
	assert.Equal(t, 200, got.status, "without Redirect, /redirect is not special")
	assert.Equal(t, `{"ok":true,"path":"/redirect"}`, got.body)
}

func TestFilesRouteNamesATraversalPath(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	got := get(t, s.URL()+"/files")
	assert.Equal(t, 200, got.status)
	assert.Equal(t, "application/json", got.header.Get("Content-Type"))
	var files struct {
		Files []struct{ Name, Content string }
	}
	require.NoError(t, json.Unmarshal([]byte(got.body), &files))
	require.Len(t, files.Files, 1)
	assert.Equal(t, "../canary/upstream.txt", files.Files[0].Name)
	assert.Equal(t, "sealmark upstream file", files.Files[0].Content)

	got = send(t, "POST", s.URL()+"/files", "")
	assert.Equal(t, `{"ok":true,"path":"/files"}`, got.body, "only GET /files lists files")
}

func TestScriptedRoutesComeFirst(t *testing.T) {
	s := begin(t, Options{Routes: []Route{
		{Method: "GET", Path: "/files", Status: 307, Header: map[string]string{"Location": "{upstream}/elsewhere", "X-Kind": "scripted"}},
		{Path: "/any", Body: "from {upstream}"},
	}}, defaultLimits)

	got := get(t, s.URL()+"/files")
	assert.Equal(t, 307, got.status)
	assert.Equal(t, s.URL()+"/elsewhere", got.header.Get("Location"))
	assert.Equal(t, "scripted", got.header.Get("X-Kind"))

	got = send(t, "PUT", s.URL()+"/any?x=1", "")
	assert.Equal(t, 200, got.status, "Status 0 means 200")
	assert.Equal(t, "from "+s.URL(), got.body)

	got = get(t, s.URL()+"/any/deeper")
	assert.Equal(t, `{"ok":true,"path":"/any/deeper"}`, got.body, "paths match exactly")
}

func TestStartRefusesTargetsOffLoopback(t *testing.T) {
	for _, target := range []string{
		"http://example.com/",
		"https://169.254.169.254/latest/meta-data/",
		"http://10.0.0.1/",
		"http://2130706433/", // only literal loopback forms are accepted
		"file:///etc/passwd",
		"//example.com/x",
		"gopher://127.0.0.1/",
	} {
		_, err := Start(Options{Redirect: target})
		assert.Error(t, err, "Redirect %q", target)
		_, err = Start(Options{Routes: []Route{{Path: "/r", Status: 302, Header: map[string]string{"location": target}}}})
		assert.Error(t, err, "route Location %q", target)
	}
	for _, target := range []string{"http://localhost:1/x", "http://[::1]:1/", "https://127.0.0.2/", "http://[::ffff:127.0.0.1]:1/", "/on-the-stub"} {
		s, err := Start(Options{Redirect: target, Routes: []Route{{Path: "/r", Header: map[string]string{"Location": target}}}})
		if assert.NoError(t, err, "target %q", target) {
			s.Close()
		}
	}
	for name, r := range map[string]Route{
		"path without slash": {Path: "x"},
		"status too low":     {Path: "/x", Status: 101},
		"status too high":    {Path: "/x", Status: 600},
		"header name":        {Path: "/x", Header: map[string]string{"Bad Name": "v"}},
		"header value":       {Path: "/x", Header: map[string]string{"X-A": "v\r\nInjected: 1"}},
	} {
		_, err := Start(Options{Routes: []Route{r}})
		assert.Error(t, err, name)
	}
}

func TestRecordsWhereCredentialsCameNeverTheirValues(t *testing.T) {
	s := begin(t, Options{Host: "127.0.0.1"}, defaultLimits)
	s.Begin("smtok-cred")
	get(t, s.URL()+"/v1/smtok-cred?api_key=val-query-1&page=2&Access_Token=val-query-2;session_secret=val-query-3",
		"Authorization: Bearer val-header-1",
		"X-Api-Key: val-header-2",
		"Cookie: sid=val-header-3")

	r := only(t, s.Collect("smtok-cred"), observers.KindUpstream)
	for k, v := range r.Data {
		assert.NotContains(t, v, "val-", "Data[%s]", k)
	}
	assert.NotContains(t, r.Summary, "val-")
	assert.Equal(t, "/v1/smtok-cred?api_key=<redacted>&page=2&Access_Token=<redacted>;session_secret=<redacted>", r.Data["path"])
	assert.Equal(t, "header:Authorization,header:Cookie,header:X-Api-Key,query:api_key,query:Access_Token,query:session_secret", r.Data["credentials"])
	host := strings.TrimPrefix(s.URL(), "http://")
	assert.Equal(t, host, r.Data["credential_host"])
	assert.Equal(t, "false", r.Data["host_mismatch"], "127.0.0.1 is the configured host, whatever the port")
	assert.Contains(t, r.Summary, "; credentials header:Authorization,")
	assert.NotContains(t, r.Summary, "not the configured")

	creds := s.Credentials("smtok-cred")
	assert.Equal(t, []Credential{
		{"header:Authorization", host, "Bearer val-header-1"},
		{"header:Cookie", host, "sid=val-header-3"},
		{"header:X-Api-Key", host, "val-header-2"},
		{"query:api_key", host, "val-query-1"},
		{"query:Access_Token", host, "val-query-2"},
		{"query:session_secret", host, "val-query-3"},
	}, creds)
	assert.Equal(t, creds, s.Credentials("smtok-cred"), "Credentials returns them again")
	assert.Empty(t, s.Credentials("smtok-other"))
}

func TestMarksCredentialsUnderAnotherHost(t *testing.T) {
	s := begin(t, Options{Host: "api.example.test"}, defaultLimits)
	s.Begin("smtok-host")
	get(t, s.URL()+"/a", "Host: evil.test", "Authorization: Basic dXNlcjpwYXNz")
	get(t, s.URL()+"/b", "Host: api.example.test:8080", "Authorization: Basic dXNlcjpwYXNz")
	get(t, s.URL()+"/c", "Host: evil.test") // no credentials: nothing to judge

	rs := s.Collect("smtok-host")
	require.Len(t, rs, 3)
	assert.Equal(t, "true", rs[0].Data["host_mismatch"])
	assert.Equal(t, "evil.test", rs[0].Data["credential_host"])
	assert.True(t, strings.HasSuffix(rs[0].Summary,
		"; credentials header:Authorization under host evil.test, not the configured api.example.test"), rs[0].Summary)
	assert.Equal(t, "false", rs[1].Data["host_mismatch"])
	assert.NotContains(t, rs[2].Data, "host_mismatch")
	assert.NotContains(t, rs[2].Data, "credentials")

	creds := s.Credentials("smtok-host")
	require.Len(t, creds, 2)
	assert.Equal(t, "evil.test", creds[0].Host)
	assert.Equal(t, "Basic dXNlcjpwYXNz", creds[0].Value)
}

func TestAttributesByTimeWhenNoTokenOccurs(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-open")
	get(t, s.URL()+"/plain")
	r := only(t, s.Collect("smtok-open"), observers.KindUpstream)
	assert.Equal(t, "smtok-open", r.Token)
	assert.Equal(t, "time", r.Data["attributed"])
	assert.Equal(t, "false", r.Data["token_found"])
	assert.True(t, strings.HasSuffix(r.Summary, "(no token; during the open probe)"), r.Summary)
}

func TestTokenWinsOverTheOpenProbe(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-first")
	s.Begin("smtok-second")
	get(t, s.URL()+"/x", "X-Request-Id: smtok-first")
	send(t, "POST", s.URL()+"/y", `{"trace":"smtok-first"}`)
	get(t, s.URL()+"/z", "Host: smtok-first.example.test")

	first := s.Collect("smtok-first")
	require.Len(t, first, 3)
	for _, r := range first {
		assert.Equal(t, "token", r.Data["attributed"])
	}
	assert.Equal(t, "23", first[1].Data["bytes"])
	assert.Empty(t, s.Collect("smtok-second"))
}

func TestBeginEmptyOpensNoProbe(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-done")
	s.Begin("")
	get(t, s.URL()+"/between")
	assert.Empty(t, s.Collect("smtok-done"))
	r := only(t, s.Close(), observers.KindUpstream)
	assert.Empty(t, r.Token)
	assert.Equal(t, "none", r.Data["attributed"])
}

func TestCloseReturnsWhatNoCollectReturned(t *testing.T) {
	s := begin(t, Options{}, defaultLimits)
	s.Begin("smtok-a")
	get(t, s.URL()+"/one")
	require.Len(t, s.Collect("smtok-a"), 1)
	get(t, s.URL()+"/late")
	r := only(t, s.Close(), observers.KindUpstream)
	assert.Equal(t, "/late", r.Data["path"])
	assert.Equal(t, "smtok-a", r.Token)
	assert.Nil(t, s.Close())
	assert.Nil(t, s.Collect("smtok-a"))
}
