// Package files observes what a server changes under the sandbox: it holds a
// snapshot of the watched directories and reports, at each Collect, the
// difference attributed to the probe.
//
//	obs, err := files.New(files.Options{Top: sandboxTop}) // root, root-evil, canary, home, tmp
//	if err != nil {
//		return err
//	}
//	obs.Begin(token)
//	// ... the probe calls the server ...
//	for _, r := range obs.Collect(token) {
//		fmt.Println(r.Summary) // "created root-evil/x (5 bytes)", "renamed root/a -> tmp/a"
//	}
//	late := obs.Close() // changes after the last Collect, loss records
//
// A harness ending on a signal calls Abandon first: a walk in progress
// stops at its next entry and Close takes no last look.
//
// A snapshot holds an Entry per path (type, size, mode, mtime, link target,
// inode, and for regular files up to Options.HashMax the first 16 hex digits
// of the content's SHA-256). Walk takes one; Diff compares two, pairing a
// path that disappeared with one that appeared holding the same inode as a
// rename. Symbolic links are never followed and nothing outside the top is
// read: every open goes through an os.Root.
//
// The cost of a Collect grows with what changed, not with the sandbox: on
// Linux an inotify watch (fsnotify) on every directory marks directories
// dirty, and a Collect reads only those again (their direct entries; a new
// directory whole). Before it does, it waits for a barrier: a directory made
// in a private temporary directory outside the sandbox, watched through the
// same inotify queue, so every event queued before the Collect has arrived.
// When the queue overflows or the sandbox changes while it is being read,
// that Collect walks the whole sandbox instead (exact) and says so in a
// KindLoss record; when events are unavailable, or a watch fails for a
// system limit, every Collect from then on does, and one KindLoss record
// says so.
// Hard-linked files are re-read at every Collect, since a write through one
// name changes the others without an event in their directories.
//
// Attribution: Collect(token) returns what changed since the previous Begin
// or Collect, with that token. Changes made while no probe is open (after a
// Collect, before the next Begin) carry no token and come back from the next
// Collect, ahead of its own records, or from Close.
//
// Renames are paired by inode, and only when the content is unchanged (and,
// for an Observer, when events saw the old path renamed away), because file
// systems reuse a freed inode number at once: an entry moved and then
// changed is reported as deleted and created.
//
// Limits: a directory that cannot be read (or nested deeper than 128 levels)
// is reported once in a KindLoss record and what is under it is not
// compared. Each watched directory holds at most Options.MaxEntries
// entries (100,000 by default, about 340 bytes of heap each); the names
// beyond are counted at each listing, never read or held, so a server that
// makes 500,000 files costs the harness the same as one that makes
// 100,000, and a KindLoss record (reason "entries", Data path, count and
// max) says how many under which directory whenever that count grows.
// The limit is a directory's own: a flood in root never takes the room of
// an entry under root-evil, canary, home or tmp. For the same reason the
// bound on records (Options.MaxRecords) cuts changes under root last: a
// change anywhere else is listed first. A name counted, not held, that
// finds room later (entries were deleted) is then reported created. Seen
// only by a full walk: a write through a memory mapping (no event), and a
// write through a hard link made and removed between two Collects (no event
// names the file's other names).
package files
