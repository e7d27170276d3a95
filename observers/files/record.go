package files

import (
	"fmt"
	"strconv"
	"time"

	"github.com/sealmark/sealmark/observers"
)

// record turns a change into a KindFile record. Data keys: op, path, from
// (renamed), type, size (files), mode, target (links), hash (hashed files).
func record(c Change, token string, now time.Time) observers.Record {
	e := c.After
	if e == nil {
		e = c.Before
	}
	data := map[string]string{observers.KeyOp: c.Op, observers.KeyPath: c.Path, observers.KeyType: e.Type, observers.KeyMode: modeString(e.Mode)}
	if c.From != "" {
		data[observers.KeyFrom] = c.From
	}
	switch e.Type {
	case TypeFile:
		data[observers.KeySize] = strconv.FormatInt(e.Size, 10)
		if e.Hash != "" {
			data[observers.KeyHash] = e.Hash
		}
	case TypeLink:
		data[observers.KeyTarget] = e.Target
	}
	return observers.Record{
		Kind:     observers.KindFile,
		Observer: "files",
		Time:     now,
		Token:    token,
		Summary:  summary(c, e),
		Data:     data,
	}
}

// summary is the one line people read: "created root-evil/x (5 bytes)".
func summary(c Change, e *Entry) string {
	p := show(c.Path)
	switch c.Op {
	case OpCreated:
		switch e.Type {
		case TypeFile:
			return fmt.Sprintf("created %s (%d bytes)", p, e.Size)
		case TypeDir:
			return fmt.Sprintf("created %s (directory)", p)
		}
		return fmt.Sprintf("created %s (%s)", p, e.Type)
	case OpLinkCreated:
		return fmt.Sprintf("link-created %s -> %s", p, show(e.Target))
	case OpRenamed:
		return fmt.Sprintf("renamed %s -> %s", show(c.From), p)
	case OpModeChanged:
		return fmt.Sprintf("mode-changed %s %s -> %s", p, modeString(c.Before.Mode), modeString(c.After.Mode))
	}
	return c.Op + " " + p // modified, deleted
}

// loss is a KindLoss record; reason is a fixed word naming the cause.
func loss(token string, now time.Time, reason, summary string) observers.Record {
	return observers.Record{
		Kind:     observers.KindLoss,
		Observer: "files",
		Time:     now,
		Token:    token,
		Summary:  summary,
		Data:     map[string]string{observers.KeyReason: reason},
	}
}

func unreadableLoss(token string, now time.Time, dir, why string) observers.Record {
	r := loss(token, now, "unreadable", fmt.Sprintf("cannot read %s (%s): changes under it are not observed", show(dir), why))
	r.Data[observers.KeyPath] = dir
	return r
}

// entriesLoss says that n entries under the watched directory w were
// counted, not held, because it held its limit of max entries.
func entriesLoss(token string, now time.Time, w string, n, max int) observers.Record {
	r := loss(token, now, "entries", fmt.Sprintf("%d entries under %s beyond the limit of %d held there counted, not held: changes to them are not reported", n, show(w), max))
	r.Data[observers.KeyPath] = w
	r.Data[observers.KeyCount] = strconv.Itoa(n)
	r.Data[observers.KeyMax] = strconv.Itoa(max)
	return r
}
