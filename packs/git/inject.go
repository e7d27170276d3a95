package git

import (
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// injection is one value that turns an argument into an option or a
// command; output names the file an --output= form writes; words, when
// set, limit it to tools whose name holds one of them (the commands that
// take the option).
type injection struct {
	value  string
	output bool
	words  []string
}

// refInjections go to every ref, branch, name, message and path argument;
// urlInjections to URL arguments too. {new} is a fresh name, {token} the
// probe's.
var (
	refInjections = []injection{
		{"--output={sandbox}-evil/{new}", true, nil},
		{"--open-files-in-pager=sm-canary {token}", false, []string{"grep", "search", "find"}},
		{"--exec=sm-canary {token}", false, []string{"rebase"}},
		{"$(sm-canary {token})", false, nil},
		{"x;sm-canary {token};", false, nil},
	}
	urlInjections = []injection{
		{"--upload-pack=sm-canary {token}", false, nil},
		{"ext::sm-canary {token}", false, nil},
		{"-c core.sshCommand=sm-canary {token}", false, nil},
		{"$(sm-canary {token})", false, nil},
	}
)

var argumentInjection = packs.Probe{
	ID:       "GIT-ARGUMENT-INJECTION",
	Name:     "argument-injection",
	Severity: packs.Critical,
	CWE:      "CWE-88",
	Active:   true,
	Doc:      "no string a git tool takes (ref, branch, path, name, message, URL) may reach git as an option or a shell as a command: --output=, --upload-pack=, --exec=, ext::, $(...) (" + injectClass + ")",
	Run: func(p *packs.Pass) {
		r := start(p)
		if r == nil {
			return
		}
		var tools []Tool
		for _, t := range r.tools(Read, Write, Init, Clone, Worktree, Export, Remote) {
			if len(t.Refs) > 0 || t.URL != "" || t.Dest != "" || t.Paths != "" {
				tools = append(tools, t)
			}
		}
		if len(tools) == 0 {
			p.NotApplicable("no git tool takes a ref, branch, path, name, message or URL")
			return
		}
		for _, t := range tools {
			if r.dead || !r.answerControl(t) {
				continue
			}
			for _, arg := range t.Refs {
				r.inject(t, arg, refInjections, false)
			}
			if t.Dest != "" {
				r.inject(t, t.Dest, refInjections, false)
			}
			if t.URL != "" {
				r.inject(t, t.URL, urlInjections, false)
			}
			if t.Paths != "" {
				r.inject(t, t.Paths, refInjections, true)
			}
		}
		r.finish()
	},
}

// answerControl calls the tool with benign values in root/repo. A tool
// that does not answer, or answers with a protocol error, is left out; one
// that answers with a tool error (nothing to commit, no such remote) is
// still probed, since what the probe judges is what ran, but only a tool
// that succeeded counts towards the probe being conclusive.
func (r *run) answerControl(t Tool) bool {
	args := r.args(t, nil)
	desc := r.describe(t, args, t.Repo)
	res := r.call(t, args, "control "+desc)
	switch {
	case res == nil:
		return false
	case res.Error != nil:
		r.failed = append(r.failed, fmt.Sprintf("%s: %s answered %s", t.Name, desc, res.Brief()))
		return false
	case !res.Refused():
		r.passed++
	}
	r.records()
	return true
}

// inject tries every injection on one argument.
func (r *run) inject(t Tool, arg string, forms []injection, list bool) {
	for _, in := range forms {
		if r.dead {
			return
		}
		if in.words != nil && !hasAny(packs.Words(t.Name), in.words...) {
			continue
		}
		name := r.name("out")
		value := r.expand(in.value, name)
		var v any = value
		if list {
			v = []any{value}
		}
		args := r.args(t, map[string]any{arg: v})
		desc := r.describe(t, args, arg)
		watch := ""
		if in.output {
			watch = r.expand("{sandbox}-evil/{new}", name)
		}
		res := r.call(t, args, desc)
		if res != nil {
			r.judgeRead(t, res, args, desc)
		}
		recs := r.records()
		r.judgeRan(desc, recs)
		r.judgeCreated(desc, watch, false, recs)
	}
}

// judgeRan reports sm-canary runs carrying the probe's token.
func (r *run) judgeRan(desc string, recs []observers.Record) {
	runs, argv := canaryRuns(recs, r.p.Token)
	if len(runs) == 0 {
		return
	}
	f := r.p.Reportf("%s ran sm-canary: %s", desc, strings.ReplaceAll(argv[0], r.p.Token, "{token}"))
	for _, rec := range runs {
		f.Evidencef(rec.Observer, "%s", rec.Summary)
	}
}
