// Package reportcmp compares JSON reports in Sealmark's own tests: two runs
// of the same server give the same report apart from timing and the
// kernel's numbers.
//
//	a, err := reportcmp.Timeless(rawA)
//	b, err := reportcmp.Timeless(rawB)
//	assert.Equal(t, a, b)
package reportcmp

import (
	"encoding/json"
	"regexp"
)

// kernelNumbers are a pid or a port in an observation's text.
var kernelNumbers = regexp.MustCompile(`(pid |\]:|\d:)\d+`)

// durations are measured times in a harness error ("exited 80ms after it
// started").
var durations = regexp.MustCompile(`\b\d+(\.\d+)?(ns|µs|ms|s|m)\b`)

// Timeless is the JSON report raw, indented, without its timing fields
// (started, finished, millis, each record's time) and without the
// kernel's numbers for the same things (a pid, an inode, the ephemeral
// port in an observation's data, summary or evidence, a measured time in
// the harness error).
func Timeless(raw []byte) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	out, err := json.MarshalIndent(withoutTiming(v), "", " ")
	return string(out), err
}

func withoutTiming(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"started", "finished", "millis", "time"} {
			delete(v, k)
		}
		if data, ok := v["data"].(map[string]any); ok && v["kind"] != nil {
			for _, k := range []string{"pid", "ppid", "inode", "port"} {
				delete(data, k)
			}
		}
		if s, ok := v["harnessError"].(string); ok {
			v["harnessError"] = durations.ReplaceAllString(s, "<duration>")
		}
		for _, k := range []string{"summary", "detail"} {
			if s, ok := v[k].(string); ok {
				v[k] = kernelNumbers.ReplaceAllString(s, "${1}N")
			}
		}
		for k, x := range v {
			v[k] = withoutTiming(x)
		}
	case []any:
		for i, x := range v {
			v[i] = withoutTiming(x)
		}
	}
	return v
}
