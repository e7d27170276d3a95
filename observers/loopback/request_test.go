package loopback

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRequest(t *testing.T) {
	cases := []struct {
		name, in      string
		http, done    bool
		method, names string
	}{
		{"whole head", "GET /x HTTP/1.1\r\nHost: h\r\n\r\n", true, true, "GET", "Host"},
		{"bare newlines", "GET /x HTTP/1.0\nhost: h\n\n", true, true, "GET", "Host"},
		{"head cut short keeps whole lines", "GET /x HTTP/1.1\r\nA: 1\r\nB-Par", true, false, "GET", "A"},
		{"body still to come", "POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab", true, false, "POST", "Content-Length"},
		{"body whole", "POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", true, true, "POST", "Content-Length"},
		{"chunked until last chunk", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", true, false, "POST", "Transfer-Encoding"},
		{"chunked whole", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n", true, true, "POST", "Transfer-Encoding"},
		{"names once, canonical", "GET / HTTP/1.1\r\nx-a: 1\r\nX-A: 2\r\nbad header\r\n folded\r\n\r\n", true, true, "GET", "X-A"},
		{"HTTP/2 preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", false, false, "", ""},
		{"no line yet", "GET / HTTP/1.1", false, false, "", ""},
		{"not a request line", "hello world\n", false, false, "", ""},
		{"control byte in target", "GET /\x01 HTTP/1.1\r\n\r\n", false, false, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := parseRequest([]byte(c.in))
			if !c.http {
				assert.Nil(t, r)
				return
			}
			require.NotNil(t, r)
			assert.Equal(t, c.method, r.method)
			assert.Equal(t, c.names, strings.Join(r.names, ","))
			assert.Equal(t, c.done, r.done([]byte(c.in)))
		})
	}
}
