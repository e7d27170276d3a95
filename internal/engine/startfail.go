package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// exitGrace is how long a start whose handshake failed waits for the
// server to be seen exited: a server that crashed closes its stdout a
// moment before it is reaped.
const exitGrace = 300 * time.Millisecond

// maxRefusedQuoted bounds how many refused operations a start failure
// quotes (the most recent ones).
const maxRefusedQuoted = 5

// startAdvice is what to do about a server that needs something the
// sandbox refuses.
const startAdvice = "If the server needs these: declare a database or socket it must reach (sandbox.services, --service), " +
	"stage the files it reads at start into the sandbox (server.files) and point its paths at {sandbox}, " +
	"or, as the last resort, turn a layer off (--layers-off; the run becomes CUSTOM)"

// exitedEarly describes a server that exited before it completed
// initialize: how it ended, after how long, and what containment refused
// it meanwhile, with what to do; "" when it is still running.
func (pr *packRun) exitedEarly() string {
	if pr.proc == nil || !pr.proc.WaitExit(exitGrace) {
		return ""
	}
	status := pr.proc.ExitStatus()
	after := shortDuration(time.Since(pr.started))
	var msg string
	switch status {
	case "exit status 125":
		msg = fmt.Sprintf("the containment shim could not start the server (%s, after %s): the server log says which layer failed", status, after)
	case "exit status 126", "exit status 127":
		msg = fmt.Sprintf("the containment shim could not execute the server's program (%s, after %s)", status, after)
	default:
		msg = fmt.Sprintf("the server %s after %s before answering initialize", exitWords(status), after)
	}
	refused := pr.refusedAtStart()
	if cause := refusedCause(refused); cause != "" && logCauseOf(string(pr.proc.Log().Bytes()), pr.e.cfg.Command) == "" {
		msg = cause + "\n" + msg // the server's log names no cause: containment's refusal is it
	}
	if len(refused) > 0 {
		msg += "; containment refused, while it started: " + strings.Join(refused, "; ") + ". " + startAdvice
	} else if status == "exit status 125" {
		msg += ". As the last resort, turn that layer off (--layers-off; the run becomes CUSTOM)"
	}
	return msg
}

// exitWords says how a process ended: "exited with status 2", "was
// ended by signal killed", or the status as the launcher wrote it.
func exitWords(status string) string {
	if n, ok := strings.CutPrefix(status, "exit status "); ok {
		return "exited with status " + n
	}
	if sig, ok := strings.CutPrefix(status, "signal: "); ok {
		return "was ended by signal " + sig
	}
	return "exited (" + status + ")"
}

// shortDuration is d as a person says it in a start failure: "0.13s",
// "2.5s", "31s".
func shortDuration(d time.Duration) string {
	switch s := d.Seconds(); {
	case s < 1:
		return strconv.FormatFloat(s, 'f', 2, 64) + "s"
	case s < 10:
		return strconv.FormatFloat(s, 'f', 1, 64) + "s"
	default:
		return d.Round(time.Second).String()
	}
}

// initFailure says why a server that had not exited did not answer
// initialize, once: no answer before timeouts.start (and which setting to
// raise), an answer past the message limit, nothing listening at the URL,
// or the error itself with no prefix repeated.
//
// unended is the stdout line the server was in the middle of when the
// start gave up (launch.Process.Unended; 0 over HTTP): a server stuck
// behind a line with no newline gets that named as the cause, since no
// longer timeout would help.
func (e *Engine) initFailure(ctx, sctx context.Context, err error, unended int64) error {
	var op *net.OpError
	var large *packs.TooLargeError
	switch {
	case errors.As(err, &large):
		return large // failed at once, in its own words ("the answer to initialize was over ...")
	case ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) && unended > 0:
		return fmt.Errorf("no answer to initialize within %s: %s", e.cfg.StartTimeout, unendedWords(unended))
	case ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("no answer to initialize within %s: raise timeouts.start (--timeout) if the server needs longer to start", e.cfg.StartTimeout)
	case errors.Is(err, syscall.ECONNREFUSED) && errors.As(err, &op) && op.Addr != nil:
		msg := "nothing listens on " + op.Addr.String()
		if e.cfg.Start == "" {
			msg += ": start the server first, or give server.start (--start) to have it started in the sandbox"
		} else {
			msg += ": the server.start command's server stopped listening"
		}
		return errors.New(msg)
	}
	msg := oncePerPrefix(err.Error())
	if !strings.HasPrefix(msg, "initialize") && !strings.HasPrefix(msg, "server/discover") {
		msg = "initialize: " + msg
	}
	return errors.New(msg)
}

// unendedWords names a stdout line with no newline as the cause of a
// start that got no answer.
func unendedWords(n int64) string {
	if n > launch.DefaultMaxLine {
		return fmt.Sprintf("the server wrote %s on stdout without a newline (one line past the frame limit of %d MiB, never read as a message): "+
			"a stdio server ends each message with a newline; a longer timeout would not help", mib(n), launch.DefaultMaxLine>>20)
	}
	return fmt.Sprintf("the server wrote %d bytes on stdout without a newline, so no message could be read: a stdio server ends each message with a newline", n)
}

// mib is n bytes in MiB, one decimal.
func mib(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// oncePerPrefix drops a "prefix: " that repeats the one before it, as
// layered errors write them ("initialize: initialize: transport error" →
// "initialize: transport error").
func oncePerPrefix(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:0]
	for i, p := range parts {
		if i > 0 && p == parts[i-1] {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

// refusedAtStart lists, oldest first, the last operations containment
// refused the starting server: the destinations the egress observer
// denied, and the opens for writing, deletes, renames, links, new
// directories and truncates outside the places a contained server may
// write (which Landlock or the read-only host refuse).
func (pr *packRun) refusedAtStart() []string {
	if pr.recent == nil {
		return nil
	}
	e := pr.e
	e.mu.Lock()
	iso := e.rep.Sandbox.Isolation
	e.mu.Unlock()
	writesRefused := strings.Contains(iso, "fs=landlock") || strings.Contains(iso, "mounts=ro-host")
	privateTmp := strings.Contains(iso, "mounts=ro-host+private-tmp")
	var out []string
	for _, r := range pr.recent() {
		var line string
		switch {
		case r.Kind == observers.KindSocket && r.Data[observers.KeyVerdict] == "deny":
			line = refusedDest(r.Data)
		case r.Kind == observers.KindProcess && r.Data[observers.KeyOp] == "open-write" && writesRefused:
			if p := r.Data[observers.KeyPath]; p != "" && !pr.writable(p, privateTmp) {
				line = fmt.Sprintf("open %s (%s): refused (outside the sandbox)", p, r.Data[observers.KeyFlags])
			}
		case r.Kind == observers.KindProcess && writesRefused:
			if what, paths := changeWords(r.Data); what != "" && slices.ContainsFunc(paths, func(p string) bool { return p != "" && !pr.writable(p, privateTmp) }) {
				line = what + ": refused (outside the sandbox)"
			}
		}
		if line != "" && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	if len(out) > maxRefusedQuoted {
		out = out[len(out)-maxRefusedQuoted:]
	}
	for i, l := range out {
		out[i] = e.redactor.String(l)
	}
	return out
}

// changeWords words an egress record of a change to an entry ("mkdir
// /var/lib/x", "delete /x", "rename /a to /b") and returns the places it
// changes (a symbolic link's contents change nothing where they point);
// "" for any other record.
func changeWords(d map[string]string) (string, []string) {
	p := d[observers.KeyPath]
	switch d[observers.KeyOp] {
	case "remove":
		return "delete " + p, []string{p}
	case "rename":
		return "rename " + p + " to " + d["to"], []string{p, d["to"]}
	case "link":
		if d["syscall"] == "symlink" || d["syscall"] == "symlinkat" {
			return "symlink " + p, []string{p}
		}
		return "link " + p + " to " + d[observers.KeyTarget], []string{p, d[observers.KeyTarget]}
	case "mkdir", "mknod", "truncate":
		return d[observers.KeyOp] + " " + p, []string{p}
	}
	return "", nil
}

// refusedDest words a denied destination: "connect unix /run/x.sock:
// refused (outside the sandbox)", "connect 127.0.0.1:5432: refused (not a
// declared service)".
func refusedDest(d map[string]string) string {
	what := d["op"] + " "
	switch d["family"] {
	case "unix":
		what += "unix " + d["addr"]
	case "inet", "inet6":
		what += d["addr"] + ":" + d["port"]
		if strings.HasPrefix(d["addr"], "127.") || d["addr"] == "::1" {
			return what + undeclaredService
		}
		return what + ": refused (not loopback)"
	default:
		what += d["family"]
	}
	why := d["why"]
	if why == "" {
		why = "refused"
	}
	return what + ": " + why
}

// writable reports whether a contained server may write at path: beneath
// the sandbox, a device, or, with a private /tmp, a temp directory, but
// never at a host path it was given as an argument (kept visible,
// read-only), nor, beneath a private temp directory, anywhere in the tree
// right below it that holds one (kept visible whole, as its siblings
// are what a script loads: a lock or a cache next to it is refused too).
func (pr *packRun) writable(path string, privateTmp bool) bool {
	sb := pr.e.sb
	if sb != nil && within(path, sb.Top) {
		return true
	}
	for _, a := range pr.hostArg {
		if sb != nil && within(a, sb.Top) {
			continue
		}
		if privateTmp {
			a = keptTree(a)
		}
		if within(path, a) {
			return false // a host path the server was given stays read-only
		}
	}
	dirs := []string{"/dev"}
	if privateTmp {
		dirs = append(dirs, "/tmp", "/var/tmp")
	}
	for _, d := range dirs {
		if within(path, d) {
			return true
		}
	}
	return false
}

// keptTree is the entry right below /tmp or /var/tmp that holds p
// (/tmp/ci-1234 for /tmp/ci-1234/srv/index.js), what containment keeps
// visible of a path argument beneath a private temp directory; p itself
// elsewhere.
func keptTree(p string) string {
	for _, t := range []string{"/tmp", "/var/tmp"} {
		if rest, ok := strings.CutPrefix(p, t+"/"); ok && rest != "" {
			first, _, _ := strings.Cut(rest, "/")
			return filepath.Join(t, first)
		}
	}
	return p
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// startError records a failed start, with the log tail, as the harness error.
func (e *Engine) startError(pr *packRun, err error) error {
	se := &StartError{Err: err}
	pr.stop()
	if proc := cmp.Or(pr.proc, e.httpProc); proc != nil {
		se.LogTail = e.redactor.String(proc.Log().Tail(2048))
		log := string(proc.Log().Bytes())
		if cause := e.causeOf(log); cause != "" {
			// The server's own words first: containment's refusals and
			// the exit status follow on the next line.
			se.Err = &causedError{cause: cause, err: se.Err}
		} else if hint := networkHint(log, e.cfg.Command); hint != "" && !strings.Contains(se.Err.Error(), launcherAdvice) {
			se.Err = fmt.Errorf("%w; %s", se.Err, hint)
		}
	} else if e.cfg.URL != "" && e.cfg.Start == "" {
		se.NoProcess = true
	}
	if !pr.extra {
		e.harnessError(fmt.Errorf("pack %s: %s", pr.pack.Name, se.Error()))
	}
	return se
}

// networkSigns are what launchers and runtimes print when a name cannot be
// resolved or the network cannot be reached.
var networkSigns = []string{"EAI_AGAIN", "ENOTFOUND", "getaddrinfo", "ENETUNREACH", "network is unreachable",
	"Temporary failure in name resolution", "Could not resolve host", "Failed to resolve", "Name or service not known"}

// networkHint explains a start that failed because the server tried to
// reach the network; the launcher advice only when a download was
// attempted (see downloadAttempted).
func networkHint(log, command string) string {
	for _, sign := range networkSigns {
		if strings.Contains(log, sign) {
			msg := "the server tried to reach the network (" + sign + " in its log), which the sandbox refuses"
			if downloadAttempted(command, log) {
				return msg + ": " + launcherAdvice
			}
			return msg + ": " + serviceAdvice
		}
	}
	return ""
}

// serviceAdvice is what to do about a server that reaches the network at
// start for something other than its own package.
const serviceAdvice = "a contained server reaches only loopback services declared for it (sandbox.services, --service); " +
	"test it against a local stand-in, or start it without the remote part"

// causedError is a failed start led by the cause its log names.
type causedError struct {
	cause string
	err   error
}

func (c *causedError) Error() string { return c.cause + "\n" + c.err.Error() }
func (c *causedError) Unwrap() error { return c.err }
