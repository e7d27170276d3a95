package effects

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// judgedCalls runs judgeSpawns over calls and returns the findings as
// "severity: message".
func judgedCalls(calls []toolCall, token string) []string {
	p := &packs.Pass{Probe: &spawns}
	judgeSpawns(p, ownership{}, calls, token)
	_, _, fs, _ := p.Outcome()
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity.String()+": "+f.Message)
	}
	return out
}

// TestSpawnsMachinery: chrome-devtools-mcp 1.11.0 runs a fixed pipeline
// (ps, xargs cat /proc/N/environ, grep DISPLAY) before each browser launch,
// whatever the tool: 101 high findings in the precision corpus, one per
// call and program, all false. A program run with the same command line
// (digits aside) by calls of two tools, carrying none of their arguments,
// is one medium finding naming the tools; the same program run by one
// tool's call alone, or carrying the call's token, stays high.
func TestSpawnsMachinery(t *testing.T) {
	const token = "sm7tok"
	pipeline := func(pid string) []observers.Record {
		return []observers.Record{
			execRec(pid, "1", "/usr/bin/ps", "true", "ps", "-eo", "pid"),
			execRec(pid+"1", "1", "/usr/bin/xargs", "true", "xargs", "-I{}", "cat", "/proc/{}/environ"),
			execRec(pid+"2", pid+"1", "/usr/bin/cat", "true", "cat", "/proc/"+pid+"/environ"),
		}
	}
	shot := packs.Tool{Name: "take_screenshot", Description: "Take a screenshot of the page"}
	nav := packs.Tool{Name: "navigate_page", Description: "Go to a URL"}
	got := judgedCalls([]toolCall{
		{tool: shot, shown: "take_screenshot()", recs: pipeline("40")},
		{tool: nav, shown: `navigate_page(url="x")`, recs: pipeline("50")},
	}, token)
	assert.Equal(t, []string{
		"medium: the server itself runs ps -eo pid during calls of 2 tools (take_screenshot, navigate_page): the same command line each time, carrying none of the calls' arguments",
		"medium: the server itself runs xargs -I{} cat /proc/{}/environ during calls of 2 tools (take_screenshot, navigate_page): the same command line each time, carrying none of the calls' arguments",
		"medium: the server itself runs cat /proc/40/environ during calls of 2 tools (take_screenshot, navigate_page): the same command line each time, carrying none of the calls' arguments",
	}, got)

	// One tool alone: the tool's own (high), once per call.
	got = judgedCalls([]toolCall{{tool: shot, shown: "take_screenshot()", recs: pipeline("40")}}, token)
	assert.Len(t, got, 3)
	for _, g := range got {
		assert.True(t, strings.HasPrefix(g, "high: take_screenshot() ran "), g)
	}

	// The call's input in the command line: each call's own (high).
	withInput := func(pid string) []observers.Record {
		return []observers.Record{execRec(pid, "1", "/usr/bin/curl", "true", "curl", "http://127.0.0.1/"+token)}
	}
	got = judgedCalls([]toolCall{
		{tool: shot, shown: "take_screenshot()", recs: withInput("40")},
		{tool: nav, shown: "navigate_page()", recs: withInput("50")},
	}, token)
	assert.Equal(t, []string{
		"high: take_screenshot() ran curl http://127.0.0.1/" + token,
		"high: navigate_page() ran curl http://127.0.0.1/" + token,
	}, got)
}

// TestSpawnsShellForNamed: github-mcp-server 1.8.7 runs each git command
// through Node's exec, /bin/sh -c "git status": 44 high findings in the
// precision corpus charged its git tools with running sh. A shell whose
// command's first program the tool names is not charged (what it runs is
// judged on its own); a shell running another program is.
func TestSpawnsShellForNamed(t *testing.T) {
	status := packs.Tool{Name: "git-status", Description: "Show the working tree status"}
	got := judgedCalls([]toolCall{{tool: status, shown: "git-status()", recs: []observers.Record{
		execRec("40", "1", "/bin/sh", "true", "/bin/sh", "-c", "GIT_PAGER=cat git status"),
		execRec("41", "40", "/usr/bin/git", "true", "git", "status"),
	}}}, "")
	assert.Empty(t, got)

	got = judgedCalls([]toolCall{{tool: status, shown: "git-status()", recs: []observers.Record{
		execRec("40", "1", "/bin/sh", "true", "/bin/sh", "-c", "git status; curl x"),
		execRec("41", "40", "/usr/bin/git", "true", "git", "status"),
		execRec("42", "40", "/usr/bin/curl", "true", "curl", "x"),
	}}}, "")
	assert.Equal(t, []string{"high: git-status() ran curl x"}, got)

	got = judgedCalls([]toolCall{{tool: status, shown: "git-status()", recs: []observers.Record{
		execRec("40", "1", "/bin/sh", "true", "/bin/sh", "-c", "curl x"),
		execRec("42", "40", "/usr/bin/curl", "true", "curl", "x"),
	}}}, "")
	assert.Equal(t, []string{"high: git-status() ran /bin/sh -c curl x", "high: git-status() ran curl x"}, got)
}

// TestSpawnsDeclaredRuntime: mcp-server-kubernetes 4.1.7 names kubectl in
// kubectl_get and kubectl_apply (and more), and its explain_resource runs kubectl
// explain: four highs in the precision corpus for tools that did not name
// the program the server declares as its runtime. A program another tool
// of the server names is not charged; one no tool names still is.
func TestSpawnsDeclaredRuntime(t *testing.T) {
	explain := packs.Tool{Name: "explain_resource", Description: "Get documentation for a Kubernetes resource"}
	p := &packs.Pass{Probe: &spawns}
	p.Surface = &packs.Surface{Tools: []packs.Tool{explain, {Name: "kubectl_get", Description: "Get Kubernetes resources"},
		{Name: "kubectl_apply", Description: "Apply a manifest"}}}
	judgeSpawns(p, ownership{}, []toolCall{{tool: explain, shown: "explain_resource()", recs: []observers.Record{
		execRec("40", "1", "/usr/bin/kubectl", "true", "kubectl", "explain", "pods"),
		execRec("41", "1", "/usr/bin/curl", "true", "curl", "x"),
	}}}, "")
	_, _, fs, _ := p.Outcome()
	var got []string
	for _, f := range fs {
		got = append(got, f.Severity.String()+": "+f.Message)
	}
	assert.Equal(t, []string{"high: explain_resource() ran curl x"}, got)

	// One tool naming it declares it for itself: another tool running it
	// is charged (the effects fixture's echo_note runs sm-echo, its
	// read_note must not).
	p = &packs.Pass{Probe: &spawns}
	p.Surface = &packs.Surface{Tools: []packs.Tool{explain, {Name: "kubectl_get", Description: "Get Kubernetes resources"}}}
	judgeSpawns(p, ownership{}, []toolCall{{tool: explain, shown: "explain_resource()", recs: []observers.Record{
		execRec("40", "1", "/usr/bin/kubectl", "true", "kubectl", "explain", "pods"),
	}}}, "")
	_, _, fs, _ = p.Outcome()
	if assert.Len(t, fs, 1) {
		assert.Equal(t, "explain_resource() ran kubectl explain pods", fs[0].Message)
	}
}

// TestSpawnsGitCoreScripts: github-mcp-server 1.8.7's git-bisect runs git
// bisect start, whose script in git's exec-path runs uname, sed, gettext,
// envsubst and basename: five highs in the precision corpus's after run.
// What a git-core program runs is git's; a command carrying the call's
// input (git bisect run CMD) is still the tool's.
func TestSpawnsGitCoreScripts(t *testing.T) {
	const token = "sm7tok"
	bisect := packs.Tool{Name: "git-bisect", Description: "Use binary search to find the commit that introduced a bug"}
	recs := []observers.Record{
		execRec("40", "1", "/usr/bin/git", "true", "git", "bisect", "start"),
		execRec("41", "40", "/usr/lib/git-core/git-bisect", "true", "/usr/lib/git-core/git-bisect", "start"),
		execRec("42", "41", "/usr/bin/uname", "true", "uname", "-s"),
		execRec("43", "41", "/usr/bin/basename", "true", "basename", "--", "/usr/lib/git-core/git-bisect"),
		execRec("44", "41", "/usr/bin/curl", "true", "curl", "http://127.0.0.1/"+token),
	}
	// sed runs in a subshell of the script (pid 45, forked, no exec of
	// its own): linked to the script by the ancestors read at its exec.
	sub := execRec("46", "45", "/usr/bin/sed", "true", "sed", "-e", "s/-/ /")
	sub.Data[keyAncestors] = "41 40 1"
	recs = append(recs, sub)
	got := judgedCalls([]toolCall{{tool: bisect, shown: "git-bisect()", recs: recs}}, token)
	assert.Equal(t, []string{"high: git-bisect() ran curl http://127.0.0.1/" + token}, got)
}
