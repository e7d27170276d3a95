package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
)

// TestURLPasswordsInEveryFormat: a DSN with a password in the server's
// arguments, in an environment value under a name that does not look
// secret, and in what the server said, shows its password in no output
// format, however short the password ("pw" is below the length at which
// a value is masked by itself).
func TestURLPasswordsInEveryFormat(t *testing.T) {
	const dsn = "postgres://app:pw@db.example.test:5432/app"
	rep := sampleReport()
	rep.Server.Args = append(rep.Server.Args, "--dsn", dsn)
	rep.Server.Env = append(rep.Server.Env, EnvEntry{Name: "DATABASE_URL", Value: redact.EnvValue("DATABASE_URL", dsn, false)})
	f := &rep.Packs[0].Probes[1].Findings[0]
	f.Message += " (connected to " + dsn + ")"
	f.Evidence[0].Detail = "log: connecting to " + dsn
	Finalize(rep, sampleRedactor())

	var text, js, sarif, junit bytes.Buffer
	if err := WriteText(&text, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteSARIF(&sarif, rep, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "JSON": js.String(), "SARIF": sarif.String(), "JUnit": junit.String()} {
		if strings.Contains(out, ":pw@") {
			t.Errorf("%s output holds the DSN's password:\n%s", name, out)
		}
		masked := "postgres://app:" + redact.MaskRedacted + "@db.example.test:5432/app"
		if name == "JUnit" {
			masked = "postgres://app:&lt;redacted&gt;@db.example.test:5432/app"
		}
		if !strings.Contains(out, masked) {
			t.Errorf("%s output lacks %s: the DSN did not reach it", name, masked)
		}
	}
}
