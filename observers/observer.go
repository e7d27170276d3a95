// Package observers holds what every observer shares: the Record of one
// thing seen, the keys of its Data (keys.go) and the Observer lifecycle.
// Each observer is a sub-package of this one (observers/files,
// observers/process, ...; go list ./observers/... names them all) that
// knows nothing of packs.
//
//	obs := []observers.Observer{filesObs, loopbackObs}
//	for _, o := range obs { o.Begin(token) }
//	// ... the probe calls the server ...
//	for _, o := range obs { seen = append(seen, o.Collect(token)...) }
//	// ... when the start ends:
//	for _, o := range obs { late = append(late, o.Close()...) }
package observers

import "time"

// Kinds of record. A reader that meets a kind it does not know keeps the
// record as it is.
const (
	KindFile       = "file"       // a change under the sandbox
	KindConnection = "connection" // a connection to the loopback listener
	KindProcess    = "process"    // a process spawned, executed, or alive after shutdown
	KindSocket     = "socket"     // a listening socket or an attempted egress
	KindSize       = "size"       // the sandbox grew past its limit
	KindUpstream   = "upstream"   // a request to the upstream stub
	KindLog        = "log"        // a server log event worth a line
	KindLoss       = "loss"       // an observer dropped or missed data
	KindLimit      = "limit"      // the server met a process or memory limit
)

// Record is one thing an observer saw. Data holds the kind's fields as
// strings (64-bit counters as decimal strings), so any reader can keep a
// record of a kind it does not know. Data's keys are field names the
// observer chooses, never text from the server: the report redacts values,
// not keys.
type Record struct {
	Kind     string            `json:"kind"`
	Observer string            `json:"observer"`
	Time     time.Time         `json:"time"`
	Token    string            `json:"token,omitempty"` // the probe it is attributed to, when known
	Summary  string            `json:"summary"`         // one line for people: "created root-evil/x (5 bytes)"
	Data     map[string]string `json:"data,omitempty"`
}

// Observer watches one kind of effect. The engine calls Begin before each
// probe and Collect after it (and whenever a probe asks mid-way); records
// are attributed to the token. Implementations are safe for concurrent use
// and bounded in memory: what they drop they report as a KindLoss record.
type Observer interface {
	// Name is the observer's name: "files", "loopback", ...
	Name() string
	// Begin marks the start of the probe with this token.
	Begin(token string)
	// Collect returns what was seen since Begin or the previous Collect
	// for this token, and never returns a record twice.
	Collect(token string) []Record
	// Close stops the observer and returns what it saw that no Collect
	// returned (between probes, after shutdown), and its loss records.
	Close() []Record
}

// Abandoner is an Observer whose look at the sandbox can take long (a
// walk of a large tree). Abandon, for a harness ending early on a signal
// or its run's deadline, cuts short a look in progress and makes every
// later Begin, Collect and Close take none: Close then only releases what
// the observer holds and returns what it had already seen. It returns at
// once, may be called from any goroutine and more than once.
type Abandoner interface {
	Abandon()
}
