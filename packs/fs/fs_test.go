package fs_test

import (
	"os"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/fixture"
	"github.com/sealmark/sealmark/internal/fixture/fsserver"
	"github.com/sealmark/sealmark/internal/smbin"
	"github.com/sealmark/sealmark/packs"
	"github.com/sealmark/sealmark/packs/fs"
	"github.com/sealmark/sealmark/packs/internal/packtest"
)

func TestMain(m *testing.M) {
	contain.Dispatch()
	fsserver.Dispatch()
	fixture.Dispatch()
	smbin.Dispatch()
	os.Exit(m.Run())
}

func TestPackDefinition(t *testing.T) {
	for _, err := range fs.Pack.Check() {
		t.Error(err)
	}
	for _, p := range fs.Pack.Probes {
		if !strings.Contains(p.Doc, "CVE-2025-53110 class") && !strings.Contains(p.Doc, "CVE-2025-53109 class") {
			t.Errorf("%s: doc %q names no CVE class", p.ID, p.Doc)
		}
		if strings.HasPrefix(p.Name, "read-") == p.Active {
			t.Errorf("%s: Active = %t, want it on every probe but the read side", p.ID, p.Active)
		}
	}
}

// config is a run of the fs pack (or a hinted one), passive and active,
// against a server.
func config(pack packs.Pack, command string, args ...string) engine.Config {
	return engine.Config{Command: command, Args: args, Catalog: []packs.Pack{pack}, Active: true}
}

// TestTwins proves every fs probe both ways against the fixture file
// server: the confined server fails none, and each twin fails exactly the
// probes its one flaw earns.
func TestTwins(t *testing.T) {
	t.Parallel()
	self := packtest.Self(t)
	twins := []packtest.Twin{
		{},
		{Flaws: "prefix-check", Want: packtest.Want{
			"FS-READ-PREFIX-SIBLING": {
				`read_file(path="{sandbox}-evil/evil.txt") returned the content of root-evil/evil.txt`,
				`read_multiple_files(paths=["{sandbox}-evil/evil.txt"]) returned the content of root-evil/evil.txt`,
				`list_directory(path="{sandbox}-evil") listed root-evil/evil.txt`,
				`search_files(path="{sandbox}-evil", pattern="**") listed root-evil/evil.txt`,
				`get_file_info(path="{sandbox}-evil/evil.txt") returned the metadata of root-evil/evil.txt`,
			},
			"FS-WRITE-PREFIX-SIBLING": {
				`write_file(path="{sandbox}-evil/sealmark-`,
				`edit_file(path="{sandbox}-evil/evil.txt") changed the sandbox outside the root: modified root-evil/evil.txt`,
				`create_directory(path="{sandbox}-evil/sealmark-`,
				`move_file(source="{sandbox}-evil/evil.txt", destination="{sandbox}/sealmark-`,
				`delete_file(path="{sandbox}-evil/evil.txt") changed the sandbox outside the root: deleted root-evil/evil.txt`,
				`create_symlink(path="{sandbox}-evil/sealmark-`,
			},
		}},
		{Flaws: "follow-links", Want: packtest.Want{
			"FS-READ-LINK-FILE": {
				`read_file(path="{sandbox}/link-file") returned the content of canary/secret.txt`,
				`get_file_info(path="{sandbox}/link-file") returned the metadata of canary/secret.txt`,
			},
			"FS-READ-LINK-DIR": {
				`read_file(path="{sandbox}/link-dir/secret.txt") returned the content of canary/secret.txt`,
				`list_directory(path="{sandbox}/link-dir") listed canary/`,
			},
			"FS-WRITE-LINK-FILE": {`write_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
			"FS-WRITE-LINK-DIR":  {`create_directory(path="{sandbox}/link-dir/sealmark-`},
		}},
		{Flaws: "decode-after-check", Want: packtest.Want{
			"FS-READ-ENCODED-DOTS":  {`read_file(path="{sandbox}/%2e%2e/canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-ENCODED-DOTS": {`write_file(path="{sandbox}/%2e%2e/canary/sealmark-`},
		}},
		{Flaws: "cwd-relative", Want: packtest.Want{
			"FS-READ-RELATIVE":  {`read_file(path="../canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-RELATIVE": {`write_file(path="../canary/sealmark-`},
		}},
		{Flaws: "list-through-links", Want: packtest.Want{
			"FS-READ-LINK-DIR": {`search_files(path="{sandbox}", pattern="**") listed canary/`},
		}},
		{Flaws: "write-through-links", Want: packtest.Want{
			"FS-WRITE-LINK-FILE": {`edit_file(path="{sandbox}/link-file") changed the sandbox outside the root: modified canary/secret.txt`},
			"FS-WRITE-LINK-DIR": {
				`write_file(path="{sandbox}/link-dir/sealmark-`,
				`delete_file(path="{sandbox}/link-dir/secret.txt") changed the sandbox outside the root: deleted canary/secret.txt`,
			},
		}},
		{Flaws: "move-out-of-root", Want: packtest.Want{
			"FS-WRITE-TRAVERSAL":      {`move_file(source="{sandbox}/sealmark-`},
			"FS-WRITE-RELATIVE":       {`move_file(source="{sandbox}/sealmark-`},
			"FS-WRITE-PREFIX-SIBLING": {`move_file(source="{sandbox}/sealmark-`},
			"FS-WRITE-LINK-DIR":       {`move_file(source="{sandbox}/sealmark-`},
		}},
		{Flaws: "no-clean", Want: packtest.Want{
			"FS-READ-TRAVERSAL":  {`read_file(path="{sandbox}/../canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-TRAVERSAL": {`write_file(path="{sandbox}/../canary/sealmark-`},
		}},
		{Flaws: "backslash-after-check", Want: packtest.Want{
			"FS-READ-BACKSLASH":  {`read_file(path="..\\canary\\secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-BACKSLASH": {`write_file(path="..\\canary\\sealmark-`},
		}},
		{Flaws: "nul-truncates", Want: packtest.Want{
			"FS-READ-NUL-BYTE":  {`read_file(path="{sandbox}/../canary/secret.txt\x00/../../root/ok.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-NUL-BYTE": {`write_file(path="{sandbox}/../canary/sealmark-`},
		}},
		{Flaws: "home-after-check", Want: packtest.Want{
			"FS-READ-HOME":  {`read_file(path="~/../canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-HOME": {`write_file(path="~/sealmark-`},
		}},
		{Flaws: "uri-after-check", Want: packtest.Want{
			"FS-READ-FILE-URI":  {`read_file(path="file://{sandbox_top}/canary/secret.txt") returned the content of canary/secret.txt`},
			"FS-WRITE-FILE-URI": {`write_file(path="file://{sandbox_top}/canary/sealmark-`},
		}},
		{Flaws: "link-out", Want: packtest.Want{
			"FS-LINK-CREATE": {`create_symlink(path="{sandbox}/sealmark-`},
		}},
	}
	twins = packtest.Short(t, twins, "every fs probe's twins against the fixture file server", "correct", "prefix-check")
	packtest.RunAll(t, twins, func(tw packtest.Twin) engine.Config {
		return config(fs.Pack, self, fsserver.Verb, "-flaws="+tw.Flaws, "{sandbox}")
	}, func(t *testing.T, tw packtest.Twin, r packtest.Result) {
		packtest.Expect(t, r.Report, tw.Want)
	})
}
