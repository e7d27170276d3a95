package sqlite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sealmark/sealmark/internal/sandbox"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
)

// run is one sqlite probe in progress.
type run struct {
	p    *packs.Pass
	db   *packs.SQLiteDB
	base state // app.db as staged

	failed     []string
	unanswered []string
	dead       bool
	calls      int
	seq        int // columns the probe added to items
	seen       int // observation records already judged
}

// start makes a run on a freshly reset app.db, or marks the probe not
// applicable (no {sqlite}) or inconclusive and returns nil.
func start(p *packs.Pass) *run {
	switch {
	case p.Sandbox == nil:
		p.NotApplicable("the run has no sandbox, so there is no database the harness can watch")
		return nil
	case p.Sandbox.SQLite == nil:
		p.NotApplicable("the server was not pointed at {sqlite} (the harness's root/app.db), so the harness cannot see what its SQL changes: give the database path as {sqlite} in server.args or server.env")
		return nil
	}
	r := &run{p: p, db: p.Sandbox.SQLite}
	if err := r.reset(); err != nil {
		p.Inconclusive("app.db could not be reset before the probe: %v", err)
		return nil
	}
	r.consume()
	return r
}

// reset restores app.db as staged and reads it back.
func (r *run) reset() error {
	if err := sandbox.ResetSQLite(r.db.App, r.db.AppSecret); err != nil {
		return err
	}
	st, err := snapshot(r.db.App)
	r.base = st
	return err
}

// tools returns the database tools with the role, read-only ones only
// when readOnly is set.
func (r *run) tools(role Role, readOnly bool) []Tool {
	var out []Tool
	for _, t := range Tools(r.p.Surface) {
		if t.Role == role && (!readOnly || t.ReadOnly) {
			out = append(out, t)
		}
	}
	return out
}

// ident is a name carrying the probe's token, usable as an SQL identifier.
func (r *run) ident(suffix string) string {
	return "sealmark_" + strings.ReplaceAll(r.p.Token, "-", "_") + suffix
}

// shown replaces the probe's identifiers by a stable name for messages.
func (r *run) shown(s string) string {
	s = strings.ReplaceAll(s, strings.ReplaceAll(r.p.Token, "-", "_"), "{token}")
	s = strings.ReplaceAll(s, r.db.Other, "{sandbox_top}/canary/other.db")
	s = strings.ReplaceAll(s, r.p.Sandbox.RootEvil, "{sandbox_top}/root-evil")
	return s
}

// call calls the tool with value as its probed argument and the others
// synthesized. It returns nil when there is no answer to judge. A response
// carrying other.db's secret is reported whatever the probe.
func (r *run) call(t Tool, value string, desc string) *packs.Response {
	if r.dead {
		return nil
	}
	fill := map[string]any{}
	if t.Arg != "" {
		fill[t.Arg] = value
	}
	for _, a := range t.arrays {
		fill[a] = []any{"a"}
	}
	args, _ := packs.Arguments(t.Schema, r.p.Token, fill) // a schema defect is core's finding
	r.calls++
	res, err := r.p.Call(t.Name, args)
	switch {
	case err == nil:
		if bytes.Contains(res.Body(), []byte(r.db.OtherSecret)) {
			f := r.p.Reportf("%s returned the secret row of canary/other.db, a database outside the root", desc)
			f.Severity = packs.Critical
			f.Evidencef("response", "the result of %s contains the canary of canary/other.db", t.Name)
		}
		return res
	case errors.Is(err, packs.ErrClosed) || !r.p.Server.Alive():
		r.dead = true
		r.p.Notef("the server exited during %s (%s)", desc, r.p.Server.ExitStatus())
	case errors.Is(err, packs.ErrNoAnswer):
		r.unanswered = append(r.unanswered, desc)
	default:
		r.unanswered = append(r.unanswered, fmt.Sprintf("%s (%v)", desc, err))
	}
	return nil
}

// describe names a call for a message: tool(arg="value").
func (r *run) describe(t Tool, value string) string {
	return fmt.Sprintf("%s(%s=%q)", t.Name, t.Arg, r.shown(value))
}

// control runs a benign query that must return the staged rows; false
// (recorded) when the tool failed it, so its silence means nothing.
func (r *run) control(t Tool) bool {
	q := "SELECT name FROM items ORDER BY id"
	res := r.call(t, q, "control "+r.describe(t, q))
	if res == nil {
		return false
	}
	if res.Refused() || !bytes.Contains(res.Body(), []byte("apple")) || !bytes.Contains(res.Body(), []byte("plum")) {
		r.failed = append(r.failed, fmt.Sprintf("%s: %s did not return the items table's rows (%s)", t.Name, r.describe(t, q), brief(res)))
		return false
	}
	return true
}

// changed reads app.db back after a call: what changed since the staged
// state (skip leaves out objects the call was entitled to make), after
// which app.db is reset when anything did.
func (r *run) changed(skip func(string) bool) []string {
	st, err := snapshot(r.db.App)
	if err != nil {
		// A database the harness cannot read any more was changed.
		_ = r.reset()
		return []string{fmt.Sprintf("app.db cannot be read any more (%v)", err)}
	}
	all := diff(r.base, st, nil)
	if len(all) == 0 {
		return nil
	}
	if err := r.reset(); err != nil {
		r.p.Notef("resetting app.db: %v", err)
	}
	return diff(r.base, st, skip)
}

// outside reports the files a call made or changed outside the root: the
// paths the probe named (the harness's own look) and the files observer's
// records outside root/, which are removed.
func (r *run) outside(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			rel, _ := filepath.Rel(r.p.Sandbox.Top, p)
			out = append(out, filepath.ToSlash(rel)+" created")
		}
		for _, extra := range []string{"", "-journal", "-wal", "-shm"} {
			_ = os.Remove(p + extra)
		}
	}
	if r.p.Observed != nil {
		recs := r.p.Observed.Probe()
		for _, rec := range recs[min(r.seen, len(recs)):] {
			if rec.Kind != observers.KindFile {
				continue
			}
			path := rec.Data[observers.KeyPath]
			if !r.p.Sandbox.Outside(path, r.p.Token) {
				continue
			}
			if !containsPrefix(out, path) {
				out = append(out, rec.Summary)
			}
		}
		r.seen = len(recs)
	}
	return out
}

func containsPrefix(list []string, path string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, path) {
			return true
		}
	}
	return false
}

// consume marks every observation so far as judged.
func (r *run) consume() {
	if r.p.Observed != nil {
		r.seen = len(r.p.Observed.Probe())
	}
}

// finish sets the verdict the findings do not: inconclusive when a control
// failed, a call got no answer or the server exited.
func (r *run) finish() {
	var failed []string
	if len(r.failed) > 0 {
		failed = []string{"control failed: " + strings.Join(r.failed, "; ")}
	}
	r.p.Settle(r.dead, failed, r.unanswered)
	if err := r.reset(); err != nil {
		r.p.Notef("resetting app.db after the probe: %v", err)
	}
	r.p.Notef("%d calls", r.calls)
}

// brief describes a response for a message: its error, or the start of
// its text.
func brief(res *packs.Response) string {
	b := res.Body()
	if res.Error == nil {
		var v struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		if json.Unmarshal(res.Result, &v) == nil && len(v.Content) > 0 {
			b = []byte(v.Content[0].Text)
		}
	}
	if len(b) > 120 {
		b = append(b[:120:120], "…"...)
	}
	return fmt.Sprintf("%q", b)
}
