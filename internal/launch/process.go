package launch

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sealmark/sealmark/internal/cleanup"
	"github.com/sealmark/sealmark/internal/serverlog"
)

// Process is a running stdio server in its own process group.
type Process struct {
	cmd    *exec.Cmd
	stdin  *stdin
	msgR   *io.PipeReader
	msgW   *io.PipeWriter
	stdout *os.File // read end, owned by the framer until drain
	stderr *os.File // read end, owned by the log copier until drain
	outR   *pipeReader
	errR   *pipeReader
	frames *frameLog
	log    *serverlog.Log
	onCut  cutHandler

	done   chan struct{} // the leader exited and was reaped
	framed chan struct{} // the framer returned
	logged chan struct{} // the log copier returned
	status atomic.Value  // string, set before done closes

	stopOnce  sync.Once
	report    StopReport
	groupGone atomic.Bool // the group was seen empty: never signal it again
	undo      func()      // removes KillWait from package cleanup
}

// Start starts the program in spec in a new process group, with pipes for
// stdin and stdout and its stderr going to a server log. It returns as soon
// as the program is running; always call Stop (or at least Kill) afterwards.
func Start(spec Spec) (*Process, error) {
	if !filepath.IsAbs(spec.Path) {
		return nil, fmt.Errorf("launch: program path %q is not absolute", spec.Path)
	}
	env := spec.Env
	if env == nil {
		env = []string{} // nil would make exec inherit the harness's environment
	}
	cmd := exec.Command(spec.Path, spec.Args...)
	cmd.Env = env
	cmd.Dir = spec.Dir
	cmd.ExtraFiles = spec.ExtraFiles
	cmd.SysProcAttr = groupAttr()
	if spec.CgroupFD > 0 {
		if err := intoCgroup(cmd.SysProcAttr, spec.CgroupFD); err != nil {
			return nil, err
		}
	}

	// The pipes are made here rather than by exec so that Wait never waits
	// for (or closes) them: the reaper must not depend on a grandchild
	// closing its copy of stdout or stderr.
	var ends [6]*os.File // inR, inW, outR, outW, errR, errW
	for i := 0; i < len(ends); i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(ends[:i]...)
			return nil, fmt.Errorf("launch: pipe: %w", err)
		}
		ends[i], ends[i+1] = r, w
	}
	inR, inW, outR, outW, errR, errW := ends[0], ends[1], ends[2], ends[3], ends[4], ends[5]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	starting.Add(1)
	defer starting.Add(-1) // after started.Store below: see Starting
	// At the niceness the harness started with, not one it got later.
	err := atStartNice(cmd.Start)
	closeAll(inR, outW, errW) // the child holds its own copies
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, fmt.Errorf("launch: start %s: %w", spec.Path, err)
	}

	msgR, msgW := io.Pipe()
	p := &Process{
		cmd:    cmd,
		stdin:  &stdin{f: inW},
		msgR:   msgR,
		msgW:   msgW,
		stdout: outR,
		stderr: errR,
		outR:   newPipeReader(outR),
		errR:   newPipeReader(errR),
		frames: newFrameLog(spec.maxFrameBytes()),
		log:    serverlog.New(spec.logBytes()),
		done:   make(chan struct{}),
		framed: make(chan struct{}),
		logged: make(chan struct{}),
	}
	started.Store(p.cmd.Process.Pid, true)
	// Registered before Start returns: a signal that arrives while the
	// caller is still setting up its start must not leave this one behind.
	p.undo = cleanup.Add(p.KillWait)
	go p.reap()
	go func() {
		defer close(p.framed)
		newFramer(p.frames, msgW, spec.maxLine(), spec.maxMessage(), &p.onCut).run(p.outR)
		p.outR.finish()
	}()
	go func() {
		defer close(p.logged)
		copyLog(p.log, p.errR)
		p.errR.finish()
	}()
	return p, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

func (p *Process) reap() {
	_ = p.cmd.Wait()
	started.Delete(p.cmd.Process.Pid)
	status := "exited"
	if ps := p.cmd.ProcessState; ps != nil {
		status = ps.String()
	}
	p.status.Store(status)
	close(p.done)
	if _, alive := survivors(p.cmd.Process); !alive {
		// Nothing of the group is left: its id may be reused, so no
		// cleanup may signal it any more.
		p.groupGone.Store(true)
		p.undo()
	}
}

// copyLog copies r into log until r ends.
func copyLog(log *serverlog.Log, r io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		_, _ = log.Write(buf[:n])
		if err != nil {
			return
		}
	}
}

// Messages returns the server's valid JSON lines, each followed by "\n": the
// input for mcp-go's transport.NewIO. It ends (EOF) when stdout ends or the
// process is stopped. Other lines are only recorded as frames.
func (p *Process) Messages() io.Reader { return p.msgR }

// Input returns the writer to the server's stdin. Each Write goes out whole,
// never interleaved with another Write or a WriteRaw. Close closes stdin.
func (p *Process) Input() io.WriteCloser { return p.stdin }

// WriteRaw writes b to the server's stdin exactly as given, through the same
// lock as Input, so it never splits another frame.
func (p *Process) WriteRaw(b []byte) error {
	_, err := p.stdin.Write(b)
	return err
}

// CloseStdin closes the server's stdin. It is idempotent, and it makes a
// write blocked on a server that does not read return ErrStdinClosed.
func (p *Process) CloseStdin() error { return p.stdin.Close() }

// Frames returns copies of the recorded stdout frames with Seq >= from.
// FrameCount before an action and Frames(count) after it gives the frames
// the action produced.
func (p *Process) Frames(from int) []Frame { return p.frames.since(from) }

// FrameCount returns the number of frames recorded so far, which is also the
// Seq the next frame will have.
func (p *Process) FrameCount() int { return p.frames.count() }

// FramesLost returns the bytes of frame Data dropped to stay within
// Spec.MaxFrameBytes.
func (p *Process) FramesLost() int64 { return p.frames.bytesLost() }

// Unended returns the length in bytes of the stdout line the server is in
// the middle of writing, with no newline yet; once stdout closed, of its
// last line when that had none; 0 when the last line ended. A start that
// gets no answer while this grows past Spec.MaxLine is stuck behind one
// line the framer will not deliver.
func (p *Process) Unended() int64 {
	return max(p.frames.read.Load()-p.frames.ended.Load(), 0)
}

// Log returns the server log: the most recent stderr bytes.
func (p *Process) Log() *serverlog.Log { return p.log }

// LogDrained reports whether every byte the server (or anything sharing
// its stderr) has written to stderr so far is in Log: the pipe holds none
// and the copier holds none it has not written. It never blocks; false
// where the pipe cannot be asked (on Linux it can). A caller that knows
// the server has stopped writing (its tree idle) polls it to know the log
// has caught up.
func (p *Process) LogDrained() bool { return p.errR.Drained() }

// OutputDrained is LogDrained for stdout: every line the server ended so
// far is in Frames. False while the framer waits for Messages' reader.
func (p *Process) OutputDrained() bool { return p.outR.Drained() }

// Pid returns the leader's process id, which is also its process group id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the leader has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitStatus describes how the leader ended ("exit status 3",
// "signal: killed"), or is "" while it runs.
func (p *Process) ExitStatus() string {
	s, _ := p.status.Load().(string)
	return s
}

// WaitExit reports whether the leader exits within d. It sends no signal.
func (p *Process) WaitExit(d time.Duration) bool {
	return waitFor(p.done, d)
}

// waitFor reports whether ch closes within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// started holds the pids of the processes Start started that are not yet
// reaped, so observers can tell the harness's own children from orphans it
// adopted as subreaper.
var started sync.Map

// Ours reports whether pid is a process Start started and that has not
// been reaped yet.
func Ours(pid int) bool {
	_, ok := started.Load(pid)
	return ok
}

// starting counts the Start calls between their fork and the moment the
// new pid is in started.
var starting atomic.Int64

// Starting reports whether a Start is in flight: its child may already be
// in /proc, a child of the harness, while Ours does not know it yet. An
// observer that read /proc before calling Starting and Ours, and got false
// from both, knows that every child it saw which Start made is in started.
func Starting() bool { return starting.Load() > 0 }
