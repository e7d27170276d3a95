package packs

import "time"

// NoteCount counts the notifications of one method a server sent in a
// session: how many, the first and the last, and the most within any one
// second-long window that starts at a notification (the peak rate).
type NoteCount struct {
	Method      string
	Count       int
	First, Last time.Time
	// PeakPerSecond is the most notifications seen within one second.
	PeakPerSecond int

	windowStart time.Time
	windowCount int
}

// See counts one notification at now (now never before the last).
func (n *NoteCount) See(now time.Time) {
	if n.Count == 0 {
		n.First = now
	}
	n.Count++
	n.Last = now
	if n.windowCount == 0 || now.Sub(n.windowStart) >= time.Second {
		n.windowStart, n.windowCount = now, 0
	}
	n.windowCount++
	n.PeakPerSecond = max(n.PeakPerSecond, n.windowCount)
}
