//go:build unix

package cleanup

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestOnSignalCallsFirst(t *testing.T) {
	got := make(chan os.Signal, 1)
	stop := OnSignal(func(sig os.Signal) { got <- sig })
	defer stop()
	assert.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	select {
	case sig := <-got:
		assert.Equal(t, syscall.SIGHUP, sig)
	case <-time.After(5 * time.Second):
		t.Fatal("the first signal did not reach the handler")
	}
}

func TestExitCode(t *testing.T) {
	assert.Equal(t, 130, ExitCode(os.Interrupt))
	assert.Equal(t, 143, ExitCode(syscall.SIGTERM))
	assert.Equal(t, 129, ExitCode(syscall.SIGHUP))
}
