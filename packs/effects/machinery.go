package effects

import (
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// toolCall is one call's programs, as spawns judges them.
type toolCall struct {
	tool  packs.Tool
	shown string             // tool(arg="value", ...)
	recs  []observers.Record // one record per program run (programs)
}

// judgeSpawns reports, for each call of a tool whose job is not to run
// programs, each program it tried that the tool does not name, except:
//
//   - a shell that runs a program the tool names (sh -c "git status" from
//     a git tool: Node's exec and Python's shell=True start one; what the
//     shell runs is judged as its own exec, and argument injection through
//     it is the exec and git packs' to judge);
//   - a program two or more tools of the server name: the server declares
//     it as its runtime (mcp-server-kubernetes 4.1.7 has kubectl_get and
//     kubectl_apply, and its explain_resource runs kubectl explain too);
//   - the server's own machinery: a program run with the same command
//     line (digits aside: pids, counters) during calls of two or more
//     tools, carrying none of the calls' arguments (the token), is the
//     server's code at work whatever the tool (a browser server probing
//     for a display before each launch), not the tool's choice. It is one
//     finding, medium, naming the tools, instead of a high per call.
func judgeSpawns(p *packs.Pass, own ownership, calls []toolCall, token string) {
	type charged struct {
		c *toolCall
		a *attempt
	}
	own.token = token
	var found []charged
	tools := map[string][]string{} // machinery key -> the tools whose calls ran it
	var keys []string
	for i := range calls {
		c := &calls[i]
		if runsPrograms(c.tool) {
			continue
		}
		for _, a := range attempted(p, own, c.recs) {
			if names(c.tool, a.name) || names(c.tool, strings.TrimPrefix(a.name, "sm-")) || shellForNamed(c.tool, a) || declared(p.Surface, a.name) {
				continue
			}
			found = append(found, charged{c, a})
			k := fixedLine(a, token)
			if k == "" {
				continue
			}
			if tools[k] == nil {
				keys = append(keys, k)
			}
			if !slices.Contains(tools[k], c.tool.Name) {
				tools[k] = append(tools[k], c.tool.Name)
			}
		}
	}
	var machinery []*attempt // the first run of each machinery line
	first := map[string]bool{}
	for _, f := range found {
		k := fixedLine(f.a, token)
		if k != "" && len(tools[k]) >= 2 {
			if !first[k] {
				first[k] = true
				machinery = append(machinery, f.a)
			}
			continue
		}
		f.a.report(p, f.c.shown)
	}
	for _, a := range machinery {
		k := fixedLine(a, token)
		f := p.Reportf("the server itself runs %s during calls of %d tools (%s): the same command line each time, carrying none of the calls' arguments", commandLine(p, a.ran[0]), len(tools[k]), strings.Join(tools[k], ", "))
		f.Severity = packs.Medium
		f.Evidencef(a.ran[0].Observer, "pid %s ran %s with argv %s", a.ran[0].Data[observers.KeyPid], a.name, argvText(p, a.ran[0]))
		f.Evidencef("effects", "medium, not high: a program run alike whatever the tool is the server's own code at work, not a tool reaching for a program; what it does is judged by its effects (files written, connections tried)")
	}
}

// declared reports whether two or more tools of the server name the
// program: the server is built around it (kubectl_get, kubectl_apply). One
// tool that names it (echo_note runs sm-echo) declares it for itself only:
// another tool running it is still that tool's doing.
func declared(s *packs.Surface, program string) bool {
	if s == nil {
		return false
	}
	n := 0
	for _, t := range s.Tools {
		if names(t, program) {
			n++
		}
	}
	return n >= 2
}

// digits are what fixedLine leaves out of a command line.
var digits = regexp.MustCompile(`[0-9]+`)

// fixedLine is the key of an attempt that ran with a command line that
// carries no argument of the call (no token), digits blanked; "" for one
// that did not run or carries the call's input.
func fixedLine(a *attempt, token string) string {
	if len(a.ran) == 0 {
		return ""
	}
	argv := packs.Argv(a.ran[0])
	line := strings.Join(argv, "\x00")
	if token != "" && strings.Contains(line, token) {
		return ""
	}
	return a.name + "\x00" + digits.ReplaceAllString(line, "#")
}

// shells are the programs that run a command line given with -c.
var shells = []string{"sh", "bash", "dash", "zsh", "ash"}

// shellForNamed reports whether every run of an attempt is a shell given
// -c and a command line whose first program (after VAR=value assignments)
// the tool names: the runtime's way of running that program.
func shellForNamed(t packs.Tool, a *attempt) bool {
	if !slices.Contains(shells, a.name) || len(a.recs) == 0 {
		return false
	}
	for _, r := range a.recs {
		argv := packs.Argv(r)
		if len(argv) < 3 || argv[1] != "-c" {
			return false
		}
		prog := ""
		for _, w := range strings.Fields(argv[2]) {
			if strings.Contains(w, "=") && !strings.HasPrefix(w, "=") {
				continue
			}
			prog = path.Base(filepath.ToSlash(strings.Trim(w, `"'`)))
			break
		}
		if prog == "" || !names(t, prog) {
			return false
		}
	}
	return true
}
