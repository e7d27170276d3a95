package packs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Tool is one entry of the server's tools/list, read with raw JSON-RPC so a
// malformed schema is kept as it came (and reported by core) instead of
// failing the whole list.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations struct {
		Title           string `json:"title,omitempty"`
		ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
		DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	} `json:"annotations,omitzero"`
	// Raw is the entry exactly as the server sent it.
	Raw json.RawMessage `json:"-"`
}

var readLikePrefixes = []string{"get", "list", "read", "search", "find", "show", "describe", "view", "query", "lookup", "count", "stat", "info", "whoami", "debug", "status", "health", "version", "ping"}

// ReadOnly reports whether the tool says or looks like it only reads: a
// readOnlyHint of true, or no hint and a read-like name (get_, list_, read_,
// search_, ...) and no destructiveHint.
func (t Tool) ReadOnly() bool {
	if h := t.Annotations.ReadOnlyHint; h != nil {
		return *h
	}
	if h := t.Annotations.DestructiveHint; h != nil && *h {
		return false
	}
	name := strings.ToLower(t.Name)
	for _, p := range readLikePrefixes {
		if name == p || strings.HasPrefix(name, p+"_") || strings.HasPrefix(name, p+"-") || strings.HasPrefix(name, p+".") {
			return true
		}
		if strings.HasPrefix(name, p) && len(t.Name) > len(p) && t.Name[len(p)] >= 'A' && t.Name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}

// Surface is what the server offers, read on its first start.
type Surface struct {
	Tools []Tool
	// ToolsError is why the tool list could not be read completely, if it could not.
	ToolsError string
	// ToolsTooLarge is set when a tools/list answer ran past the message
	// limit (TooLargeError) or nested past the decoder's depth limit
	// (TooDeepError); ToolsError says which: Tools holds only the pages
	// before it.
	ToolsTooLarge bool
	Init          Init
}

// Tool returns the named tool.
func (s *Surface) Tool(name string) (Tool, bool) {
	for _, t := range s.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

// Init is the initialize exchange of a start.
type Init struct {
	Requested string          // protocol version the harness asked for
	Result    json.RawMessage // the server's result, as sent
	Error     *RPCError       // the server's error, if it answered with one
	Version   string          // protocolVersion in the result
	Server    struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	Capabilities map[string]json.RawMessage
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Response is the server's answer to one request.
type Response struct {
	ID     json.RawMessage
	Result json.RawMessage
	Error  *RPCError
}

// Brief describes a response in a few words for a message: "error -32603
// (Internal error)" or "a result".
func (r *Response) Brief() string {
	if r == nil {
		return "no response"
	}
	if r.Error != nil {
		msg := r.Error.Message
		if len(msg) > 80 {
			msg = msg[:80] + "…"
		}
		return fmt.Sprintf("error %d (%s)", r.Error.Code, msg)
	}
	return "a result"
}

// ToolError reports whether a tools/call result says isError: true.
func (r *Response) ToolError() bool {
	if r == nil || r.Result == nil {
		return false
	}
	var v struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(r.Result, &v) == nil && v.IsError
}

// Body is everything a response says: the result, or the error's message
// and data on two lines; nil for no response.
func (r *Response) Body() []byte {
	if r == nil {
		return nil
	}
	if r.Error != nil {
		return append([]byte(r.Error.Message+"\n"), r.Error.Data...)
	}
	return r.Result
}

// Refused reports whether the call was refused: a protocol error or a tool
// result with isError set.
func (r *Response) Refused() bool { return r != nil && (r.Error != nil || r.ToolError()) }

// Frame is one line the server wrote to stdout.
type Frame struct {
	Seq  int
	Time time.Time
	Kind string // "json", "garbage", "blank", "oversize"
	Data []byte // nil when dropped to keep memory bounded; the first 4 KiB of an oversize line
	Size int64
}

// Secret is a value the harness planted and recognises anywhere.
type Secret struct {
	Name  string // SEALMARK_CANARY, canary/secret.txt, ...
	Value string
}

// Sandbox is the sandbox as a probe sees it.
type Sandbox struct {
	Top, Root, RootEvil, Canary, Home, Tmp, Bin string
	OKToken                                     string   // content of root/ok.txt
	Files                                       []Secret // canary files, by path relative to Top
	// Limits names the process and memory limits the server's
	// containment enforces ("1024 tasks, 4096 MiB"); "" when none is.
	Limits string
	// Git is the git pack's layout; nil when the run staged none.
	Git *GitSandbox
	// SQLite is the sqlite pack's databases; nil unless the server was
	// pointed at {sqlite}.
	SQLite *SQLiteDB
}

// Outside reports whether a path below the top (slash-separated, as the
// files observer names it) is somewhere a server confined to root has no
// business changing: root-evil, canary, the top itself, and anything
// carrying the probe's token in home and tmp (the server's own HOME and
// TMPDIR, where it may keep files of its own). Root and bin are inside;
// "" is nowhere.
func (s *Sandbox) Outside(path, token string) bool {
	if path == "" {
		return false
	}
	first, _, _ := strings.Cut(path, "/")
	switch first {
	case "root", "bin":
		return false
	case "home", "tmp":
		return strings.Contains(path, token)
	}
	return true
}

// SQLiteDB is the sqlite pack's pair of databases: App ({sqlite}, inside
// the root, with a secrets table the server may read) and Other (outside
// the root, whose secret the server must never return).
type SQLiteDB struct {
	App, Other             string
	AppSecret, OtherSecret string
}

// GitSandbox is the git pack's layout as a probe sees it. Paths are
// absolute; one that could not be made is "".
type GitSandbox struct {
	Repo    string // root/repo ({repo}): one commit, a staged change, an untracked file
	Hostile string // root/hostile: its config, hooks and attributes run sm-canary HostileMarker<what>
	// Repos are the repositories outside the root whose secret (in a
	// committed file, the commit message and an untracked file's name)
	// must never reach a response: Name is canary/repo or root-evil/repo.
	Repos []Secret
}

// HostileMarker starts the argument sm-canary gets from root/hostile; the
// rest names the configuration key or hook that ran it.
const HostileMarker = "sealmark-hostile:"

// Errors a Server's Request wraps, so probes can tell a hang from a crash.
var (
	ErrNoAnswer = errors.New("no answer before the deadline")
	ErrClosed   = errors.New("the server closed its stdout")
	// ErrTransport is a request the transport itself failed, at once or
	// late, without a JSON-RPC answer: an HTTP status with no JSON body
	// (413, 502), a refused connection. It is no timeout.
	ErrTransport = errors.New("transport error")
	// ErrInterrupted is a request cut short because the run was
	// interrupted (a signal, the run's deadline) or the probe's own
	// deadline passed: it says nothing about the server.
	ErrInterrupted = errors.New("interrupted")
)

// TooLargeError is an answer the harness stopped reading because it ran
// past the message limit (a stdout line, an event of an event stream, a
// JSON body): the request failed at once, with no timeout waited and no
// crash.
type TooLargeError struct {
	// Request names the request the answer was to ("tools/list"), or is
	// "" when the answer could not be tied to one.
	Request string
	// Stream is set when the answer was an event stream, one of whose
	// events (or lines) ran past the limit.
	Stream bool
	// Limit is the message limit in bytes.
	Limit int64
}

func (e *TooLargeError) Error() string {
	limit := sizeWords(e.Limit)
	switch {
	case e.Request != "" && e.Stream:
		return fmt.Sprintf("an event in the answer to %s was over the %s message limit, so the harness stopped reading it", e.Request, limit)
	case e.Request != "":
		return fmt.Sprintf("the answer to %s was over the %s message limit, so the harness stopped reading it", e.Request, limit)
	case e.Stream:
		return fmt.Sprintf("an event in the event stream was over the %s message limit, so the harness closed the stream", limit)
	}
	return fmt.Sprintf("an answer was over the %s message limit, so the harness stopped reading it", limit)
}

// MaxJSONDepth is the JSON nesting the harness's decoders read
// (launch.MaxDepth, the same number).
const MaxJSONDepth = 10000

// TooDeepError is the error of a request whose answer was JSON nested
// deeper than the harness's decoders read (launch.MaxDepth levels): the
// decoder refused the whole message, so the harness failed the request at
// once instead of waiting for an answer that already came.
type TooDeepError struct {
	// Request names the request the answer was to ("tools/list"), or is
	// "" when the answer could not be tied to one.
	Request string
	// Limit is the nesting the decoder reads, in levels.
	Limit int
}

func (e *TooDeepError) Error() string {
	what := "an answer"
	if e.Request != "" {
		what = "the answer to " + e.Request
	}
	return fmt.Sprintf("%s nests deeper than %s levels, past the JSON decoder's limit, so the harness refused it", what, thousands(e.Limit))
}

// thousands writes n with its thousands separated: 10,000.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// sizeWords says a byte count as a limit is written: "8 MiB", "4 KiB",
// "1000 bytes".
func sizeWords(n int64) string {
	switch {
	case n > 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n > 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Unanswered says, for a message, how a request that returned err went
// unanswered: "no answer within 10s" for a timeout, and for anything else
// what failed ("a transport error after 9ms: HTTP 413 ..."), so that a
// refusal in milliseconds is never reported as a wait of the whole
// timeout.
func Unanswered(err error, wait time.Duration) string {
	switch {
	case err == nil:
		return "an answer"
	case errors.Is(err, ErrNoAnswer) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", wait)
	}
	var large *TooLargeError
	if errors.As(err, &large) {
		return fmt.Sprintf("an answer over the %s message limit, which the harness stopped reading", sizeWords(large.Limit))
	}
	msg := err.Error()
	if i := strings.Index(msg, ErrTransport.Error()); i >= 0 {
		msg = msg[i:] // "tools/call x: transport error ..." → from the transport's words
	}
	return "no answer but " + strings.TrimSpace(msg)
}

// Server is the started server as a probe reaches it.
type Server interface {
	// Request sends one JSON-RPC request with a harness id and waits for the
	// answer until ctx ends.
	Request(ctx context.Context, method string, params any) (*Response, error)
	// Notify sends a JSON-RPC notification.
	Notify(ctx context.Context, method string, params any) error
	// WriteRaw writes bytes to the server's stdin as they are, never
	// interleaved with a frame of the session's.
	WriteRaw(b []byte) error
	// Frames returns what the server wrote to stdout, from sequence number from.
	Frames(from int) []Frame
	// Describe names the request a frame answers ("tools/call debug_info"),
	// or "" when it answers none of the harness's.
	Describe(f Frame) string
	// Log returns the server log (stderr) held so far.
	Log() []byte
	// LogDrained reports whether everything written to the server log so
	// far is in Log: nothing waits in the pipe the harness reads it from,
	// nor in the harness's reader. It never blocks; false when it cannot
	// tell. Pass.WaitLog waits on it.
	LogDrained() bool
	// CloseStdin closes the server's stdin; the session cannot send after it.
	CloseStdin() error
	// WaitExit waits up to d for the server to exit by itself.
	WaitExit(d time.Duration) bool
	// Terminate stops a stdio server that ignores the end of its stdin as
	// a client would: SIGTERM to the server alone, then SIGKILL when it
	// has not exited within grace; what it started is not signalled. It
	// returns the signals sent, none when the server had exited (and over
	// HTTP).
	Terminate(grace time.Duration) []string
	// Alive reports whether the server process is still running.
	Alive() bool
	// ExitStatus is "exit status 3", "signal: killed", or "" while running.
	ExitStatus() string
	// Transport is "stdio" or "http". Stdio-only checks (stdin, stdout
	// framing) do not apply to an HTTP server.
	Transport() string
}
