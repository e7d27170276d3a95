package report

import (
	"time"

	"github.com/sealmark/sealmark/internal/redact"
	"github.com/sealmark/sealmark/packs"
)

// sampleReport is a STANDARD run of a small server with one critical
// finding, written with the run's real (random) values as the engine would;
// sampleRedactor knows those values.
func sampleReport() *Report {
	return &Report{
		Tool:  Tool{Name: "sealmark", Version: "dev"},
		Class: Standard,
		Server: Server{
			Command: "node",
			Args:    []string{"{cwd}/index.js", "{sandbox}"},
			Env: []EnvEntry{
				{Name: "API_KEY", Value: redact.EnvValue("API_KEY", "sk-live-0123456789", false)},
				{Name: "MODE", Value: redact.EnvValue("MODE", "fast", false)},
				{Name: "SEALMARK_CANARY", Value: redact.EnvValue("SEALMARK_CANARY", "sm-canary-00112233aabbccdd", true)},
			},
		},
		Sandbox: Sandbox{
			EnvMode:   "scrubbed",
			Inherited: []string{"PATH (system part)", "LANG"},
			Path:      "/tmp/sealmark-4242/root",
			Isolation: "landlock, user namespace",
			MaxMiB:    1024,
		},
		Protocol: Protocol{Era: "legacy", Version: "2025-11-25", ServerName: "example-notes", ServerVersion: "1.0.0"},
		Warnings: []string{"server.args[1] (/data) points at a real path on this machine; valid calls may read or write it"},
		Started:  time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Finished: time.Date(2026, 3, 1, 10, 0, 4, 250_000_000, time.UTC),
		Packs: []Pack{{
			Name: "core",
			Doc:  "protocol hygiene and secret handling every server must pass",
			Probes: []Probe{
				{ID: "CORE-INIT", Name: "initialize", Verdict: packs.Passed, Severity: packs.High, Millis: 12},
				{
					ID: "CORE-SECRET-ECHO", Name: "secret-echo", Verdict: packs.Failed, Severity: packs.Critical,
					Doc: "no response may contain a canary value",
					Findings: []packs.Finding{{
						Severity: packs.Critical,
						Message:  "SEALMARK_CANARY echoed in the response of tool debug_info",
						CWE:      "CWE-200",
						Evidence: []packs.Evidence{{Observer: "response", Detail: "tools/call debug_info result contains sm-canary-00112233aabbccdd"}},
					}},
					Token:  "9f8e7d6c5b4a",
					Millis: 40,
				},
				{ID: "CORE-TOOL-SWEEP", Name: "tool-sweep", Verdict: packs.NotApplicable, Severity: packs.Medium, Reason: "no read-only tool"},
				{
					ID: "CORE-STDOUT", Name: "stdout-hygiene", Verdict: packs.Passed, Severity: packs.Medium,
					Notes: []string{"wrote 2 lines to /tmp/sealmark-4242/home/.cache"},
				},
			},
		}},
		NotCovered: []NotCovered{{Pack: "fs", Reason: "not applicable: no path-taking tool"}},
	}
}

func sampleRedactor() *redact.Redactor {
	r := redact.New()
	r.Secret("sm-canary-00112233aabbccdd", redact.MaskCanary)
	r.Secret("sk-live-0123456789", redact.MaskRedacted)
	r.Stable("/tmp/sealmark-4242", "{sandbox_top}")
	r.Stable("/tmp/sealmark-4242/root", "{sandbox}")
	r.Stable("/tmp/sealmark-4242/home", "{sandbox_home}")
	r.Stable("9f8e7d6c5b4a", "{token}")
	return r
}

// customReport is a CUSTOM run that went wrong in every way the text report
// shows: a harness error, a sandbox left behind, findings of several
// severities, hostile text from the server.
func customReport() *Report {
	return &Report{
		Schema:       SchemaVersion,
		Tool:         Tool{Name: "sealmark", Version: "v0.3.0"},
		Class:        Custom,
		ClassReasons: []string{"--no-sandbox", "sandbox.network: open"},
		Server: Server{
			Command: "python3",
			Args:    []string{"-m", "notes server", ""},
			URL:     "http://127.0.0.1:{port}/mcp",
			Env:     []EnvEntry{{Name: "header:Authorization", Value: "<redacted>"}},
		},
		Sandbox: Sandbox{
			EnvMode:      "inherited",
			Path:         "/tmp/sealmark-kept",
			Kept:         true,
			CleanupError: "/tmp/sealmark-kept/root/locked: permission denied",
		},
		Packs: []Pack{
			{
				Name: "core",
				Probes: []Probe{
					{
						ID: "CORE-SHELL", Name: "shell-injection", Verdict: packs.Failed, Severity: packs.Critical,
						Findings: []packs.Finding{
							{Severity: packs.Critical, Message: "sm-canary ran from argument path", Evidence: []packs.Evidence{
								{Observer: "process", Detail: "exec of {sandbox}/../bin/sm-canary"},
								{Observer: "stdout", Detail: "line one\nline two \x1b[31mred\x1b[0m"},
							}},
							{Severity: packs.Medium, Confidence: packs.ConfidenceLow, Message: "error text names the\u202e host path"},
						},
						Reason: "stopped after the first execution",
					},
					{ID: "CORE-TIMEOUT", Name: "slow-call", Verdict: packs.Inconclusive, Severity: packs.Low, Reason: "control call timed out after 5s"},
					{ID: "CORE-LIST", Name: "tools-list", Verdict: packs.Errored, Severity: packs.High, Reason: "harness: observer lost 3 events"},
				},
			},
			{Name: "mine", User: true, Probes: []Probe{
				{ID: "MINE-1", Name: "a-very-long-probe-name-indeed", Verdict: packs.Failed, Severity: packs.Low},
			}},
			{Name: "empty"},
		},
		NotCovered: []NotCovered{
			{Pack: "core", Probe: "secret-echo", Reason: "the harness did not start the server"},
			{Pack: "db", Reason: "not applicable: no database configured"},
		},
		HarnessError: "server exited during initialize: exit status 1",
	}
}
