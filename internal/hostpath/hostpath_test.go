package hostpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOwnProgramAndWantsDir(t *testing.T) {
	cwd := t.TempDir()
	for _, d := range []string{"dist", "pkg", "notes"} {
		if err := os.MkdirAll(filepath.Join(cwd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"dist/index.js": "", "pkg/package.json": "{}", "data.json": "{}"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"dist/index.js":            "{cwd}/dist/index.js",
		"./dist/index.js":          "{cwd}/dist/index.js",
		"--entry=dist/index.js":    "--entry={cwd}/dist/index.js",
		"pkg":                      "{cwd}/pkg",
		"notes":                    "", // data, not the server's program
		"data.json":                "",
		"missing.js":               "", // not here
		"../dist/index.js":         "", // above the working directory
		"{cwd}/dist/index.js":      "", // already placed
		"/usr/lib/node/x/index.js": "",
		"--stdio":                  "",
	} {
		got, _, ok := OwnProgram(in, cwd)
		if (want == "") == ok || got != want {
			t.Errorf("OwnProgram(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for p, want := range map[string]bool{
		"notes":                     true,  // a directory here
		filepath.Join(cwd, "notes"): true,  // by its absolute path
		"data.json":                 false, // a file
		"/nowhere/sealmark-notes":   true,  // missing, no extension: a directory
		"/nowhere/memory.json":      false, // missing, an extension: a file
	} {
		if got := WantsDir(p, cwd); got != want {
			t.Errorf("WantsDir(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestFindRewritesOnlyPaths(t *testing.T) {
	cwd := t.TempDir()
	for _, name := range []string{"start", "config.json", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for in, want := range map[string]string{
		"start":                               "", // a bare word, even with a file "start" here
		"config.json":                         "", // a bare word too
		"./start":                             "./start",
		"../" + filepath.Base(cwd) + "/start": "../" + filepath.Base(cwd) + "/start",
		"./missing.json":                      "", // relative and not here: it means the same in the sandbox root
		"/etc/app.json":                       "/etc/app.json",
		"~/notes":                             "~/notes",
		"--config=config.json":                "config.json", // a path flag's value
		"--name=config.json":                  "",            // not a path flag
		"--config=./config.json":              "./config.json",
		"--out=/tmp/x.json":                   "/tmp/x.json",
	} {
		_, p, _, ok := Find(in, cwd)
		if (want == "") == ok || p != want {
			t.Errorf("Find(%q) = %q, %v; want %q", in, p, ok, want)
		}
	}
	for in, want := range map[string]bool{"config.json": true, "start": true, "missing.json": false, "-v": false, "{sandbox}/x": false} {
		if _, _, ok := FindNamed(in, cwd); ok != want {
			t.Errorf("FindNamed(%q) = %v, want %v", in, ok, want)
		}
	}
	if !PathFlag("--config") || !PathFlag("--ROOT") || PathFlag("--verbose") {
		t.Error("PathFlag: want --config and --root, not --verbose")
	}
	if !PathEnv("CCLSP_CONFIG_PATH") || !PathEnv("openapi_spec_file") || PathEnv("API_KEY") {
		t.Error("PathEnv: want *_PATH and *_FILE, not API_KEY")
	}
}

func TestOfferADirectoryIsTheSandboxRoot(t *testing.T) {
	cwd := t.TempDir()
	if err := os.Mkdir(filepath.Join(cwd, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	taken := map[string]bool{}
	if got := Offer(filepath.Join(cwd, "notes"), cwd, taken); got != "{sandbox}" {
		t.Errorf("Offer(dir) = %q, want {sandbox}", got)
	}
	if got := Offer("./notes", cwd, taken); got != "{sandbox}" {
		t.Errorf("Offer(./notes) = %q, want {sandbox}", got)
	}
	if got := Offer("/nowhere/spec.yaml", cwd, taken); got != "{sandbox}/spec.yaml" {
		t.Errorf("Offer(file) = %q, want {sandbox}/spec.yaml", got)
	}
}

func TestCredentials(t *testing.T) {
	for p, want := range map[string]bool{
		"/home/me/.ssh/id_rsa": true, "server.pem": true, "tls.key": true, ".env": true, ".env.local": true,
		"credentials.json": true, "gh_token.txt": true, "service-account-prod.json": true, "oauth-keys.json": true,
		"client_secret_123.json": true, "openapi.yaml": false, "config.json": false, "notes.txt": false, "keys/": false,
	} {
		if got := Credentials(p); got != want {
			t.Errorf("Credentials(%q) = %v, want %v", p, got, want)
		}
	}
}
