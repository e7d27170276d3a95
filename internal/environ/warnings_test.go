package environ

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPathWarnings(t *testing.T) {
	progDir := t.TempDir()
	prog := filepath.Join(progDir, "dist", "index.js")
	if err := os.MkdirAll(filepath.Dir(prog), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, []byte("//"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(progDir, "lib.py"), 0o700); err != nil { // a directory, not a program
		t.Fatal(err)
	}
	const top = "/tmp/sealmark-0123456789abcdef"
	argWarning := func(i int, p string) string {
		return fmt.Sprintf("server.args[%d] (%s) points at a real path on this machine; valid calls may read or write it", i, p)
	}
	envWarning := func(name string) string {
		return "server.env " + name + " points at a real path on this machine; valid calls may read or write it"
	}
	tests := []struct {
		name string
		args []string
		env  []KV
		want []string
	}{
		{"seed example for env", nil, []KV{{"MEMORY_FILE_PATH", "/home/me/memory.json"}}, []string{envWarning("MEMORY_FILE_PATH")}},
		{"seed example for args", []string{"-y", "pkg", "/data/x"}, nil, []string{argWarning(2, "/data/x")}},
		{"option value", []string{"--db=/var/lib/app.db"}, nil, []string{argWarning(0, "/var/lib/app.db")}},
		{"option value in env", nil, []KV{{"FLAGS", "--config=/etc/app.conf"}}, []string{envWarning("FLAGS")}},
		{"home path", []string{"~/notes"}, nil, []string{argWarning(0, "~/notes")}},
		{"windows drive", []string{`C:\data`, "d:/data"}, nil, []string{argWarning(0, `C:\data`), argWarning(1, "d:/data")}},
		{"placeholder", []string{"{sandbox}/x", "--root={sandbox}", "{cwd}/dist/index.js"}, []KV{{"F", "{sandbox_home}/f"}}, nil},
		{"relative paths and words", []string{"data", "./data", "-y", "@scope/pkg", "--port=80", "x=/y", "~user"}, []KV{{"LEVEL", "debug"}}, nil},
		{"inside the sandbox", []string{top + "/root/a", top}, []KV{{"F", top + "/home/f"}}, nil},
		{"sibling with the sandbox's name as prefix", []string{top + "-evil/a"}, nil, []string{argWarning(0, top+"-evil/a")}},
		{"the server's own program", []string{prog}, nil, nil},
		{"the server's own program in an option", []string{"--require=" + prog}, nil, nil},
		{"a program that does not exist", []string{filepath.Join(progDir, "gone.js")}, nil, []string{argWarning(0, filepath.Join(progDir, "gone.js"))}},
		{"a directory with a program extension", []string{filepath.Join(progDir, "lib.py")}, nil, []string{argWarning(0, filepath.Join(progDir, "lib.py"))}},
		{"a program in env still warns", nil, []KV{{"HOOK", prog}}, []string{envWarning("HOOK")}},
		{"one warning each", []string{"/a", "/b"}, []KV{{"X", "/c"}, {"Y", "/d"}}, []string{argWarning(0, "/a"), argWarning(1, "/b"), envWarning("X"), envWarning("Y")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PathWarnings(tt.args, tt.env, top)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("PathWarnings(%q, %v) =\n%q\nwant\n%q", tt.args, tt.env, got, tt.want)
			}
		})
	}
}

func TestPathWarningsWithoutSandbox(t *testing.T) {
	got := PathWarnings([]string{"/tmp/x"}, nil, "")
	if len(got) != 1 {
		t.Errorf("PathWarnings with no sandbox = %q, want one warning", got)
	}
}
