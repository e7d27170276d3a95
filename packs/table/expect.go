package table

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/environ"
)

// Expect is one expectation of a row: a small value that judges the row's
// call and, when the call breaks it, reports a finding that names the row.
// Build one with the functions below; the zero Expect is not a valid
// expectation and Pack rejects it.
type Expect struct {
	kind  kind
	text  string   // contains, not_contains, matches, not_matches, not_ran
	paths []string // file_changes
	d     time.Duration
}

// kind is what an expectation checks.
type kind int

const (
	kindNone kind = iota
	kindRefused
	kindSucceeds
	kindContains
	kindNotContains
	kindMatches
	kindNotMatches
	kindNoCanary
	kindNoFilesOutside
	kindFileChanges
	kindNoConnection
	kindNoProgram
	kindNotRan
	kindNoOutlived
	kindWithin
)

// source is what an expectation reads besides the response.
type source int

const (
	fromResponse source = iota
	fromFiles
	fromNetwork
	fromProcesses
)

// kinds describes every kind: its key in sealmark.yaml and what it reads.
var kinds = map[kind]struct {
	key    string
	source source
}{
	kindRefused:        {"refused", fromResponse},
	kindSucceeds:       {"succeeds", fromResponse},
	kindContains:       {"contains", fromResponse},
	kindNotContains:    {"not_contains", fromResponse},
	kindMatches:        {"matches", fromResponse},
	kindNotMatches:     {"not_matches", fromResponse},
	kindNoCanary:       {"no_canary", fromResponse},
	kindNoFilesOutside: {"no_file_changes_outside_root", fromFiles},
	kindFileChanges:    {"file_changes", fromFiles},
	kindNoConnection:   {"no_connection", fromNetwork},
	kindNoProgram:      {"no_program_ran", fromProcesses},
	kindNotRan:         {"not_ran", fromProcesses},
	kindNoOutlived:     {"no_process_outlived", fromProcesses},
	kindWithin:         {"within", fromResponse},
}

// Refused expects the call to be refused: a JSON-RPC error or a tool result
// with isError set.
//
//	row refuses-dotdot: read_note answered a result, want a refusal (protocol error or isError)
func Refused() Expect { return Expect{kind: kindRefused} }

// Succeeds expects a tool result without isError.
//
//	row reads-ok: read_note was refused (isError: missing required argument: name), want a result without isError
func Succeeds() Expect { return Expect{kind: kindSucceeds} }

// Contains expects the response's text to contain text (placeholders
// expand). The response's text is the text of its content items (text and
// embedded resources) and its structuredContent as JSON, or a protocol
// error's message and data.
//
//	row reads-ok: the response of read_note does not contain "{ok_token}"
func Contains(text string) Expect { return Expect{kind: kindContains, text: text} }

// NotContains expects the response's text not to contain text
// (placeholders expand).
//
//	row hides-path: the response of read_note contains "{sandbox}"
func NotContains(text string) Expect { return Expect{kind: kindNotContains, text: text} }

// Matches expects the response's text to match the regular expression re
// (RE2 syntax; a placeholder expands to its value, quoted).
//
//	row names-note: the response of read_note does not match /^note \w+:/
func Matches(re string) Expect { return Expect{kind: kindMatches, text: re} }

// NotMatches expects the response's text not to match re.
//
//	row no-trace: the response of read_note matches /goroutine \d+/: "goroutine 1"
func NotMatches(re string) Expect { return Expect{kind: kindNotMatches, text: re} }

// NoCanary expects no canary in the response (result or error, raw JSON or
// decoded text): neither the value of a canary variable planted in the
// server's environment (packs.Pass.Canaries) nor the content of a canary
// file (packs.Pass.Sandbox.Files). Messages name the canary, never its
// value. Canary variables are planted on the run's first start only; on
// later starts the row checks the canary files and notes it.
//
//	row no-leak: the response of debug_info holds the value of SEALMARK_CANARY
func NoCanary() Expect { return Expect{kind: kindNoCanary} }

// NoFileChangesOutsideRoot expects no file change outside root/ in a place
// the server has no business writing: root-evil/, canary/ and the sandbox
// top. home/ and tmp/ are the server's own HOME and TMPDIR. Read by the
// files observer.
//
//	row no-escape: a file changed outside root/: created root-evil/written-by-server.txt (6 bytes)
func NoFileChangesOutsideRoot() Expect { return Expect{kind: kindNoFilesOutside} }

// FileChanges expects exactly these paths to change (created, modified,
// deleted, renamed to or from, linked, mode changed) and nothing else under
// the sandbox. A path is relative to the sandbox top as the files observer
// names it ("root/notes/a.txt", "root-evil/x") or starts with a placeholder
// ("{sandbox}/notes/a.txt", "{root_evil}/x"). A directory created on the way
// to an expected path needs no entry of its own. FileChanges() with no path
// expects no change at all.
//
//	row writes-note: an unexpected file change: created root/other.txt (5 bytes)
//	row writes-note: root/notes/{token}.txt did not change
func FileChanges(paths ...string) Expect {
	return Expect{kind: kindFileChanges, paths: append([]string{}, paths...)}
}

// NoConnection expects nothing to reach the harness's loopback listener or
// its upstream stub during the call.
//
//	row no-fetch: a connection reached the loopback listener: GET /cb/{token}
//	    evidence: loopback: GET /cb/{token} from 127.0.0.1:40112 (token in request)
func NoConnection() Expect { return Expect{kind: kindNoConnection} }

// NoProgramRan expects the server to start no process during the call.
// Processes are seen by sampling the server's process tree, and every sm-*
// program by its own exec log; a short-lived program other than sm-* may
// escape the sampling.
//
//	row no-exec: a program ran: sm-canary {token}
//	    evidence: process: sm-canary ran (pid 4242): sm-canary "{token}"
func NoProgramRan() Expect { return Expect{kind: kindNoProgram} }

// NotRan expects the named program (a base name such as "sm-canary") not to
// run during the call.
//
//	row no-canary-exec: sm-canary ran: sm-canary {token}
func NotRan(program string) Expect { return Expect{kind: kindNotRan, text: program} }

// NoProcessOutlived expects every process the server started during the call
// to be gone shortly after the answer (within a second), the server itself
// excepted.
//
//	row no-daemon: a process outlived the call: sm-sleep 600
//	    evidence: process: pid 4242 (sm-sleep 600) is alive
func NoProcessOutlived() Expect { return Expect{kind: kindNoOutlived} }

// Within expects the answer within d. The row waits for the answer at most
// d (the smallest d when a row has several), instead of the run's call
// timeout.
//
//	row answers-fast: slow_op did not answer within 500ms
func Within(d time.Duration) Expect { return Expect{kind: kindWithin, d: d} }

// String is the expectation as a phrase: "refused", `contains "milk"`,
// "no file change outside root/", "within 5s".
func (e Expect) String() string {
	switch e.kind {
	case kindRefused:
		return "refused"
	case kindSucceeds:
		return "succeeds"
	case kindContains:
		return fmt.Sprintf("contains %q", e.text)
	case kindNotContains:
		return fmt.Sprintf("does not contain %q", e.text)
	case kindMatches:
		return "matches /" + e.text + "/"
	case kindNotMatches:
		return "does not match /" + e.text + "/"
	case kindNoCanary:
		return "no canary in the response"
	case kindNoFilesOutside:
		return "no file change outside root/"
	case kindFileChanges:
		if len(e.paths) == 0 {
			return "no file change"
		}
		return "file changes exactly " + strings.Join(e.paths, ", ")
	case kindNoConnection:
		return "no connection"
	case kindNoProgram:
		return "no program ran"
	case kindNotRan:
		return e.text + " did not run"
	case kindNoOutlived:
		return "no process outlived the call"
	case kindWithin:
		return "within " + e.d.String()
	}
	return "an unknown expectation"
}

// texts returns the texts of e that may hold placeholders.
func (e Expect) texts() []string {
	switch e.kind {
	case kindContains, kindNotContains, kindMatches, kindNotMatches:
		return []string{e.text}
	case kindFileChanges:
		return e.paths
	}
	return nil
}

// check reports what is wrong with e's definition.
func (e Expect) check() error {
	if _, ok := kinds[e.kind]; !ok {
		return fmt.Errorf("an unknown expectation (build one with table.Refused(), table.Contains(...), ...)")
	}
	for _, t := range e.texts() {
		if m := unknownPlaceholder(t); m != "" {
			return fmt.Errorf("%s: %w", e, unknownError(m))
		}
	}
	switch e.kind {
	case kindContains, kindNotContains:
		if e.text == "" {
			return fmt.Errorf("%s: the text is empty", e)
		}
	case kindMatches, kindNotMatches:
		if _, err := regexp.Compile(e.text); err != nil {
			return fmt.Errorf("%s: %v", e, err)
		}
	case kindNotRan:
		if e.text == "" || strings.ContainsAny(e.text, "/\\ ") {
			return fmt.Errorf("not_ran %q: want a program's base name, such as sm-canary", e.text)
		}
	case kindWithin:
		if e.d <= 0 {
			return fmt.Errorf("within %s: want a positive duration", e.d)
		}
	case kindFileChanges:
		for _, p := range e.paths {
			if err := checkPath(p); err != nil {
				return fmt.Errorf("file_changes %s: %v", p, err)
			}
		}
	}
	return nil
}

// checkPath accepts a path relative to the sandbox top or one that starts
// with a placeholder.
func checkPath(p string) error {
	if environ.StartsWithPlaceholder(p) {
		return nil
	}
	switch {
	case p == "":
		return fmt.Errorf("the path is empty")
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || (len(p) > 1 && p[1] == ':'):
		return fmt.Errorf("write a path relative to the sandbox top (root/x) or start it with a placeholder ({sandbox}/x)")
	case path.Clean(p) != p || p == "." || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("write a clean path inside the sandbox, such as root/notes/a.txt")
	}
	return nil
}
