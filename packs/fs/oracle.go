package fs

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// holds reports whether b carries value as it is or base64-encoded (as a
// media or blob tool returns a file).
func holds(b []byte, value string) bool {
	if value == "" {
		return false
	}
	if bytes.Contains(b, []byte(value)) {
		return true
	}
	enc := base64.StdEncoding.EncodeToString([]byte(value))
	return bytes.Contains(b, []byte(enc)) || bytes.Contains(b, []byte(strings.TrimRight(enc, "=")))
}

// secretsIn returns the canary files whose content a response carries,
// leaving out content the request itself sent (an edit's old text, echoed
// in an error).
func secretsIn(sb *packs.Sandbox, res *packs.Response, args map[string]any) []string {
	sent, _ := json.Marshal(args)
	var names []string
	b := res.Body()
	for _, f := range sb.Files {
		if holds(b, f.Value) && !bytes.Contains(sent, []byte(f.Value)) {
			names = append(names, f.Name)
		}
	}
	return names
}

// namesIn returns the canary files whose names a listing carries, leaving
// out names the request itself sent (an error may echo the request).
func namesIn(sb *packs.Sandbox, res *packs.Response, args map[string]any) []string {
	if res.Refused() {
		return nil
	}
	sent, _ := json.Marshal(args)
	b := res.Body()
	var names []string
	for _, f := range sb.Files {
		base := path.Base(f.Name)
		if bytes.Contains(b, []byte(base)) && !bytes.Contains(sent, []byte(base)) {
			names = append(names, f.Name)
		}
	}
	return names
}

var sizePattern = regexp.MustCompile(`(?i)size\\?["']?\s*[:=]\s*(\d+)\b`)

// sizeIn reports whether a stat response gives size n.
func sizeIn(res *packs.Response, n int) bool {
	if res.Refused() {
		return false
	}
	for _, m := range sizePattern.FindAllSubmatch(res.Body(), -1) {
		if string(m[1]) == strconv.Itoa(n) {
			return true
		}
	}
	return false
}
