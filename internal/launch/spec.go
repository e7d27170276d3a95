package launch

import "os"

// Defaults for the zero values of Spec's limits.
const (
	DefaultMaxLine       = 4 << 20
	DefaultMaxMessage    = 8 << 20
	DefaultLogBytes      = 1 << 20
	DefaultMaxFrameBytes = 32 << 20
)

// oversizeKeep is how much of an oversize line a Frame keeps.
const oversizeKeep = 4 << 10

// Spec describes the server program to start.
type Spec struct {
	// Path is the program's absolute path, already resolved against the
	// server's own (scrubbed) PATH. A relative path is refused, so the
	// harness's PATH can never pick the program.
	Path string
	// Args are the arguments after the program name.
	Args []string
	// Env is the complete environment. Nothing is added to it: nil means an
	// empty environment, never the harness's own.
	Env []string
	// Dir is the working directory; empty means the harness's.
	Dir string
	// MaxLine is the longest stdout line kept, in bytes (DefaultMaxLine when
	// <= 0). A longer line becomes an oversize frame holding its first 4 KiB;
	// the rest is read and discarded without being buffered.
	MaxLine int
	// MaxMessage is the longest oversize line still delivered to Messages
	// when it is valid JSON (DefaultMaxMessage when <= 0, never below
	// MaxLine): such a line is recorded as an oversize frame (its first
	// 4 KiB), so probes judge its size, but the message it carries (a tool
	// list padded past MaxLine) is read rather than waited for until a
	// timeout. A longer line is not delivered: OnCut tells it, with its
	// head, as soon as it passes MaxMessage.
	MaxMessage int
	// LogBytes is the capacity of the server log that receives stderr
	// (DefaultLogBytes when <= 0).
	LogBytes int
	// MaxFrameBytes bounds the frame bytes kept as evidence
	// (DefaultMaxFrameBytes when <= 0). Beyond it the oldest frames lose their
	// Data, and the bytes dropped are counted by FramesLost. The number of
	// frame records is bounded too (MaxFrameBytes/256, at least 1024); past
	// that the oldest records go, which shows as a gap before the first Seq
	// that Frames returns.
	MaxFrameBytes int
	// ExtraFiles are open files the program inherits as descriptors 3, 4,
	// ... in order (os/exec's Cmd.ExtraFiles). Start does not close them:
	// whoever opened them closes its copies once the program started.
	ExtraFiles []*os.File
	// CgroupFD, when > 0, is an open descriptor of a cgroup v2 directory
	// the program starts in (Linux: clone3 with CLONE_INTO_CGROUP), so it
	// and everything it forks are in that cgroup from their first
	// instruction. Start does not close it. On other platforms a value > 0
	// fails the start.
	CgroupFD int
}

func (s Spec) maxLine() int       { return orDefault(s.MaxLine, DefaultMaxLine) }
func (s Spec) maxMessage() int    { return orDefault(s.MaxMessage, DefaultMaxMessage) }
func (s Spec) logBytes() int      { return orDefault(s.LogBytes, DefaultLogBytes) }
func (s Spec) maxFrameBytes() int { return orDefault(s.MaxFrameBytes, DefaultMaxFrameBytes) }

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}
