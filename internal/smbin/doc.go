// Package smbin implements the harness-owned programs that a sandbox's bin
// directory holds: sm-canary, sm-echo, sm-sleep and sm-spew.
//
// They are not separate binaries. Each bin/sm-* entry is a link to the harness
// binary itself (the sealmark binary, or the test binary under go test), and
// the harness decides what to be from the name it was started under:
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
// What each program does:
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
