package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/redact"
)

// postgresURL matches a PostgreSQL connection URL written in a value,
// "--db=postgres://app:pw@127.0.0.1/app" or the value alone.
var postgresURL = regexp.MustCompile(`(?i)\bpostgres(?:ql)?://[^\s'"]*`)

// withoutPasswords keeps every password out of what init writes, as
// sealmark.yaml is meant to be committed:
//   - an --env value that looks secret (redact.SecretEnv: its name or its
//     token shape) goes to sandbox.keep_env, its value left out;
//   - a PostgreSQL URL with a password, in an argument or an --env value,
//     becomes {dsn}, the db pack's connection string for each role;
//   - any other URL's password becomes <redacted>, with a warning to put
//     the real one back by hand.
//
// Each change is said on stderr, never quoting the password.
func withoutPasswords(d *initDraft, env []config.KV, out string, stderr io.Writer) {
	scrub := func(where string, slot *string) {
		if len(redact.URLPasswords(*slot)) == 0 {
			return
		}
		dsn := false
		*slot = postgresURL.ReplaceAllStringFunc(*slot, func(u string) string {
			if len(redact.URLPasswords(u)) == 0 {
				return u
			}
			dsn = true
			return "{dsn}"
		})
		if dsn {
			fmt.Fprintf(stderr, "sealmark init: %s: a PostgreSQL URL with a password became {dsn}, the db pack's connection string for each role (db.admin_dsn or SEALMARK_DB_ADMIN_DSN names the server); the password is not written to %s\n", where, out)
		}
		if len(redact.URLPasswords(*slot)) > 0 {
			*slot = redact.Passwords(*slot)
			fmt.Fprintf(stderr, "sealmark init: warning: %s: a URL's password became %s: sealmark init never writes a password into %s; put it back by hand where you keep it private\n", where, redact.MaskRedacted, out)
		}
	}
	scrub("server.command", &d.command)
	for i := range d.args {
		scrub(fmt.Sprintf("server.args[%d]", i), &d.args[i])
	}
	for _, kv := range env {
		if redact.SecretEnv(kv.Name, kv.Value) {
			d.keep = append(d.keep, kv.Name)
			fmt.Fprintf(stderr, "sealmark init: %s looks like a secret: its value is not written to %s; sandbox.keep_env copies it from your environment when sealmark runs\n", kv.Name, out)
			continue
		}
		d.env = append(d.env, kv)
	}
	for i := range d.env {
		scrub("server.env "+d.env[i].Name, &d.env[i].Value)
	}
}

// commandLine is the server's command line for init's header comment,
// bounded: its passwords are masked before it is cut, so the cut keeps
// no part of one.
func commandLine(d *initDraft) string {
	whole := redact.Passwords(strings.Join(append([]string{d.command}, d.args...), " "))
	if len(whole) > 200 {
		whole = whole[:200] + "..."
	}
	return whole
}
