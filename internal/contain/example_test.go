package contain_test

import (
	"fmt"
	"os"
	"time"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
)

func ExampleWrap() {
	top, _ := os.MkdirTemp("", "sealmark-")
	defer os.RemoveAll(top)
	_ = contain.WriteOwner(top, "SEALMARK_RUN=0123456789abcdef")

	opts := contain.Options{SandboxTop: top, MaxFileBytes: 1 << 20, Landlock: true}
	fmt.Println("isolation:", contain.Probe().For(opts).Line())
	spec, err := contain.Wrap(launch.Spec{
		Path: "/bin/sh",
		Args: []string{"-c", "echo hi > " + top + "/ok.txt; echo hi > /etc/not-ok"},
		Env:  []string{"PATH=/usr/bin:/bin"},
		Dir:  top,
	}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	proc, err := launch.Start(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(proc.Stop(2*time.Second, time.Second).Status) // "exit status 2": /etc/not-ok: Permission denied
}
