package exec_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/realserver"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

// TestDesktopCommander pins the exec pack's verdicts on the real
// @wonderwhy-er/desktop-commander 0.2.52 (start_process runs a line in
// /bin/sh). Checked by hand once, outside the harness, with a Python
// driver speaking JSON-RPC to dist/index.js in a throwaway HOME with
// SEALMARK_FAKE_API_KEY=sk-hand-check-... in its environment:
//
//   - start_process("printenv SEALMARK_FAKE_API_KEY") answered "Initial
//     output: sk-hand-check-...": children inherit the server's whole
//     environment (env-inheritance, critical);
//   - start_process("head -c 104857600 /dev/zero | tr '\0' x", 5000 ms)
//     answered with one 1,343,696-byte line: whatever came before
//     timeout_ms, unbounded (output-flood, medium);
//   - start_process("sleep 600 &") and ("sleep 700", 1000 ms) returned at
//     once and after 1 s ("Process is running"): no hang, the timeout only
//     stops the wait (timeout and background-hang pass);
//   - with stdin closed it was still running 20 s later, and once killed
//     both sleeps lived on re-parented to init: its children outlive it.
//     Checked again the way outlives-server stops it: the same driver
//     (node dist/index.js in its own session, HOME a throwaway directory)
//     sent initialize, notifications/initialized and tools/call
//     start_process {"command":"setsid -f sleep 611","timeout_ms":3000},
//     closed stdin (still alive 5 s later), sent SIGTERM to the node pid
//     (it exited, -15) and pgrep found sleep 611 alive. outlives-server
//     (stdin closed, then SIGTERM) lists every sm-sleep the probes
//     started, setsid -f's and the timed-out one's among them (high).
//
// The injection, bypass and working-directory probes are not applicable:
// sm-canary asked for by name runs (a shell by design, nothing to get
// around).
func TestDesktopCommander(t *testing.T) {
	t.Parallel()
	script := realserver.DesktopCommander.CwdArg(t)
	dir := t.TempDir()
	cfg := config("node", script)
	// The product's default call timeout, as a user runs it: the probes ask
	// the tool for half of it (5 s), and a loaded machine's node needs the
	// rest of it as slack (at the fixtures' 3 s, background-hang once took
	// a slow answer for a hang).
	cfg.CallTimeout = 10 * time.Second
	// Node loading desktop-commander's modules took past 20 s to answer
	// initialize while CI ran the other packages' tests beside it.
	cfg.StartTimeout = 60 * time.Second
	rep, err := packtest.Run(dir, cfg)
	require.NoError(t, err)
	require.Empty(t, rep.HarnessError)
	require.Len(t, rep.Packs, 1)
	verdicts := map[string]packs.Verdict{}
	for _, p := range rep.Packs[0].Probes {
		verdicts[p.ID] = p.Verdict
		switch p.ID {
		case "EXEC-INJECT-SEPARATOR", "EXEC-INJECT-SUBSTITUTION", "EXEC-INJECT-EXPANSION", "EXEC-INJECT-OPTION", "EXEC-ALLOWLIST-BYPASS", "EXEC-WORKDIR-ESCAPE":
			assert.Equal(t, packs.NotApplicable, p.Verdict, "%s: %s", p.ID, p.Reason)
			assert.Contains(t, p.Reason, "start_process runs any program it is given", p.ID)
		case "EXEC-ENV-INHERITANCE":
			require.Equal(t, packs.Failed, p.Verdict, p.Reason)
			// Whichever form got there first (printenv SEALMARK_FAKE_API_KEY, or
			// sm-echo with both names) is the finding: the key came back
			// through a child the server ran.
			assert.Equal(t, "start_process passes the server's environment to the programs it runs: a child printed a canary secret into the result", p.Findings[0].Message)
			assert.Regexp(t, `start_process\(command="(printenv SEALMARK_FAKE_API_KEY|printenv SEALMARK_CANARY|sm-echo \$SEALMARK_CANARY \$\{SEALMARK_FAKE_API_KEY\})"\) revealed (SEALMARK_CANARY|SEALMARK_FAKE_API_KEY|SEALMARK_CANARY, SEALMARK_FAKE_API_KEY) from the server's environment through its child (printenv|sm-echo)`, evidence(p.Findings[0]))
		case "EXEC-OUTPUT-FLOOD":
			require.Equal(t, packs.Failed, p.Verdict, p.Reason)
			assert.Contains(t, p.Findings[0].Message, `start_process(command="sm-spew 104857600") returned more than 1 MiB of its child's output in one message`)
		case "EXEC-TIMEOUT", "EXEC-BACKGROUND-HANG":
			assert.Equal(t, packs.Passed, p.Verdict, "%s: %s %v", p.ID, p.Reason, p.Findings)
		case "EXEC-OUTLIVES-SERVER":
			require.Equal(t, packs.Failed, p.Verdict, "%s: %v", p.Reason, p.Findings)
			var msgs []string
			for _, f := range p.Findings {
				msgs = append(msgs, f.Message)
			}
			all := strings.Join(msgs, "\n")
			assert.Contains(t, all, `a child outlived the server: ["sm-sleep","600"], started by start_process(command="setsid -f sm-sleep 600") by background-hang (setsid -f)`)
			assert.Regexp(t, `a child outlived the server: .*sm-sleep.*3600.*, started by start_process\(command="sm-sleep 3600"\) by timeout`, all)
			assert.Contains(t, strings.Join(p.Notes, "\n"), "still running 5s after its stdin closed (core's exits-on-stdin-close judges that): stopped with SIGTERM")
		default:
			t.Errorf("%s: a probe this test does not pin (%s)", p.ID, p.Verdict)
		}
	}
	assert.Len(t, verdicts, len(rep.Packs[0].Probes))
	var orphans []string
	for _, r := range rep.Timeline {
		if r.Kind == observers.KindProcess && r.Data["op"] == "orphan" && strings.Contains(r.Data["argv"], "sm-sleep") {
			orphans = append(orphans, r.Data["argv"])
		}
	}
	assert.NotEmpty(t, orphans, "the sm-sleep children the probes started outlive the server: the stop's sweep must record them")
	leftovers(t, dir)
}
