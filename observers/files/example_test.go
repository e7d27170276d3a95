package files_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sealmark/sealmark/observers/files"
)

func ExampleObserver() {
	top, _ := os.MkdirTemp("", "sealmark-example-")
	defer os.RemoveAll(top)
	for _, d := range files.DefaultDirs {
		os.Mkdir(filepath.Join(top, d), 0o700)
	}
	os.WriteFile(filepath.Join(top, "root", "ok.txt"), []byte("token"), 0o600)

	obs, err := files.New(files.Options{Top: top})
	if err != nil {
		fmt.Println(err)
		return
	}
	obs.Begin("probe-1")
	// What a path-traversal bug in a server would do:
	os.WriteFile(filepath.Join(top, "root-evil", "x"), []byte("hello"), 0o600)
	os.Rename(filepath.Join(top, "root", "ok.txt"), filepath.Join(top, "tmp", "ok.txt"))
	for _, r := range obs.Collect("probe-1") {
		fmt.Println(r.Token, r.Summary, files.Outside(r.Data["path"], "root"))
	}
	obs.Close()
	// Output:
	// probe-1 created root-evil/x (5 bytes) true
	// probe-1 renamed root/ok.txt -> tmp/ok.txt true
}

func ExampleDiff() {
	top, _ := os.MkdirTemp("", "sealmark-example-")
	defer os.RemoveAll(top)
	os.MkdirAll(filepath.Join(top, "canary"), 0o700)
	os.WriteFile(filepath.Join(top, "canary", "secret.txt"), []byte("sm-canary-1"), 0o600)

	before, _ := files.Walk(top, []string{"canary"}, 0)
	os.Chmod(filepath.Join(top, "canary", "secret.txt"), 0o644)
	os.Symlink("../canary", filepath.Join(top, "canary", "loop"))
	after, _ := files.Walk(top, []string{"canary"}, 0)

	for _, c := range files.Diff(before, after) {
		fmt.Println(c.Op, c.Path)
	}
	// Output:
	// link-created canary/loop
	// mode-changed canary/secret.txt
}
