package report

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// run is what differs between two runs of the same server.
type run struct {
	top, token, port, canary string
}

func newRun() run {
	return run{
		top:    "/tmp/sealmark-" + rand.Text()[:10],
		token:  strings.ToLower(rand.Text()[:16]),
		port:   fmt.Sprint(20000 + time.Now().UnixNano()%40000),
		canary: "sm-canary-" + strings.ToLower(rand.Text()[:16]),
	}
}

// report builds the report one run of a deterministic server produces.
func (ru run) report() *Report {
	root := ru.top + "/root"
	return &Report{
		Tool:   Tool{Name: "sealmark", Version: "dev"},
		Class:  Standard,
		Server: Server{Command: "node", Args: []string{"index.js", root}, URL: "http://127.0.0.1:" + ru.port + "/mcp"},
		Sandbox: Sandbox{
			EnvMode: "scrubbed",
			Path:    root,
		},
		Started:  time.Now(),
		Finished: time.Now().Add(time.Second),
		Packs: []Pack{{Name: "fs", Probes: []Probe{{
			ID: "FS-SYMLINK-FILE", Name: "symlink-file", Verdict: packs.Failed, Severity: packs.Critical,
			Findings: []packs.Finding{{
				Severity: packs.Critical,
				Message:  "read " + ru.top + "/canary/secret.txt through " + root + "/link-file",
				Evidence: []packs.Evidence{{Observer: "response", Detail: "read_file returned " + ru.canary + " (token " + ru.token + ")"}},
			}},
			Notes: []string{"HOME was " + ru.top + "/home", "listener on 127.0.0.1:" + ru.port},
			Token: ru.token,
		}}}},
	}
}

func (ru run) redactor() *redact.Redactor {
	r := redact.New()
	r.Secret(ru.canary, redact.MaskCanary)
	r.Stable(ru.top, "{sandbox_top}")
	r.Stable(ru.top+"/root", "{sandbox}")
	r.Stable(ru.top+"/home", "{sandbox_home}")
	r.Stable(ru.token, "{token}")
	r.Stable(ru.port, "{port}")
	return r
}

func finalJSON(t *testing.T, ru run) []byte {
	t.Helper()
	rep := ru.report()
	Finalize(rep, ru.redactor())
	rep.Started, rep.Finished = time.Time{}, time.Time{}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestStableNamesMakeRunsIdentical(t *testing.T) {
	a, b := newRun(), newRun()
	for a.port == b.port {
		b = newRun()
	}
	ja, jb := finalJSON(t, a), finalJSON(t, b)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("two runs differ after Finalize:\n--- first ---\n%s\n--- second ---\n%s", ja, jb)
	}
	for _, name := range []string{"{sandbox}/link-file", "{sandbox_top}/canary", "{sandbox_home}", `"token": "{token}"`, "127.0.0.1:{port}", "<canary>"} {
		if !bytes.Contains(ja, []byte(name)) {
			t.Errorf("report lacks %q:\n%s", name, ja)
		}
	}
	for _, real := range []string{a.top, a.token, a.canary} {
		if bytes.Contains(ja, []byte(real)) {
			t.Errorf("report still holds the run's %q", real)
		}
	}
}
