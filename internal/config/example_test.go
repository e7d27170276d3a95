package config_test

import (
	"fmt"

	"github.com/sealmark/sealmark/internal/config"
)

func ExampleResolve() {
	yaml := []byte(`server:
  command: npx
  args: ["-y", "@modelcontextprotocol/server-filesystem", "{sandbox}"]
  env:
    API_KEY: sk-live-0123456789
packs: [core, fs]
`)
	file, lines, err := config.Parse("sealmark.yaml", yaml)
	if err != nil {
		fmt.Println(err)
		return
	}
	env := []string{"SEALMARK_FAIL_ON=critical"}
	flags := map[string]string{"packs": "fs"} // only the flags the user gave
	res, err := config.Resolve(file, lines, "sealmark.yaml", env, flags)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := res.Check(); err != nil {
		fmt.Println(err)
		return
	}
	for _, key := range []string{"server.command", "server.env.API_KEY", "packs", "fail_on", "sandbox.max_mib"} {
		fmt.Printf("%s from %s\n", key, res.Origins[key].From)
	}
	fmt.Println(res.Packs, res.FailOn, res.MaxMiB)
	// Output:
	// server.command from sealmark.yaml:2
	// server.env.API_KEY from sealmark.yaml:5
	// packs from flag --packs
	// fail_on from env SEALMARK_FAIL_ON
	// sandbox.max_mib from default
	// [fs] critical 1024
}

func ExampleParse() {
	_, _, err := config.Parse("sealmark.yaml", []byte("server:\n  comand: npx\nsandbox:\n  max_mib: lots\nactive: true\n"))
	fmt.Println(err)
	// Output:
	// sealmark.yaml:2: server.comand: unknown key (did you mean server.command?)
	// sealmark.yaml:4: sandbox.max_mib: want an integer, got "lots"
	// sealmark.yaml:5: active: --active cannot be set in a file; pass --active on the command line
}
