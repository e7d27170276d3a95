package exec

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// run is one exec probe in progress: the tools it uses, what failed, and
// how far it has read the observations.
type run struct {
	p          *packs.Pass
	hints      []Hint
	failed     []string // controls that failed, with why
	unanswered []string // calls that got no answer
	dead       bool     // the server exited: nothing more can be judged
	seen       int      // observation records already read
	execs      []observers.Record
	calls      int
	hit        map[string]bool          // forms already reported
	decided    bool                     // the probe was found not applicable
	noted      map[string]bool          // command lines already in the notes
	paces      map[string]time.Duration // each tool's pace, as measured in this probe (pace.go)
}

// start makes a run, or marks the probe not applicable and returns nil.
func start(p *packs.Pass, hints []Hint) *run {
	if p.Sandbox == nil {
		p.NotApplicable("the run has no sandbox, so there is no sm-canary to run and nothing to observe")
		return nil
	}
	if len(Tools(p.Surface, hints)) == 0 {
		p.NotApplicable("no tool takes a command")
		return nil
	}
	return &run{p: p, hints: hints, hit: map[string]bool{}, noted: map[string]bool{}, paces: map[string]time.Duration{}}
}

// payload is what one call sends: a command line, and for a tool with an
// arguments array, the same split into program and arguments.
type payload struct {
	line string
	argv []string // nil: the first word, then the rest of the line as one argument
	// whole sends the line as the command even to a tool that takes an
	// arguments array.
	whole bool
	cwd   string // the working directory to ask for, or ""
	// timeout asks for this timeout, when the tool takes one; zero means
	// the pack's default for ordinary calls (timer).
	timeout time.Duration
	// life is how long the child the line starts lives (sm-sleep's
	// seconds); zero for a line that ends at once or on its own.
	life time.Duration
}

// split is the payload as a program and its arguments: argv when given,
// else the line's first word and the rest of the line as one argument.
func (pl payload) split() []string {
	if pl.argv != nil {
		return pl.argv
	}
	first, rest, ok := strings.Cut(pl.line, " ")
	if !ok {
		return []string{first}
	}
	return []string{first, rest}
}

// defaultTimeout is the timeout an ordinary call asks for at rest, bounded
// by the call timeout so the server answers before the harness gives up;
// timer raises it for a slow tool.
func (r *run) defaultTimeout() time.Duration {
	return min(5*time.Second, r.p.CallTimeout/2)
}

// fill builds the arguments of one call.
func (r *run) fill(t Tool, pl payload) map[string]any {
	fill := map[string]any{}
	if t.Args != "" && !pl.whole {
		argv := pl.split()
		fill[t.Command] = argv[0]
		args := make([]any, 0, len(argv)-1)
		for _, a := range argv[1:] {
			args = append(args, a)
		}
		fill[t.Args] = args
	} else {
		fill[t.Command] = pl.line
	}
	if t.Cwd != "" && pl.cwd != "" {
		fill[t.Cwd] = pl.cwd
	}
	if t.Timeout != "" {
		d := r.timer(t, pl)
		if t.TimeoutMillis {
			fill[t.Timeout] = d.Milliseconds()
		} else {
			fill[t.Timeout] = max(1, int64(d/time.Second))
		}
	}
	return fill
}

// call runs one payload through a tool. It returns nil when there is no
// answer to judge (and records why); took is how long the call took.
// The call is bounded by bound(t, pl): the call timeout, raised for a
// tool whose pace this probe measured.
func (r *run) call(t Tool, pl payload, what string) (res *packs.Response, took time.Duration) {
	if r.dead {
		return nil, 0
	}
	args, _ := packs.Arguments(t.Schema, r.p.Token, r.fill(t, pl)) // a schema defect is core's finding
	r.calls++
	begin := time.Now()
	res, err := r.p.CallWithin(r.bound(t, pl), t.Name, args)
	took = time.Since(begin)
	switch {
	case err == nil:
		return res, took
	case errors.Is(err, packs.ErrClosed) || !r.p.Server.Alive():
		r.dead = true
		r.killed(t, what)
	case errors.Is(err, packs.ErrNoAnswer):
		r.unanswered = append(r.unanswered, what)
	default:
		r.unanswered = append(r.unanswered, fmt.Sprintf("%s (%v)", what, err))
	}
	return nil, took
}

// crashedKey marks, across the probes of one pack, a tool whose call
// killed the server: reported once, left out of every later probe (the
// pack's server is started afresh after it, packs.Pack.Relaunch).
func crashedKey(t Tool) string { return "exec/crashed/" + t.Name }

// killed records that the server exited during a call of t: a finding,
// high, naming the call and the exit status or signal, unless the probe
// itself was being cut short (then the exit says nothing of the tool).
func (r *run) killed(t Tool, what string) {
	status := r.p.Server.ExitStatus()
	if r.p.Ctx.Err() != nil || status == "" {
		r.p.Notef("the server exited during %s (%s)", what, status)
		return
	}
	r.p.Shared[crashedKey(t)] = what
	r.p.Reportf("%s killed the server (%s)", what, status).
		Evidencef("process", "the server exited (%s) while the call was pending; it took no request after it", status).Severity = packs.High
}

// describe names a call for a message: tool(command="line").
func describe(t Tool, pl payload) string {
	var s string
	if t.Args != "" && !pl.whole {
		argv := pl.split()
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // keep < and & as sent
		_ = enc.Encode(argv[1:])
		s = fmt.Sprintf("%s(%s=%q, %s=%s", t.Name, t.Command, argv[0], t.Args, strings.TrimSpace(b.String()))
	} else {
		s = fmt.Sprintf("%s(%s=%q", t.Name, t.Command, pl.line)
	}
	if t.Cwd != "" && pl.cwd != "" {
		s += fmt.Sprintf(", %s=%q", t.Cwd, pl.cwd)
	}
	return s + ")"
}

// finish sets the verdict the findings do not: inconclusive when a control
// failed, a call got no answer or the server exited.
func (r *run) finish() {
	var failed []string
	if len(r.failed) > 0 {
		failed = []string{"control failed: " + strings.Join(r.failed, "; ")}
	}
	r.p.Settle(r.dead, failed, r.unanswered)
	r.p.Notef("%d calls", r.calls)
}

// observed reads the exec records (the sm-* exec log and the egress
// observer's every exec) seen so far in the probe.
func (r *run) observed() []observers.Record {
	if r.p.Observed == nil {
		return nil
	}
	recs := r.p.Observed.Probe()
	for _, rec := range recs[min(r.seen, len(recs)):] {
		if rec.Kind == observers.KindProcess && rec.Data[observers.KeyOp] == "exec" {
			r.execs = append(r.execs, rec)
		}
	}
	r.seen = len(recs)
	return r.execs
}

// marker is the argument that ties an sm-* run to one form of this probe.
func (r *run) marker(key string) string { return r.p.Token + "-" + key }

// carries reports whether a record's argv holds the marker, as it ran or
// with the probe's token replaced by its stable name.
func (r *run) carries(rec observers.Record, key string) bool {
	for _, a := range packs.Argv(rec) {
		if hasWord(a, r.marker(key)) || hasWord(a, "{token}-"+key) {
			return true
		}
	}
	return false
}

// hasWord reports whether s holds word not followed by a letter, a digit
// or a dash, so the marker of form "glob" is not found in "glob-line".
func hasWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		end := i + j + len(word)
		if end == len(s) || !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz0123456789-", rune(s[end])) {
			return true
		}
		i = end
	}
}

// ran returns the sm-* exec records of prog carrying the form's marker.
func (r *run) ran(prog, key string) []observers.Record {
	var out []observers.Record
	for _, rec := range r.observed() {
		if rec.Observer == "process" && rec.Data[observers.KeyProg] == prog && r.carries(rec, key) {
			out = append(out, rec)
		}
	}
	return out
}

// executed is the exact command line of each program the server executed
// whose argv carries the marker, other than prog itself (the shell that
// interpreted it, say; every one when prog is ""), from the egress
// observer's exec records.
func (r *run) executed(prog, key string) []string {
	var out []string
	for _, rec := range r.observed() {
		if rec.Observer != "egress" || !r.carries(rec, key) {
			continue
		}
		argv := packs.Argv(rec)
		if prog != "" && len(argv) > 0 && strings.HasSuffix(argv[0], prog) {
			continue
		}
		out = append(out, shellLine(argv))
	}
	return out
}

// canaryRan reports whether sm-canary ran with the form's marker, by its
// exec record, by its marker line in the response (where the process
// observer is absent), or by the egress observer's record of the server
// executing sm-canary itself with the marker as an argument (the kernel
// was asked to run that program with those arguments, and the observer
// found it there to run: on a loaded machine the call's timeout may kill
// it before it logs or prints), and attaches
// the evidence to a finding when it did.
func (r *run) canaryRan(res *packs.Response, key string) (evidence []packs.Evidence, ok bool) {
	for _, rec := range r.ran("sm-canary", key) {
		evidence = append(evidence, packs.Evidence{Observer: "process", Detail: "sm-canary ran: " + shellLine(packs.Argv(rec)) + cwdOf(rec)})
	}
	if res != nil && hasWord(string(res.Body()), smbin.CanaryMarker+" "+r.marker(key)) {
		evidence = append(evidence, packs.Evidence{Observer: "response", Detail: "the response carries sm-canary's output line with the probe's marker"})
	}
	if len(evidence) == 0 {
		for _, rec := range r.observed() {
			argv := packs.Argv(rec)
			if rec.Observer == "egress" && len(argv) > 1 && filepath.Base(argv[0]) == "sm-canary" && r.carries(rec, key) && execRan(rec) {
				evidence = append(evidence, packs.Evidence{Observer: "egress", Detail: "the server executed sm-canary: " + shellLine(argv)})
				return evidence, true
			}
		}
	}
	if len(evidence) == 0 {
		return nil, false
	}
	for _, line := range r.executed("sm-canary", key) {
		evidence = append(evidence, packs.Evidence{Observer: "egress", Detail: "the server executed: " + line})
	}
	return evidence, true
}

// execRan reports whether an egress exec record ran its program: the
// observer found nothing there to run when found is "false" (no such
// file, a miss of a PATH search) or "not-executable".
func execRan(rec observers.Record) bool {
	f := rec.Data[observers.KeyFound]
	return f != "false" && f != "not-executable"
}

func cwdOf(rec observers.Record) string {
	if c := rec.Data[observers.KeyCwd]; c != "" {
		return " (in " + c + ")"
	}
	return ""
}

// shellLine renders argv as a shell would read it back.
func shellLine(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = quote(a)
	}
	return strings.Join(parts, " ")
}

func quote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%{}", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// settle waits for what the calls started in the background to show up
// in the observations: until the server's tree is idle, nothing in it
// starting, running or due within settleCeiling (Pass.WaitIdle), at most
// settleCeiling.
func (r *run) settle() { r.p.WaitIdle(settleCeiling) }

// settleCeiling bounds settle: the fixed wait it replaces.
const settleCeiling = 300 * time.Millisecond
