package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/engine"
	"github.com/sealmark/sealmark/packs"
)

// parseFlags parses args with set as set.Parse does, and names the flag an
// unknown one most likely meant: "flag provided but not defined: -jsn (did
// you mean --json?)", followed by the usage as before.
func parseFlags(set *flag.FlagSet, args []string) error {
	out, usage := set.Output(), set.Usage
	var quiet bytes.Buffer
	set.SetOutput(&quiet)
	set.Usage = func() {}
	err := set.Parse(args)
	set.SetOutput(out)
	set.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		usage()
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		var known []string
		set.VisitAll(func(f *flag.Flag) { known = append(known, "--"+f.Name) })
		msg += config.DidYouMean("--"+strings.TrimLeft(name, "-"), known)
	}
	fmt.Fprintln(out, msg)
	usage()
	return err
}

// layeredFlag is a flag that sets a layered setting (defaults →
// sealmark.yaml → SEALMARK_* → flags; config.Resolve takes it by name).
type layeredFlag struct{ name, def, usage string }

// sharedLayered are the layered flags run and scan both take, defined
// here once: scan applies each to every server it runs.
var sharedLayered = []layeredFlag{
	{"packs", "", "run only these packs (comma-separated)"},
	{"fail-on", "high", "lowest `SEVERITY` that makes the exit code 1 (" + packs.FailOnValues + ")"},
	{"timeout", "30s", "bound on each server start up to its tool list"},
	{"call-timeout", "10s", "bound on each request"},
	{"probe-timeout", "5m", "bound on each probe; past it the probe is inconclusive"},
	{"run-timeout", "1h", "bound on a server's whole run; past it the run stops (exit 3)"},
	{"sandbox-dir", "", "make the sandbox under `DIR` (default the OS temp dir)"},
	{"max-mib", "1024", "sandbox size limit in MiB (sandbox.max_mib)"},
	{"layers-off", "", "turn off these containment `LAYERS` (comma-separated: " + strings.Join(engine.Layers, ", ") + "); the run is CUSTOM"},
}

// uncontainedUsage is --uncontained's usage, for run and scan.
const uncontainedUsage = "start the server although this system has no containment layers (not Linux, or Linux without them); the run is CUSTOM"

// addShared defines sharedLayered and --uncontained on fs.
func addShared(fs *flag.FlagSet) {
	for _, l := range sharedLayered {
		fs.String(l.name, l.def, l.usage)
	}
	addAllowInconclusive(fs)
	fs.Bool("uncontained", false, uncontainedUsage)
}

// sharedNames are sharedLayered's names, and uncontained.
func sharedNames() []string {
	names := make([]string, 0, len(sharedLayered)+1)
	for _, l := range sharedLayered {
		names = append(names, l.name)
	}
	return append(names, allowInconclusiveFlag, "uncontained")
}
