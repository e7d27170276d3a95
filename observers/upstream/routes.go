package upstream

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Route is one scripted response: a request whose method and path match
// gets Status, Header and Body.
type Route struct {
	Method string            // "" matches any method
	Path   string            // matched exactly against the request's path (no query); starts with "/"
	Status int               // 200 when 0; otherwise 200 to 599
	Header map[string]string // "{upstream}" in a value becomes the stub's URL
	Body   string            // "{upstream}" becomes the stub's URL
}

// filesBody is what GET /files answers: a file list naming a path that
// climbs out of wherever the server puts it.
const filesBody = `{"files":[{"name":"../canary/upstream.txt","content":"sealmark upstream file"}]}`

// response is what the stub answers one request with.
type response struct {
	status int
	header map[string]string
	body   string
}

// answer picks the response for r: the scripted routes first, then the
// defaults.
func (s *Stub) answer(r *http.Request) response {
	for _, rt := range s.routes {
		if (rt.Method == "" || rt.Method == r.Method) && rt.Path == r.URL.Path {
			return response{rt.Status, rt.Header, rt.Body}
		}
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/redirect" && s.redirect != "":
		return response{http.StatusFound, map[string]string{"Location": s.redirect}, ""}
	case r.Method == http.MethodGet && r.URL.Path == "/files":
		return response{http.StatusOK, jsonType, filesBody}
	}
	b, _ := json.Marshal(struct {
		OK   bool   `json:"ok"`
		Path string `json:"path"`
	}{true, r.URL.Path})
	return response{http.StatusOK, jsonType, string(b)}
}

var jsonType = map[string]string{"Content-Type": "application/json"}

func (resp response) write(w http.ResponseWriter) {
	for k, v := range resp.header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(resp.status)
	w.Write([]byte(resp.body))
}

// scripted checks o's routes and returns them with "{upstream}" expanded
// and Status defaulted.
func scripted(o Options, self string) ([]Route, error) {
	out := make([]Route, 0, len(o.Routes))
	for i, rt := range o.Routes {
		if !strings.HasPrefix(rt.Path, "/") {
			return nil, fmt.Errorf("upstream: route %d: path %q does not start with /", i, rt.Path)
		}
		if rt.Status == 0 {
			rt.Status = http.StatusOK
		}
		if rt.Status < 200 || rt.Status > 599 {
			return nil, fmt.Errorf("upstream: route %s: status %d is not between 200 and 599", rt.Path, rt.Status)
		}
		header := make(map[string]string, len(rt.Header))
		for k, v := range rt.Header {
			v = strings.ReplaceAll(v, "{upstream}", self)
			if !validName(k) || strings.ContainsAny(v, "\r\n\x00") {
				return nil, fmt.Errorf("upstream: route %s: header %q is not a valid header line", rt.Path, k)
			}
			if http.CanonicalHeaderKey(k) == "Location" {
				if err := loopbackTarget(v); err != nil {
					return nil, fmt.Errorf("upstream: route %s: Location: %w", rt.Path, err)
				}
			}
			header[k] = v
		}
		rt.Header = header
		rt.Body = strings.ReplaceAll(rt.Body, "{upstream}", self)
		out = append(out, rt)
	}
	return out, nil
}

// loopbackTarget accepts a redirect target the stub may send a server to:
// a path on the stub itself, or an http(s) URL whose host is a loopback IP
// literal or "localhost". The stub never points a server anywhere else.
func loopbackTarget(target string) error {
	if strings.HasPrefix(target, "/") && !strings.HasPrefix(target, "//") {
		return nil
	}
	u, err := url.Parse(target)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%q: only http and https targets are allowed", target)
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%q: host %q is not a loopback address", target, host)
}

func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}
