package launch_test

import (
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/launch"
)

func TestEveryStdoutLineIsAFrame(t *testing.T) {
	p := start(t, "mixed", launch.Spec{})
	msgs := readMessages(p)
	lines := msgs.all(t)
	r := p.Stop(5*time.Second, 5*time.Second)

	want := []struct {
		kind launch.FrameKind
		data string
	}{
		{launch.Garbage, "starting server v1.0"},
		{launch.Blank, ""},
		{launch.Blank, "  \t"},
		{launch.JSON, `{"jsonrpc":"2.0","method":"a"}`}, // its "\r\n" ending removed
		{launch.Garbage, "not json {"},
		{launch.JSON, `{"partial":true}`}, // unterminated at EOF
	}
	frames := p.Frames(0)
	if len(frames) != len(want) {
		t.Fatalf("got %d frames %+v, want %d", len(frames), frames, len(want))
	}
	for i, w := range want {
		f := frames[i]
		if f.Seq != i || f.Kind != w.kind || string(f.Data) != w.data || f.Size != int64(len(w.data)) || f.Time.IsZero() {
			t.Errorf("frame %d = {Seq:%d Kind:%s Data:%q Size:%d Time:%v}, want {Seq:%d Kind:%s Data:%q Size:%d}",
				i, f.Seq, f.Kind, f.Data, f.Size, f.Time, i, w.kind, w.data, len(w.data))
		}
	}
	wantLines := []string{`{"jsonrpc":"2.0","method":"a"}` + "\n", `{"partial":true}` + "\n"}
	if strings.Join(lines, "") != strings.Join(wantLines, "") {
		t.Errorf("Messages = %q, want only the JSON lines %q", lines, wantLines)
	}
	if got := p.FrameCount(); got != len(want) {
		t.Errorf("FrameCount() = %d, want %d", got, len(want))
	}
	if got := len(p.Frames(4)); got != 2 {
		t.Errorf("len(Frames(4)) = %d, want 2", got)
	}
	if got := p.Frames(len(want)); len(got) != 0 {
		t.Errorf("Frames(%d) = %v, want none", len(want), got)
	}
	if r.Status != "exit status 3" || p.ExitStatus() != "exit status 3" {
		t.Errorf("Status = %q, ExitStatus() = %q, want %q", r.Status, p.ExitStatus(), "exit status 3")
	}

	frames[0].Data[0] = 'X'
	if got := string(p.Frames(0)[0].Data); got != "starting server v1.0" {
		t.Errorf("changing a returned frame changed the record: %q", got)
	}
}

func TestOverlongLinesAreOversizeFrames(t *testing.T) {
	p := start(t, "oversize", launch.Spec{MaxLine: 1024})
	lines := readMessages(p).all(t)
	p.Stop(5*time.Second, 5*time.Second)

	frames := p.Frames(0)
	if len(frames) != 4 {
		t.Fatalf("got %d frames, want 4", len(frames))
	}
	check := func(i int, kind launch.FrameKind, data string, size int64) {
		t.Helper()
		f := frames[i]
		if f.Kind != kind || string(f.Data) != data || f.Size != size {
			t.Errorf("frame %d = {Kind:%s len(Data):%d Size:%d}, want {Kind:%s len(Data):%d Size:%d}",
				i, f.Kind, len(f.Data), f.Size, kind, len(data), size)
		}
	}
	check(0, launch.Garbage, strings.Repeat("a", 1024), 1024) // exactly MaxLine is kept
	check(1, launch.Oversize, strings.Repeat("b", 1025), 1025)
	check(2, launch.Oversize, strings.Repeat("y", 4096), 10000) // first 4 KiB, "\r\n" not counted
	check(3, launch.JSON, `{"after":1}`, 11)                    // framing resumes after the discarded line
	if want := `{"after":1}` + "\n"; len(lines) != 1 || lines[0] != want {
		t.Errorf("Messages = %q, want [%q]", lines, want)
	}
}

func TestHugeLineWithoutNewlineCostsBoundedMemory(t *testing.T) {
	const size = 100 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	p := start(t, "bigline", launch.Spec{})
	lines := readMessages(p).all(t)
	if !p.WaitExit(10 * time.Second) {
		t.Fatal("the server did not exit after writing")
	}
	runtime.ReadMemStats(&after)

	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading a %d MiB line allocated %.1f MiB", size>>20, float64(alloc)/(1<<20))
	if alloc > 32<<20 {
		t.Errorf("reading a %d MiB line allocated %d MiB, want well below it (at most 32 MiB)", size>>20, alloc>>20)
	}
	frames := p.Frames(0)
	if len(frames) != 1 || frames[0].Kind != launch.Oversize || frames[0].Size != size || len(frames[0].Data) != 4096 {
		t.Fatalf("frames = %d, want 1 oversize frame of Size %d with 4096 bytes of Data", len(frames), size)
	}
	if len(lines) != 0 {
		t.Errorf("Messages got %d lines, want none", len(lines))
	}
}

func TestFrameDataIsCappedOldestFirst(t *testing.T) {
	p := start(t, "lines", launch.Spec{MaxFrameBytes: 1000})
	readMessages(p).all(t)
	p.Stop(5*time.Second, 5*time.Second)

	frames := p.Frames(0)
	if len(frames) != 100 || p.FrameCount() != 100 {
		t.Fatalf("got %d frames (FrameCount %d), want 100", len(frames), p.FrameCount())
	}
	var held int64
	firstHeld := -1
	for _, f := range frames {
		if f.Size != 100 || f.Kind != launch.JSON {
			t.Errorf("frame %d: Kind %s Size %d, want json 100", f.Seq, f.Kind, f.Size)
		}
		if f.Data == nil {
			if firstHeld >= 0 {
				t.Errorf("frame %d lost its data after frame %d kept it: not oldest first", f.Seq, firstHeld)
			}
			continue
		}
		if firstHeld < 0 {
			firstHeld = f.Seq
		}
		held += int64(len(f.Data))
	}
	if held > 1000 || held < 900 {
		t.Errorf("frames hold %d bytes of data, want the most recent that fit in 1000", held)
	}
	if got, want := p.FramesLost(), 100*100-held; got != want {
		t.Errorf("FramesLost() = %d, want %d", got, want)
	}
}

func TestFrameRecordsAreCapped(t *testing.T) {
	p := start(t, "blanks", launch.Spec{MaxFrameBytes: 1000}) // at least 1024 records are kept
	readMessages(p).all(t)
	p.Stop(5*time.Second, 5*time.Second)

	if got := p.FrameCount(); got != 3000 {
		t.Errorf("FrameCount() = %d, want 3000", got)
	}
	frames := p.Frames(0)
	if len(frames) != 1024 || frames[0].Seq != 3000-1024 || frames[1023].Seq != 2999 {
		t.Fatalf("Frames(0) has %d frames, want the 1024 most recent (Seq 1976..2999)", len(frames))
	}
	if got := p.Frames(2990); len(got) != 10 || got[0].Seq != 2990 {
		t.Errorf("Frames(2990) = %d frames, want 10 from Seq 2990", len(got))
	}
}

func TestMessagesIsTheInputForAnMCPClient(t *testing.T) {
	p := start(t, "echo", launch.Spec{})
	msgs := readMessages(p)
	req := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	if _, err := io.WriteString(p.Input(), req); err != nil {
		t.Fatal(err)
	}
	waitFrame(t, p, `"method":"ping"`)
	if err := p.Input().Close(); err != nil {
		t.Fatal(err)
	}
	if lines := msgs.all(t); len(lines) != 1 || lines[0] != req {
		t.Errorf("Messages = %q, want [%q]", lines, req)
	}
}
