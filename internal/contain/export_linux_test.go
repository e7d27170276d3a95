package contain

import (
	"errors"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// CgroupHome is cgroupHome, for the external tests: the harness's own
// cgroup v2 directory, where its leaves are made.
var CgroupHome = cgroupHome

// OffMainEnv in a shim's environment makes it run on a thread other than
// its process's main one (the thread the harness's clone made, which holds
// the Pdeathsig that clone asked for), as a Go program's main goroutine
// may do once it has moved between threads: see TestLingerOffTheMainThread.
const OffMainEnv = "SEALMARK_TEST_SHIM_OFF_MAIN"

func init() {
	if len(os.Args) < 2 || os.Args[1] != Verb || os.Getenv(OffMainEnv) == "" {
		return
	}
	// Locked during initialisation, the main goroutine keeps the main
	// thread into main: the shim's goroutine cannot run there.
	runtime.LockOSThread()
	runShim = func(args []string) int {
		code := make(chan int)
		go func() {
			if unix.Gettid() == os.Getpid() {
				code <- fail("test", errors.New("the shim runs on the main thread, not off it"))
				return
			}
			code <- shimMain(args)
		}()
		return <-code
	}
}

// V1Home is v1Home, for the external tests: the harness's own group in
// the cgroup v1 hierarchy of a controller.
var V1Home = v1Home
