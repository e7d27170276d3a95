package config

import (
	"fmt"
	"io"
	"strings"
)

// KeyRef describes one setting for help texts: its key in sealmark.yaml
// (or, for a flag-only setting, its flag), the CLI flag and the SEALMARK_*
// variable that set it, and one line saying what it does.
type KeyRef struct {
	// Key is the dotted sealmark.yaml key, such as "server.url"; a setting
	// with no file key has its flag here ("--no-sandbox") and FileKey false.
	Key     string
	FileKey bool
	// Flag is the flag of sealmark run that sets it, such as "--url", or
	// "the command after --"; empty when none does.
	Flag string
	// Env is the environment variable that sets it; empty when none does.
	Env string
	// Doc says what the setting does, in one line.
	Doc string
}

// keyDocs are the one-line descriptions Reference gives; a test keeps
// them in step with the settings table.
var keyDocs = map[string]string{
	"server.command":   "the stdio server's program (a name on the sandbox's PATH, or a path)",
	"server.args":      "the program's arguments, taken as written; placeholders expand",
	"server.env":       "variables the server gets on top of the scrubbed environment",
	"server.url":       "an HTTP server's MCP endpoint, a loopback URL",
	"server.headers":   "HTTP headers sent with every request to server.url",
	"server.files":     "small files staged into the sandbox before the server starts (a path ending in / makes an empty directory)",
	"server.start":     "a command that starts the HTTP server at server.url, in the sandbox",
	"sandbox.keep_env": "names of your variables copied to the server",
	"sandbox.scrub_env": "build the server's environment from scratch (default true; " +
		"false makes the run CUSTOM)",
	"sandbox.dir":     "the directory the sandbox is made under (default the OS temp dir)",
	"sandbox.max_mib": "the sandbox's size limit in MiB (default 1024); a root harness enforces it with a filesystem of that size, elsewhere it is sampled",
	"sandbox.layers_off": "containment layers to turn off: landlock, seccomp, namespaces, cgroup, " +
		"fsize, quota, secrets; the run becomes CUSTOM",
	"sandbox.services": "host endpoints the server may reach: tcp:127.0.0.1:<port> (forwarded into its network namespace) " +
		"or unix:<socket path>; each connection recorded, the run stays STANDARD",
	"sandbox.network":    "network containment: closed (loopback only), the only value",
	"--no-sandbox":       "run the server without a sandbox, with your environment (the run is CUSTOM)",
	"--keep-sandbox":     "keep the sandbox after the run and print its path",
	"--fresh-starts":     "start the server afresh for every pack, even one that could run on the start an earlier pack left running (same verdicts, slower)",
	"--jobs":             "how many packs run at once, each past the first start on a server and sandbox of its own; 0 (the default) means one per CPU, 1 one after another",
	"--uncontained":      "start the server although this system has no containment layers (not Linux, or Linux without them); the run is CUSTOM",
	"packs":              "the packs to run; empty means every pack",
	"--probes":           "run only the probes these globs match (pack/name, name or ID: core/secret-*, FS-READ-*)",
	"--skip-probes":      "skip the probes these globs match (pack/name, name or ID)",
	"hints":              "per pack, hints the pack checks itself; fs: tool → {role, path, to}",
	"probes":             "your own probes: table rows run as a pack of their own",
	"fail_on":            "the lowest severity that makes the exit code 1 (default high)",
	"allow_inconclusive": "let an inconclusive probe at or above fail_on, or an INCOMPLETE pack, pass (default false: exit 3)",
	"baseline":           "a file of accepted findings (probe id, fingerprint, justification)",
	"lock":               "the tool lock sealmark pin wrote (default sealmark.lock.json beside sealmark.yaml, when present)",
	"timeouts.start":     "bound on one server start up to its tool list (default 30s)",
	"timeouts.call":      "bound on one request (default 10s)",
	"timeouts.probe":     "bound on one probe; past it the probe is inconclusive (default 5m)",
	"timeouts.run":       "bound on the whole run; past it the run stops, the probe in flight inconclusive (default 1h)",
	"report.json":        "where to write the JSON report",
	"report.sarif":       "where to write the SARIF 2.1.0 log",
	"report.junit":       "where to write the JUnit XML",
	"db.admin_dsn":       "the db pack's admin DSN, a loopback database",
}

// Reference lists every setting in the order Explain prints them.
func Reference() []KeyRef {
	var refs []KeyRef
	for _, s := range settings {
		r := KeyRef{Key: s.key, FileKey: !s.flagOnly, Doc: keyDocs[s.key]}
		for flag, key := range flagKeys {
			if key == s.key {
				r.Flag = "--" + flag
			}
		}
		switch s.key {
		case "server.command", "server.args":
			r.Flag = "the command after --"
		case "server.env":
			r.Flag = "--env"
		case "server.headers":
			r.Flag = "--header"
		}
		for _, e := range envVars {
			if e.key == s.key {
				r.Env = e.name
			}
		}
		refs = append(refs, r)
	}
	return refs
}

// WriteReference writes Reference as the table sealmark help config prints.
func WriteReference(w io.Writer) error {
	var b strings.Builder
	b.WriteString("sealmark.yaml keys, with the flag and the SEALMARK_* variable that also set them\n" +
		"(a later layer wins: defaults, the file, the environment, the flags):\n\n")
	for _, r := range Reference() {
		var also []string
		if r.Flag != "" {
			also = append(also, r.Flag)
		}
		if r.Env != "" {
			also = append(also, r.Env)
		}
		key := r.Key
		if !r.FileKey {
			key = "(flag only)"
		}
		fmt.Fprintf(&b, "  %-18s %s\n", key, r.Doc)
		if len(also) > 0 {
			fmt.Fprintf(&b, "  %-18s %s\n", "", strings.Join(also, ", "))
		}
	}
	b.WriteString("\nSEALMARK_CONFIG names the file (--config wins; else ./sealmark.yaml when present).\n" +
		"--active and --yes have no file or environment form, on purpose.\n" +
		"Its JSON Schema: docs/sealmark.schema.json.\n")
	_, err := io.WriteString(w, b.String())
	return err
}
