package fs_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// realServer skips unless node and the pinned package (installed by
// .ci/run with npm ci in testdata/npm) are there, and returns the script's
// path as a {cwd} template.
func realServer(t *testing.T, pkg string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the real file servers cannot run")
	}
	rel := filepath.Join("..", "..", "testdata", "npm", "node_modules", pkg, "dist", "index.js")
	if _, err := os.Stat(rel); err != nil {
		t.Skipf("%s is not installed (run npm ci in testdata/npm): %v", rel, err)
	}
	return "{cwd}/../../testdata/npm/node_modules/" + pkg + "/dist/index.js"
}

// TestRealServers runs the fs pack, passive and active, against the
// pinned reference file servers: 0.6.2 has the prefix-only check
// (CVE-2025-53110) and follows links when the target is new or outside
// (CVE-2025-53109); the newest release must pass every probe.
func TestRealServers(t *testing.T) {
	t.Run("server-filesystem-0.6.2", func(t *testing.T) {
		t.Parallel()
		script := realServer(t, "fs-0.6.2")
		rep := runFS(t, "node", script, "{sandbox}")
		expect(t, rep, map[string][]string{
			"FS-READ-PREFIX-SIBLING": {
				`read_file(path="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`,
				`list_directory(path="{sandbox}-evil") listed root-evil/evil.txt`,
				`search_files(path="{sandbox}-evil", pattern=".") listed root-evil/evil.txt`,
			},
			"FS-READ-LINK-FILE": {
				`read_file(path="{sandbox}/link-file") returned the content of canary/secret.txt`,
				`get_file_info(path="{sandbox}/link-file") returned the metadata of canary/secret.txt`,
			},
			"FS-READ-LINK-DIR": {`list_directory(path="{sandbox}/link-dir") listed canary/secret.txt, canary/id_rsa`},
			"FS-WRITE-PREFIX-SIBLING": {
				`write_file(path="{sandbox}-evil/sealmark-`,
				`create_directory(path="{sandbox}-evil/sealmark-`,
				`move_file(source="{sandbox}-evil/evil.txt", destination="{sandbox}/sealmark-`,
			},
			"FS-WRITE-LINK-FILE": {`write_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
		})
	})
	t.Run("server-filesystem-latest", func(t *testing.T) {
		t.Parallel()
		script := realServer(t, "fs-latest")
		rep := runFS(t, "node", script, "{sandbox}")
		expect(t, rep, nil)
	})
}
