package example

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sealmark/sealmark/internal/catalogue"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/internal/slowtest"
	"github.com/sealmark/sealmark/packs"
)

// cleanVerb serves the example without its flaw: the good twin.
const cleanVerb = "__sealmark-example-clean"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == cleanVerb {
		tools = slices.DeleteFunc(tools, func(t tool) bool { return t.Name == "debug_info" })
		Serve(os.Stdin, os.Stdout)
		os.Exit(0)
	}
	Dispatch()
	os.Exit(m.Run())
}

// TestExampleBothWays runs the core pack on the example and on the example
// without debug_info: the first fails secret-echo, with both canaries, and
// nothing else; the second fails nothing. Both speak the legacy era.
func TestExampleBothWays(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		verb string
		fail []string
	}{{Verb, []string{"CORE-SECRET-ECHO"}}, {cleanVerb, nil}} {
		t.Run(tc.verb, func(t *testing.T) {
			t.Parallel()
			e, err := engine.New(engine.Config{Catalog: catalogue.All,
				Command: self, Args: []string{tc.verb}, Packs: []string{"core"}, NoSandbox: true,
				StartTimeout: slowtest.Scale(10 * time.Second), CallTimeout: 2 * time.Second,
				StdinGrace: 500 * time.Millisecond, TermGrace: 500 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep := e.Run(ctx, engine.Hooks{})
			if rep.HarnessError != "" {
				t.Fatal(rep.HarnessError)
			}
			if rep.Protocol.Era != "legacy" || rep.Protocol.ServerName != Name {
				t.Errorf("protocol %+v, want the legacy era and server %s", rep.Protocol, Name)
			}
			var failed []string
			for _, p := range rep.Packs[0].Probes {
				switch p.Verdict {
				case packs.Failed:
					failed = append(failed, p.ID)
					if p.ID == "CORE-SECRET-ECHO" && len(p.Findings) != 2 {
						t.Errorf("secret-echo: %d findings, want both canaries echoed: %v", len(p.Findings), p.Findings)
					}
				case packs.Errored, packs.Inconclusive:
					t.Errorf("%s: %s %s", p.ID, p.Verdict, p.Reason)
				}
			}
			if !slices.Equal(failed, tc.fail) {
				t.Errorf("failed %v, want %v", failed, tc.fail)
			}
		})
	}
}
