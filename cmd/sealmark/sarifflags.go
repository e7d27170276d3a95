package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sealmark/sealmark/internal/config"
	"github.com/sealmark/sealmark/internal/hostpath"
	"github.com/sealmark/sealmark/internal/report"
	"github.com/sealmark/sealmark/internal/scan"
)

// sarifFrontEnd are the SARIF flags only the front end reads: setFlags
// leaves them out of the layered settings.
var sarifFrontEnd = map[string]bool{"sarif-category": true}

// addSARIFCategory adds --sarif-category to run's or scan's flags; scan
// says so for each server (its category is a prefix).
func addSARIFCategory(fs *flag.FlagSet, category *string, perServer bool) {
	usage := "the code scanning `CATEGORY` of the SARIF run (automationDetails.id CATEGORY/; default sealmark/NAME, NAME the server's program without path or version)"
	if perServer {
		usage = "the code scanning `CATEGORY` prefix of the SARIF log: each server's run is CATEGORY/NAME/ (default sealmark)"
	}
	fs.StringVar(category, "sarif-category", "", usage)
}

// checkSARIFCategory refuses a category code scanning could not take: one
// that is empty once its slashes are trimmed, or holds a line break.
func checkSARIFCategory(fs *flag.FlagSet, category string) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "sarif-category" })
	if !given {
		return nil
	}
	if strings.Trim(category, "/ ") == "" || strings.ContainsAny(category, "\r\n\x00") {
		return fmt.Errorf("--sarif-category %q: want a name such as sealmark/notes", category)
	}
	return nil
}

// runSARIFOptions are run's SARIF options: results located at the config
// file the run read, else the server's project manifest
// (hostpath.SARIFArtifact), and the category given, else sealmark/ and
// the server's stable name (report.ServerName). When no file can be
// named, a warning on stderr says why.
func runSARIFOptions(cfgPath string, res *config.Resolved, category string, stderr io.Writer) report.SARIFOptions {
	command := append([]string{res.Command}, res.Args...)
	if res.Command == "" && res.Start != "" {
		command = strings.Fields(res.Start)
	}
	if category == "" {
		name := report.ServerName(res.Command, res.Args, res.URL)
		if res.Command == "" && len(command) > 0 {
			name = report.ServerName(command[0], command[1:], "")
		}
		category = "sealmark/" + name
	}
	opts := report.SARIFOptions{Category: category}
	cwd, err := os.Getwd()
	if err != nil {
		opts.NoArtifact = "the working directory: " + err.Error()
	} else {
		opts.ArtifactURI, opts.NoArtifact = hostpath.SARIFArtifact(cwd, cfgPath, command)
	}
	if opts.ArtifactURI == "" {
		warnNoArtifact(stderr, "sealmark run", "", opts.NoArtifact)
	}
	return opts
}

// scanSARIFOptions are scan's SARIF options: each server's results located
// at the client configuration that lists it, else its project manifest
// (hostpath.SARIFArtifact), under the category prefix given. A warning on
// stderr names each server whose results name no file, and why.
func scanSARIFOptions(entries []scan.Entry, category, cwd string, stderr io.Writer) report.SARIFOptions {
	opts := report.SARIFOptions{Category: category, Servers: map[string]report.SARIFOptions{}}
	for _, e := range entries {
		var own report.SARIFOptions
		own.ArtifactURI, own.NoArtifact = hostpath.SARIFArtifact(cwd, e.Source, append([]string{e.Command}, e.Args...))
		if own.ArtifactURI == "" {
			warnNoArtifact(stderr, "sealmark scan", e.Name, own.NoArtifact)
		}
		opts.Servers[e.Name] = own
	}
	return opts
}

// mergeSARIFOptions are merge's SARIF options: results located at the
// project manifest of the working directory.
func mergeSARIFOptions(stderr io.Writer) report.SARIFOptions {
	var opts report.SARIFOptions
	cwd, err := os.Getwd()
	if err != nil {
		opts.NoArtifact = "the working directory: " + err.Error()
	} else {
		opts.ArtifactURI, opts.NoArtifact = hostpath.SARIFArtifact(cwd, "", nil)
	}
	if opts.ArtifactURI == "" {
		warnNoArtifact(stderr, "sealmark merge", "", opts.NoArtifact)
	}
	return opts
}

// warnNoArtifact prints why SARIF results name no file.
func warnNoArtifact(stderr io.Writer, cmd, server, why string) {
	if server != "" {
		server = " of " + server
	}
	fmt.Fprintf(stderr, "%s: warning: the SARIF results%s have no file location (%s); code scanning refuses such a log: "+
		"run from the project's directory inside its repository, or give --config a sealmark.yaml there\n", cmd, server, why)
}
