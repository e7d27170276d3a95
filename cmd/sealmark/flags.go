package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
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
