package launch

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/serverlog"
)

// TestDrainedStates walks a pipe reader through each state by hand: bytes
// in the pipe, bytes read but not yet taken in (the reader has not asked
// for more), then taken in.
func TestDrainedStates(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	pr := newPipeReader(r)
	require.True(t, pr.Drained(), "an empty pipe, a reader that read nothing")

	_, err = w.Write([]byte("line one\n"))
	require.NoError(t, err)
	require.False(t, pr.Drained(), "the bytes wait in the pipe")

	buf := make([]byte, 64)
	n, err := pr.Read(buf)
	require.NoError(t, err)
	require.Equal(t, "line one\n", string(buf[:n]))
	require.False(t, pr.Drained(), "read, but the reader has not asked for more: not yet taken in")

	require.NoError(t, w.Close())
	n, err = pr.Read(buf) // asking for more takes the last bytes in
	require.Zero(t, n)
	require.Error(t, err)
	require.False(t, pr.Drained(), "the end is read, the reader is not finished")
	pr.finish()
	require.True(t, pr.Drained())
}

// TestDrainedMeansLogged: whenever Drained is true, every byte written so
// far is in the log, whatever the sizes of the writes (past the pipe's
// buffer too).
func TestDrainedMeansLogged(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	pr := newPipeReader(r)
	log := serverlog.New(1 << 24)
	done := make(chan struct{})
	go func() {
		defer close(done)
		copyLog(log, pr)
		pr.finish()
	}()
	var written int64
	hang := time.Now().Add(time.Minute) // a bound for a hang, never reached when it works
	for i := range 300 {
		n := 1 + i*7919%100_000
		_, err := w.Write(bytes.Repeat([]byte{'x'}, n))
		require.NoError(t, err)
		written += int64(n)
		for !pr.Drained() {
			require.True(t, time.Now().Before(hang), "never drained after write %d", i)
			time.Sleep(50 * time.Microsecond)
		}
		require.Equal(t, written, log.Total(), "drained after write %d", i)
	}
	require.NoError(t, w.Close())
	<-done
	require.True(t, pr.Drained())
}
