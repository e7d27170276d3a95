package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/slowtest"
)

// TestShimExecFailureWords: a server program the containment shim cannot
// execute ends the start with a message that says so, word for word, with
// the shim's own line saying why: a script whose interpreter is missing
// (127), a file that is no program (126).
func TestShimExecFailureWords(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the shim's failure to execute a server, word for word")
	}
	dir := t.TempDir()
	noInterp := filepath.Join(dir, "server.sh")
	require.NoError(t, os.WriteFile(noInterp, []byte("#!/nonexistent/interp -x\necho hi\n"), 0o755))
	garbage := filepath.Join(dir, "server.bin")
	require.NoError(t, os.WriteFile(garbage, []byte("\x00\x01 not a program\n"), 0o755))
	for _, tc := range []struct {
		name, path, want string
	}{
		{"no-interpreter", noInterp, "pack core: the containment shim could not execute the server's program (exit status 127, after {elapsed})\n" +
			"server log (last lines):\n" +
			"sealmark-contain: exec {install}/server.sh: no such file or directory (the program is there; its interpreter, #!/nonexistent/interp -x, is not)\n"},
		{"not-a-program", garbage, "pack core: the containment shim could not execute the server's program (exit status 126, after {elapsed})\n" +
			"server log (last lines):\n" +
			"sealmark-contain: exec {install}/server.bin: exec format error (neither a #! script nor a program for this machine)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := engine.New(engine.Config{Catalog: catalogue.All,
				Command: tc.path, Packs: []string{"core"}, SandboxDir: t.TempDir(),
				StartTimeout: slowtest.Scale(5 * time.Second), CallTimeout: 2 * time.Second,
				StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
			})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rep := e.Run(ctx, engine.Hooks{})
			if !strings.Contains(rep.Sandbox.Isolation, "pdeathsig") {
				t.Skipf("no containment shim here: %s", rep.Sandbox.Isolation)
			}
			got := shimElapsed.ReplaceAllString(rep.HarnessError, "after {elapsed})")
			assert.Equal(t, tc.want, got)
		})
	}
}

var shimElapsed = regexp.MustCompile(`after [0-9.]+m?s\)`)
