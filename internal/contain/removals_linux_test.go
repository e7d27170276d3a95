package contain_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
	"github.com/sealmark/sealmark/observers"
	"github.com/sealmark/sealmark/observers/egress"
)

func init() {
	// changes waits for a line on stdin, then, in its working directory
	// (the sandbox), makes a directory, creates a file and renames it
	// through a directory descriptor, links it (hard, then symbolic),
	// removes the symbolic link and the directory, makes a FIFO and
	// truncates the file; outside the sandbox, in args[0], it tries to
	// delete args[0]/keep through a descriptor of args[0], to move it into
	// the sandbox, and to make a directory; where they exist (amd64) the
	// path-only calls too. It prints each error.
	children["changes"] = func(args []string) int {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		r := result{}
		dir, err := unix.Open(".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		defer unix.Close(dir)
		r["mkdir"] = errText(unix.Mkdirat(unix.AT_FDCWD, "made", 0o750))
		if err := os.WriteFile("f", []byte("x"), 0o600); err != nil {
			return emit(result{"err": errText(err)})
		}
		r["rename"] = errText(unix.Renameat(dir, "f", dir, "g"))
		r["rename2"] = errText(unix.Renameat2(dir, "g", unix.AT_FDCWD, "g2", unix.RENAME_NOREPLACE))
		r["link"] = errText(unix.Linkat(dir, "g2", unix.AT_FDCWD, "h", 0))
		r["symlink"] = errText(unix.Symlinkat("g2", dir, "s"))
		r["unlink"] = errText(unix.Unlinkat(dir, "s", 0))
		r["rmdir"] = errText(unix.Unlinkat(unix.AT_FDCWD, "made", unix.AT_REMOVEDIR))
		r["mknod"] = errText(unix.Mknodat(dir, "fifo", unix.S_IFIFO|0o600, 0))
		r["truncate"] = errText(unix.Truncate("g2", 0))
		out, err := unix.Open(args[0], unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return emit(result{"err": errText(err)})
		}
		defer unix.Close(out)
		r["outside-unlink"] = errText(unix.Unlinkat(out, "keep", 0))
		r["outside-rename"] = errText(unix.Renameat(unix.AT_FDCWD, args[0]+"/keep", dir, "stolen"))
		r["outside-mkdir"] = errText(unix.Mkdirat(unix.AT_FDCWD, args[0]+"/made", 0o755))
		legacyChanges(r, args[0])
		return emit(r)
	}
}

// change is what a test expects of one record of a change to an entry.
type change struct{ op, syscall, path, second, extra string }

// changeOf is a record as a change: second is a rename's destination or a
// link's target, extra its flags, mode or length.
func changeOf(rec observers.Record) change {
	c := change{op: rec.Data["op"], syscall: rec.Data["syscall"], path: rec.Data["path"], second: rec.Data["to"] + rec.Data["target"]}
	c.extra = rec.Data["flags"] + rec.Data["mode"] + rec.Data["length"]
	return c
}

// TestChangesRecorded runs a server that deletes, renames, links and
// makes entries inside and outside the sandbox under the seccomp layer,
// without and with namespaces: each call is recorded, in order, with its
// paths absolute (a relative one resolved against the directory
// descriptor it was given with, or the working directory), as
// "continue"; what each call returned is the same as without the filter,
// and Landlock refuses the ones outside.
func TestChangesRecorded(t *testing.T) {
	needLayer(t, "seccomp-notify")
	for _, ns := range []bool{false, true} {
		t.Run("netns="+strconv.FormatBool(ns), func(t *testing.T) {
			if ns {
				needLayer(t, "netns")
			}
			attempt := func(egressOn bool) (launch.Spec, string, result, []observers.Record) {
				outside := t.TempDir()
				require.NoError(t, os.WriteFile(filepath.Join(outside, "keep"), []byte("keep"), 0o600))
				spec := childSpec(t, "changes", outside)
				o := contain.Options{Egress: egressOn, NetNS: ns, SandboxTop: spec.Dir, Landlock: true}
				var proc *launch.Process
				var obs *egress.Observer
				if egressOn {
					proc, obs = startObserved(t, spec, o, nil)
					obs.Begin("probe-1")
				} else {
					w, hand, err := contain.WrapEgress(spec, o)
					require.NoError(t, err)
					require.Nil(t, hand)
					proc, err = launch.Start(w)
					require.NoError(t, err)
				}
				_, err := proc.Input().Write([]byte("go\n"))
				require.NoError(t, err)
				r := readResult(t, proc)
				require.Equal(t, "", r.str("err"))
				proc.Stop(0, 5e9)
				var rs []observers.Record
				if obs != nil {
					rs = append(obs.Collect("probe-1"), obs.Close()...)
				}
				return spec, outside, r, rs
			}
			_, _, plain, _ := attempt(false)
			spec, outside, r, rs := attempt(true)
			t.Logf("outcomes: %v", r)
			assert.Equal(t, plain, r, "the observer changes no call's outcome")
			for _, k := range []string{"mkdir", "rename", "rename2", "link", "symlink", "unlink", "rmdir", "mknod", "truncate"} {
				assert.Equal(t, "", r.str(k), k)
			}
			if contain.Probe().For(contain.Options{Landlock: true, NetNS: ns}).LandlockFS.Applied {
				for _, k := range []string{"outside-unlink", "outside-rename", "outside-mkdir"} {
					assert.NotEqual(t, "", r.str(k), "%s refused", k)
				}
				_, err := os.Stat(filepath.Join(outside, "keep"))
				assert.NoError(t, err, "the file outside is still there")
			}

			d := spec.Dir
			want := []change{
				{"mkdir", "mkdirat", d + "/made", "", "0750"},
				{"rename", "renameat", d + "/f", d + "/g", ""},
				{"rename", "renameat2", d + "/g", d + "/g2", "RENAME_NOREPLACE"},
				{"link", "linkat", d + "/h", d + "/g2", ""},
				{"link", "symlinkat", d + "/s", "g2", ""},
				{"remove", "unlinkat", d + "/s", "", ""},
				{"remove", "unlinkat", d + "/made", "", "AT_REMOVEDIR"},
				{"mknod", "mknodat", d + "/fifo", "", "S_IFIFO|0600"},
				{"truncate", "truncate", d + "/g2", "", "0"},
				{"remove", "unlinkat", outside + "/keep", "", ""},
				{"rename", "renameat", outside + "/keep", d + "/stolen", ""},
				{"mkdir", "mkdirat", outside + "/made", "", "0755"},
			}
			want = append(want, legacyWant(d, outside)...)
			var got []change
			for _, rec := range rs {
				switch rec.Data["op"] {
				case "remove", "rename", "link", "mkdir", "mknod", "truncate":
				default:
					continue
				}
				t.Log(rec.Summary)
				assert.Equal(t, observers.KindProcess, rec.Kind)
				assert.Equal(t, "continue", rec.Data["verdict"])
				assert.Equal(t, "", rec.Data["error"], rec.Summary)
				assert.Equal(t, "probe-1", rec.Token, rec.Summary)
				got = append(got, changeOf(rec))
			}
			assert.Equal(t, want, got, "exactly the changes, in order, with absolute paths")

			// the relative paths say how they were given
			ren := find(rs, map[string]string{"syscall": "renameat", "given": "f"})
			require.Len(t, ren, 1)
			assert.Equal(t, "g", ren[0].Data["to_given"])
			assert.NotEmpty(t, ren[0].Data["dirfd"])
			assert.Equal(t, ren[0].Data["dirfd"], ren[0].Data["to_dirfd"])
			out := find(rs, map[string]string{"syscall": "unlinkat", "path": outside + "/keep"})
			require.Len(t, out, 1)
			assert.Equal(t, "keep", out[0].Data["given"], "relative to a descriptor of the directory outside")
			assert.NotEmpty(t, out[0].Data["dirfd"])
			link := find(rs, map[string]string{"syscall": "linkat"})
			require.Len(t, link, 1)
			assert.Equal(t, "g2", link[0].Data["target_given"])
			assert.Equal(t, "h", link[0].Data["given"])
			abs := find(rs, map[string]string{"op": "mkdir", "path": outside + "/made"})
			require.Len(t, abs, 1)
			assert.Equal(t, "", abs[0].Data["given"], "an absolute path is not repeated")
			assert.Equal(t, "", abs[0].Data["dirfd"])
		})
	}
}
