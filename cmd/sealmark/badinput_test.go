package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/internal/report"
)

// TestBadInputsNameTheFlag gives run and doctor the inputs a review found
// accepted or failing late: each is a usage error (exit 2) naming the flag,
// and nothing starts.
func TestBadInputsNameTheFlag(t *testing.T) {
	url := []string{"--url", "http://127.0.0.1:9/mcp"}
	cases := []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"header with CR LF", append(url, "--header", "Authorization: Bearer x\r\nX-Injected: 1"), []string{"--header", "line break"}},
		{"header with LF", append(url, "--header", "Authorization: Bearer x\nX-Injected: 1"), []string{"--header", "line break"}},
		{"timeout 1ns", []string{"--timeout", "1ns", "--", "x"}, []string{"flag --timeout", "too short"}},
		{"call timeout 1ms", []string{"--call-timeout", "1ms", "--", "x"}, []string{"flag --call-timeout", "too short"}},
		{"no sandbox kept", []string{"--no-sandbox", "--keep-sandbox", "--", "x"}, []string{"--no-sandbox", "--keep-sandbox"}},
		{"no sandbox weakened", []string{"--no-sandbox", "--layers-off", "landlock", "--", "x"}, []string{"--no-sandbox", "flag --layers-off"}},
		{"sandbox dir under /proc", []string{"--sandbox-dir", "/proc", "--", "x"}, []string{"flag --sandbox-dir", "/proc filesystem"}},
		{"sandbox dir under /proc/self", []string{"--sandbox-dir", "/proc/self/fd", "--", "x"}, []string{"flag --sandbox-dir", "/proc filesystem"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, cmd := range []string{"run", "doctor"} {
				code, out, errOut := sealmark(t, append([]string{cmd}, c.args...)...)
				if cmd == "doctor" {
					errOut += out // doctor lists its checks on stdout
				}
				assert.Equal(t, report.ExitUsage, code, "%s: stdout %s stderr %s", cmd, out, errOut)
				for _, w := range c.want {
					assert.Contains(t, errOut, w, cmd)
				}
				assert.NotContains(t, errOut, "Bearer x", "%s: the header value is never quoted", cmd)
			}
		})
	}
	// The same flags, well formed, pass the checks (--explain-config
	// resolves and checks without starting anything).
	dir := t.TempDir()
	code, _, errOut := sealmark(t, "run", "--explain-config", "--sandbox-dir", dir, "--timeout", "100ms", "--", "x")
	assert.Equal(t, report.ExitClean, code, errOut)
	code, _, errOut = sealmark(t, append([]string{"run", "--explain-config", "--header", "Authorization: Bearer x", "--header", "X-Two: 2"}, url...)...)
	assert.Equal(t, report.ExitClean, code, errOut)
}

// TestAbsurdLimitsRefused: --max-mib above 65536 and a timeout above 24h
// are refused before anything starts, naming the flag, the key and the
// maximum.
func TestAbsurdLimitsRefused(t *testing.T) {
	code, _, errOut := sealmark(t, "run", "--max-mib", "99999999", "--", "x")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "flag --max-mib: sandbox.max_mib: 99999999 MiB is more than any sandbox needs; at most 65536")
	code, _, errOut = sealmark(t, "run", "--timeout", "100000h", "--", "x")
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, "at most 24h")
}
