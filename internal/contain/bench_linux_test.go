package contain_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/internal/launch"
)

// BenchmarkStart measures a start and exit of a server (the test binary
// exiting at once) with each set of layers: the cost each adds per start.
func BenchmarkStart(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	top := b.TempDir()
	spec := launch.Spec{Path: exe, Args: []string{childArg, "exit", "0"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: top}
	iso := contain.Probe()
	for _, c := range []struct {
		name string
		o    *contain.Options
	}{
		{"plain", nil},
		{"shim", &contain.Options{}},
		{"landlock+fsize", &contain.Options{SandboxTop: top, AllowPorts: []int{1}, MaxFileBytes: 1 << 20, Landlock: true}},
		{"netns", &contain.Options{NetNS: true, AllowPorts: []int{1}}},
		{"all", &contain.Options{SandboxTop: top, AllowPorts: []int{1}, MaxFileBytes: 1 << 20, Landlock: true, NetNS: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := spec
			if c.o != nil {
				if c.o.NetNS && !iso.NetNS.Applied {
					b.Skip("netns:", iso.NetNS.Why)
				}
				if s, err = contain.Wrap(spec, *c.o); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				if err := command(ctx, s).Run(); err != nil {
					b.Fatal(err)
				}
				cancel()
			}
		})
	}
}
