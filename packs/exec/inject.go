package exec

import (
	"strings"

	"github.com/sealmark/sealmark/packs"
)

// form is one way of getting sm-canary run by a tool that should only run
// what it allows. In line, {m} is the form's marker (the probe's token and
// the form's key) and {bin} the sandbox's bin directory; argv, when set,
// is the same call for a tool that takes its arguments as an array.
type form struct {
	key  string
	what string
	line string
	argv []string
}

// family is a set of forms judged by one probe.
type family struct {
	name, id, doc, cwe string
	sev                packs.Severity
	forms              []form
	// shell marks the families of shell syntax: a tool that takes an
	// arguments array gets each form twice, as one command line and as a
	// program with the rest of the line as one argument.
	shell bool
}

// argvForm is a form whose line splits on spaces into the program and its
// arguments (no shell syntax), for a tool that takes an arguments array.
func argvForm(key, what, line string) form {
	return form{key: key, what: what, line: line, argv: strings.Fields(line)}
}

const echo = "sm-echo sealmark"

var families = []family{{
	name: "inject-separator", shell: true, id: "EXEC-INJECT-SEPARATOR", cwe: "CWE-78", sev: packs.Critical,
	doc: "a command's arguments must not be interpreted by a shell: ;, &&, ||, |, & and a newline after an allowed program must not run another",
	forms: []form{
		{key: "semicolon", what: "; after an allowed program", line: echo + "; sm-canary {m}"},
		{key: "semicolon-nospace", what: "; glued to an allowed program's name", line: "sm-echo;sm-canary {m}"},
		{key: "and", what: "&&", line: echo + " && sm-canary {m}"},
		{key: "or", what: "|| after a failing pipeline", line: echo + " | sm-sealmark-missing || sm-canary {m}"},
		{key: "pipe", what: "a pipe", line: echo + " | sm-canary {m}"},
		{key: "amp", what: "a single &", line: echo + " & sm-canary {m}"},
		{key: "newline", what: "a newline", line: echo + "\nsm-canary {m}"},
	},
}, {
	name: "inject-substitution", shell: true, id: "EXEC-INJECT-SUBSTITUTION", cwe: "CWE-78", sev: packs.Critical,
	doc: "a command's arguments must not be interpreted by a shell: $(...), backticks and <(...) in an allowed program's argument must not run another",
	forms: []form{
		{key: "dollar-paren", what: "$(...)", line: "sm-echo $(sm-canary {m})"},
		{key: "backtick", what: "backticks", line: "sm-echo `sm-canary {m}`"},
		{key: "quoted-dollar-paren", what: "$(...) inside double quotes", line: `sm-echo "$(sm-canary {m})"`},
		{key: "process-subst", what: "<(...)", line: "sm-echo <(sm-canary {m})"},
	},
}, {
	name: "inject-expansion", shell: true, id: "EXEC-INJECT-EXPANSION", cwe: "CWE-78", sev: packs.Critical,
	doc: "a command's arguments must not be interpreted by a shell: ${IFS}, glob and brace expansion after an allowed program must not run another",
	forms: []form{
		{key: "ifs", what: "${IFS} in place of spaces", line: "sm-echo;sm-canary${IFS}{m}"},
		{key: "glob", what: "a glob naming the program's path", line: echo + "; {bin}/sm-canar? {m}"},
		{key: "bracket-glob", what: "a [...] glob naming the program's path", line: echo + "; {bin}/sm-canar[y] {m}"},
		{key: "brace", what: "brace expansion", line: echo + ";{sm-canary,{m}}"},
	},
}, {
	name: "inject-option", id: "EXEC-INJECT-OPTION", cwe: "CWE-88", sev: packs.Critical,
	doc: "arguments must not turn into options that make an allowed program run another (find -exec, tar --checkpoint-action, awk system(), sed's e)",
	forms: []form{
		argvForm("find-exec", "find's -exec", "find . -maxdepth 0 -exec sm-canary {m} ;"),
		{key: "tar-checkpoint", what: "tar's --checkpoint-action=exec=", line: "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=sm-canary${IFS}{m} ok.txt",
			argv: []string{"tar", "-cf", "/dev/null", "--checkpoint=1", "--checkpoint-action=exec=sm-canary {m}", "ok.txt"}},
		{key: "awk-system", what: "awk's system()", line: `awk BEGIN{system("sm-canary\040{m}")}`, argv: []string{"awk", `BEGIN{system("sm-canary {m}")}`}},
		{key: "sed-e", what: "GNU sed's e command", line: "sed -n '1e sm-canary {m}' ok.txt", argv: []string{"sed", "-n", "1e sm-canary {m}", "ok.txt"}},
		{key: "echo-exec-option", what: "an --exec= option", line: "sm-echo --exec=sm-canary {m}", argv: []string{"sm-echo", "--exec=sm-canary {m}"}},
	},
}, {
	name: "allowlist-bypass", id: "EXEC-ALLOWLIST-BYPASS", cwe: "CWE-184", sev: packs.Critical,
	doc: "a tool that refuses sm-canary by name must refuse it by path, through env, sh -c, timeout, nice, command or exec, quoted, escaped or behind an assignment",
	forms: []form{
		argvForm("absolute", "its absolute path", "{bin}/sm-canary {m}"),
		argvForm("relative", "a relative path", "../bin/sm-canary {m}"),
		argvForm("env", "env", "env sm-canary {m}"),
		{key: "sh-c", what: "sh -c", line: "sh -c 'sm-canary {m}'", argv: []string{"sh", "-c", "sm-canary {m}"}},
		{key: "bash-c", what: "bash -c", line: "bash -c 'sm-canary {m}'", argv: []string{"bash", "-c", "sm-canary {m}"}},
		{key: "timeout", what: "timeout", line: "timeout 5 sm-canary {m}", argv: []string{"timeout", "5", "sm-canary", "{m}"}},
		argvForm("nice", "nice", "nice sm-canary {m}"),
		{key: "command", what: "the command builtin", line: "command sm-canary {m}"},
		{key: "exec", what: "the exec builtin", line: "exec sm-canary {m}"},
		{key: "quoted", what: "a quoted name", line: "'sm-canary' {m}"},
		{key: "split-quotes", what: "a name split by quotes", line: `sm-"can"ary {m}`},
		{key: "backslash", what: "a backslash in the name", line: `sm-can\ary {m}`},
		{key: "assignment", what: "a leading variable assignment", line: "SEALMARK_X=1 sm-canary {m}"},
	},
}}

// injectProbe is the probe of one family: every form through every tool
// that runs sm-echo but refuses sm-canary by name.
func injectProbe(fam family, hints []Hint) packs.Probe {
	return packs.Probe{
		ID: fam.id, Name: fam.name, Severity: fam.sev, CWE: fam.cwe, Doc: fam.doc, Active: true,
		Run: func(p *packs.Pass) {
			r := start(p, hints)
			if r == nil {
				return
			}
			tools := r.restricted()
			if r.decided {
				return
			}
			// Every form first, then one look at the observations: the
			// markers tell the forms apart, and collecting is the costly
			// part of a call.
			type sent struct {
				t   Tool
				f   form
				pl  payload
				res *packs.Response
			}
			var all []sent
			for _, t := range tools {
				for _, f := range fam.forms {
					variants := []form{f}
					if fam.shell && t.Args != "" {
						whole := f
						whole.key += "-line"
						variants = append(variants, whole)
					}
					for i, v := range variants {
						pl := r.expand(v)
						pl.whole = i == 1
						res, _ := r.call(t, pl, describe(t, pl))
						if r.dead {
							break
						}
						all = append(all, sent{t, v, pl, res})
					}
				}
			}
			if len(all) > 0 {
				r.settle()
			}
			for _, s := range all {
				if ev, ok := r.canaryRan(s.res, s.f.key); ok && !r.hit[s.f.key] {
					r.hit[s.f.key] = true
					fd := p.Reportf("%s ran sm-canary through %s, which %s refuses by name", describe(s.t, s.pl), s.f.what, s.t.Name)
					fd.Evidence = append(fd.Evidence, ev...)
				}
			}
			noted := 0
			r.noteExecuted(&noted)
			r.finish()
		},
	}
}

// expand fills a form's templates.
func (r *run) expand(f form) payload {
	rep := strings.NewReplacer("{m}", r.marker(f.key), "{bin}", r.p.Sandbox.Bin)
	pl := payload{line: rep.Replace(f.line)}
	for _, a := range f.argv {
		pl.argv = append(pl.argv, rep.Replace(a))
	}
	return pl
}
