package upstream

import (
	"bytes"
	"fmt"
	"github.com/sealmark/sealmark/observers/internal/ledger"
	"maps"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// record describes one request. It names headers and where credentials
// were, never their values, and masks secret-looking query values.
func (s *Stub) record(r *http.Request, at time.Time, n int, full bool, status int, creds []Credential, tok, how string) observers.Record {
	host := ledger.Clean(r.Host, 256)
	path := ledger.Clean(redactedTarget(r.URL), 1024)
	data := map[string]string{
		observers.KeyPeer:       r.RemoteAddr,
		observers.KeyMethod:     ledger.Clean(r.Method, 64),
		observers.KeyPath:       path,
		observers.KeyHost:       host,
		observers.KeyHeaders:    ledger.Clean(headerNames(r), 1024),
		observers.KeyBytes:      strconv.Itoa(n),
		observers.KeyStatus:     strconv.Itoa(status),
		observers.KeyTokenFound: strconv.FormatBool(how == ledger.ByToken),
		observers.KeyAttributed: how,
	}
	if full {
		data[observers.KeyTruncated] = "true"
	}
	summary := fmt.Sprintf("%s %s on %s answered %d (%s)", data[observers.KeyMethod], ledger.Clean(path, 120), host, status, because(how))
	if len(creds) > 0 {
		where := places(creds)
		data[observers.KeyCredentials] = where
		data[observers.KeyCredentialHost] = host
		summary += fmt.Sprintf("; credentials %s under host %s", where, host)
		if s.host != "" {
			mismatch := !sameHost(r.Host, s.host)
			data[observers.KeyHostMismatch] = strconv.FormatBool(mismatch)
			if mismatch {
				summary += ", not the configured " + ledger.Clean(s.host, 256)
			}
		}
	}
	return observers.Record{
		Kind:     observers.KindUpstream,
		Observer: "upstream",
		Time:     at,
		Token:    tok,
		Summary:  summary,
		Data:     data,
	}
}

// because says in a summary how the record was attributed.
func because(how string) string {
	switch how {
	case ledger.ByToken:
		return "token in request"
	case ledger.ByTime:
		return "no token; during the open probe"
	}
	return "no token; no probe open"
}

// headerNames lists the request's header names, Host included, sorted.
func headerNames(r *http.Request) string {
	names := slices.Collect(maps.Keys(r.Header))
	if r.Host != "" {
		names = append(names, "Host")
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ",")
}

// sameHost compares a request's Host with the configured one: with the
// port when the configured one has a port, else by host name only.
func sameHost(got, want string) bool {
	if _, _, err := net.SplitHostPort(want); err == nil {
		return strings.EqualFold(got, want)
	}
	if h, _, err := net.SplitHostPort(got); err == nil {
		got = h
	}
	return strings.EqualFold(strings.Trim(got, "[]"), strings.Trim(want, "[]"))
}

// requestBytes is everything of r that a token may hide in: the request
// target, the header names and values, the Host and the body read.
func requestBytes(r *http.Request, body []byte) []byte {
	var b bytes.Buffer
	b.WriteString(r.Method + " " + r.RequestURI + "\nHost: " + r.Host + "\n")
	for name, values := range r.Header {
		for _, v := range values {
			b.WriteString(name + ": " + v + "\n")
		}
	}
	b.Write(body)
	return b.Bytes()
}
