package files

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

const (
	// maxDirty bounds the paths events can mark dirty between two updates;
	// beyond it the next update is a full walk.
	maxDirty = 1 << 16
	// settleTimeout bounds the wait for the events queued before a Collect.
	settleTimeout = 2 * time.Second
	// closeTimeout bounds the wait for the event goroutine to stop.
	closeTimeout = 5 * time.Second
)

// events turns fsnotify events into a bounded set of dirty paths. One
// goroutine drains the watcher. A barrier makes every event queued before a
// Collect visible: the watcher also watches a private directory outside the
// sandbox, and a directory made there comes through the same inotify queue
// after every event queued before it.
type events struct {
	w       *fsnotify.Watcher
	top     string          // absolute top, cleaned
	dirs    map[string]bool // watched directory names
	barrier string          // private directory for barrier entries
	sent    uint64          // last barrier issued; only the observer's goroutine uses it
	bound   int             // maxDirty; tests lower it

	mu    sync.Mutex
	dirty map[string]uint8 // path → what events said of it (movedAway, removedHere)
	full  string           // why the next update must be a full walk; "" when it need not
	seen  uint64           // highest barrier seen

	notify chan struct{} // a barrier or a failure arrived
	done   chan struct{} // closed when the drain goroutine returns
}

// startEvents watches nothing yet: directories are added by the tree before
// it reads them. fsnotify is used on Linux only (inotify); elsewhere it
// would cost a descriptor per file.
func startEvents(top string, dirs []string) (*events, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("not used on %s", runtime.GOOS)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	b, err := os.MkdirTemp("", barrierPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		w.Close()
		return nil, err
	}
	if err := w.Add(b); err != nil {
		w.Close()
		os.RemoveAll(b)
		return nil, err
	}
	e := &events{
		w:       w,
		top:     top,
		dirs:    map[string]bool{},
		barrier: b,
		bound:   maxDirty,
		dirty:   map[string]uint8{},
		notify:  make(chan struct{}, 1),
		done:    make(chan struct{}),
	}
	for _, d := range dirs {
		e.dirs[d] = true
	}
	go e.drain()
	return e, nil
}

func (e *events) drain() {
	defer close(e.done)
	for {
		select {
		case ev, ok := <-e.w.Events:
			if !ok {
				return
			}
			e.handle(ev)
		case err, ok := <-e.w.Errors:
			if !ok {
				return
			}
			e.fail(err)
		}
	}
}

// handle marks an event's path and its directory dirty, or records a barrier.
func (e *events) handle(ev fsnotify.Event) {
	if rest, ok := strings.CutPrefix(ev.Name, e.barrier+string(filepath.Separator)); ok {
		if n, err := strconv.ParseUint(rest, 10, 64); err == nil && ev.Has(fsnotify.Create) {
			e.mu.Lock()
			e.seen = max(e.seen, n)
			e.mu.Unlock()
			e.signal()
		}
		return
	}
	rel, ok := strings.CutPrefix(ev.Name, e.top+string(filepath.Separator))
	if !ok {
		return // the top itself, or a stale path
	}
	rel = filepath.ToSlash(rel)
	if first, _, _ := strings.Cut(rel, "/"); !e.dirs[first] {
		return // bin/ or anything else directly under the top
	}
	var how uint8
	if ev.Has(fsnotify.Rename) {
		how |= movedAway
	}
	if ev.Has(fsnotify.Remove) {
		how |= removedHere
	}
	e.mu.Lock()
	e.mark(rel, how)
	e.mark(parent(rel), 0)
	e.mu.Unlock()
}

// What events said of a dirty path, besides that something changed there.
const (
	movedAway   uint8 = 1 << iota // the entry at the path was renamed away
	removedHere                   // the entry at the path was removed
)

// mark adds p to the dirty set; past maxDirty the set is dropped and a full
// walk is asked for instead. e.mu is held.
func (e *events) mark(p string, how uint8) {
	if e.full != "" {
		return
	}
	if _, ok := e.dirty[p]; !ok && len(e.dirty) >= e.bound {
		e.full = fmt.Sprintf("more than %d paths changed", e.bound)
		e.dirty = map[string]uint8{}
		return
	}
	e.dirty[p] |= how
}

// fail records a watcher error: events may be missing, so the next update
// is a full walk. An inotify queue overflow comes this way.
func (e *events) fail(err error) {
	if errors.Is(err, syscall.EINVAL) {
		// fsnotify drops its watch on a directory moved away and reports
		// EINVAL when the kernel had already dropped it (the directory was
		// moved, then deleted). Nothing is lost.
		return
	}
	why := "file event error: " + err.Error()
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		why = "inotify overflow"
	}
	e.mu.Lock()
	if e.full == "" {
		e.full = why
	}
	e.dirty = map[string]uint8{}
	e.mu.Unlock()
	e.signal()
}

func (e *events) signal() {
	select {
	case e.notify <- struct{}{}:
	default:
	}
}

// settle returns once every event queued before the call has been handled:
// it makes a barrier directory and waits for its event. A failure ends the
// wait early (the next update is a full walk anyway), and so does
// abandoned closing.
func (e *events) settle(timeout time.Duration, abandoned <-chan struct{}) error {
	e.sent++
	n := e.sent
	p := filepath.Join(e.barrier, strconv.FormatUint(n, 10))
	if err := os.Mkdir(p, 0o700); err != nil {
		return err
	}
	defer os.Remove(p)
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		ok := e.seen >= n || e.full != ""
		e.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-e.notify:
		case <-timer.C:
			return fmt.Errorf("no event within %v", timeout)
		case <-e.done:
			return errStopped
		case <-abandoned:
			return errAbandoned
		}
	}
}

// errAbandoned is settle's error once the observer was abandoned.
var errAbandoned = errors.New("the observer was abandoned")

// errStopped is settle's error once the watcher has stopped on its own.
var errStopped = errors.New("the file event watcher stopped")

// take returns the dirty paths and why a full walk is needed ("" when it
// is not), and starts a new set.
func (e *events) take() (map[string]uint8, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, why := e.dirty, e.full
	e.dirty, e.full = map[string]uint8{}, ""
	return d, why
}

func (e *events) abs(rel string) string {
	if rel == "" {
		return e.top
	}
	return filepath.Join(e.top, filepath.FromSlash(rel))
}

func (e *events) add(rel string) error { return e.w.Add(e.abs(rel)) }

func (e *events) remove(rel string) { _ = e.w.Remove(e.abs(rel)) }

// watchList returns the watched directories as the watcher files them,
// relative to the top ("" is the top).
func (e *events) watchList() []string {
	var out []string
	for _, p := range e.w.WatchList() {
		if p == e.top {
			out = append(out, "")
		} else if rel, ok := strings.CutPrefix(p, e.top+string(filepath.Separator)); ok {
			out = append(out, filepath.ToSlash(rel))
		}
	}
	return out
}

// close stops the watcher and its goroutine and removes the barrier directory.
func (e *events) close() {
	e.w.Close()
	select {
	case <-e.done:
	case <-time.After(closeTimeout):
	}
	os.RemoveAll(e.barrier)
}
