package upstream

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedactedTarget(t *testing.T) {
	cases := map[string]string{
		"/p":                                 "/p",
		"/p?a=1&b=2":                         "/p?a=1&b=2",
		"/p?api_key=s1&b=2":                  "/p?api_key=<redacted>&b=2",
		"/p?API%5FKEY=s1":                    "/p?API%5FKEY=<redacted>",
		"/p?x=1;password=s1&author=s2":       "/p?x=1;password=<redacted>&author=<redacted>",
		"/p?token":                           "/p?token",
		"/p?q=a%26token%3Ds1":                "/p?q=a%26token%3Ds1",
		"/p%20q?Bearer=s1&&monkey=s2":        "/p%20q?Bearer=<redacted>&&monkey=<redacted>",
		"/p?client_credential=s1=s2&cookie=": "/p?client_credential=<redacted>&cookie=<redacted>",
	}
	for in, want := range cases {
		u, err := url.ParseRequestURI(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, redactedTarget(u), in)
	}
}

func TestSameHost(t *testing.T) {
	cases := []struct {
		got, want string
		same      bool
	}{
		{"api.example.test", "api.example.test", true},
		{"API.example.test:443", "api.example.test", true},
		{"evil.test", "api.example.test", false},
		{"api.example.test:8443", "api.example.test:8443", true},
		{"api.example.test:80", "api.example.test:8443", false},
		{"api.example.test", "api.example.test:8443", false},
		{"[::1]:80", "::1", true},
		{"127.0.0.1:5", "127.0.0.1", true},
	}
	for _, c := range cases {
		assert.Equal(t, c.same, sameHost(c.got, c.want), "sameHost(%q, %q)", c.got, c.want)
	}
}
