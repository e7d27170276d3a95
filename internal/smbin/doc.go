// Package smbin implements the harness-owned programs that a sandbox's bin
// directory holds: sm-canary, sm-echo, sm-sleep and sm-spew.
//
//	helper, err := smbin.InstallHelper(sandboxBin) // bin/sealmark-sm, built or cached
//	if err == nil {
//		for _, n := range smbin.Names {
//			os.Symlink(filepath.Base(helper), filepath.Join(sandboxBin, n)) // bin/sm-echo -> sealmark-sm
//		}
//	} // else link bin/sm-* to the harness binary, which calls Dispatch first
//
// They are one small binary, the helper: bin/sealmark-sm, a copy made for
// each sandbox, with each bin/sm-* a relative link to it, so the programs
// live inside the sandbox (a contained server sees them wherever the
// harness binary is) and start in a millisecond or two instead of the
// tens of milliseconds the harness binary's start costs. The helper is
// built from this package's own program files (program.go, programs.go,
// execlog.go, nofollow_*.go: the standard library only) and
// helper/main.go.txt, which the harness embeds: on a process's first need
// [InstallHelper] finds it in os.UserCacheDir()/sealmark/sm-<hash> (the
// hash of those sources and the platform), or builds it there with the Go
// toolchain on PATH (GOTOOLCHAIN=local, GOPROXY=off, CGO_ENABLED=0, the
// user's build cache, at most two minutes: about a second with a warm
// build cache, half a minute or more with an empty one on two loaded
// cores; -trimpath when the harness was built with it, so the build cache
// that built the harness is reused). A cache that another user could write
// (a root harness with a user's HOME) is neither built into nor run. Each
// copy is checked by running it once (-self-check), and a cached binary
// that answers wrongly is built again.
//
// Without it (no go command on PATH and nothing cached, a build error, a
// bin where nothing may run, SEALMARK_SM_HELPER=off) each bin/sm-* is a
// link to the harness binary itself (the sealmark binary, or the test
// binary under go test), as before the helper existed, and the sandbox's
// notes, hence the report's warnings, say why. The harness decides what to
// be from the name it was started under:
//
//	func main() {
//		smbin.Dispatch() // runs sm-* and exits when started as one; returns otherwise
//		os.Exit(run(os.Args[1:]))
//	}
//
// A test binary does the same first thing in TestMain:
//
//	func TestMain(m *testing.M) {
//		smbin.Dispatch()
//		os.Exit(m.Run())
//	}
//
// Both ways run the same code, so the programs behave the same
// (TestHelperBehavesAsTheHarness). What each program does:
//
//	sm-canary ARGS...  prints "SEALMARK-CANARY-EXECUTED ARGS..." (proves execution)
//	sm-echo ARGS...    prints its arguments as a JSON array (argument splitting, injection)
//	sm-sleep N         sleeps N seconds, N may be fractional (timeouts, orphans)
//	sm-spew N          writes N bytes of 'x' to stdout (output bounding)
//
// Every run first appends one JSON line to the file [ExecLog] in the
// directory it was started from (the sandbox's bin), so the harness learns of
// an execution even when the program's output never reaches it. [ReadExecLog]
// reads that file back.
package smbin
