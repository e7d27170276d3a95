package smbin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CanaryMarker starts the line sm-canary prints.
const CanaryMarker = "SEALMARK-CANARY-EXECUTED"

// MaxSpew is the largest byte count sm-spew accepts (16 GiB).
const MaxSpew = 1 << 34

// spewChunk is the size of one write of sm-spew.
const spewChunk = 64 << 10

func canary(args []string, stdout, stderr io.Writer) int {
	line := CanaryMarker
	if len(args) > 0 {
		line += " " + strings.Join(args, " ")
	}
	return finish(stdout, stderr, "sm-canary", []byte(line+"\n"))
}

func echo(args []string, stdout, stderr io.Writer) int {
	if args == nil {
		args = []string{} // "[]", never "null"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode adds the newline
	enc.SetEscapeHTML(false)     // keep <, > and & as written, so tokens match byte for byte
	if err := enc.Encode(args); err != nil {
		fmt.Fprintf(stderr, "sm-echo: %v\n", err)
		return 1
	}
	return finish(stdout, stderr, "sm-echo", buf.Bytes())
}

func sleep(args []string, stderr io.Writer) int {
	const usage = "usage: sm-sleep SECONDS (a number >= 0, fractions allowed)"
	if len(args) != 1 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	secs, err := strconv.ParseFloat(args[0], 64)
	if err != nil || math.IsNaN(secs) || secs < 0 || secs > float64(math.MaxInt64)/float64(time.Second) {
		fmt.Fprintf(stderr, "sm-sleep: invalid duration %q\n%s\n", args[0], usage)
		return 2
	}
	time.Sleep(time.Duration(secs * float64(time.Second)))
	return 0
}

func spew(args []string, stdout, stderr io.Writer) int {
	const usage = "usage: sm-spew BYTES (an integer from 0 to 17179869184)"
	if len(args) != 1 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	n, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil || n < 0 || n > MaxSpew {
		fmt.Fprintf(stderr, "sm-spew: invalid byte count %q\n%s\n", args[0], usage)
		return 2
	}
	chunk := bytes.Repeat([]byte{'x'}, int(min(n, spewChunk)))
	for n > 0 {
		c := chunk[:min(n, int64(len(chunk)))]
		w, err := stdout.Write(c)
		n -= int64(w)
		if err != nil {
			if errors.Is(err, syscall.EPIPE) {
				return 0 // the reader left: stop quietly
			}
			fmt.Fprintf(stderr, "sm-spew: %v\n", err)
			return 1
		}
		if w < len(c) {
			fmt.Fprintf(stderr, "sm-spew: %v\n", io.ErrShortWrite)
			return 1
		}
	}
	return 0
}

// finish writes out and maps a write error to status 1.
func finish(stdout, stderr io.Writer, prog string, out []byte) int {
	if _, err := stdout.Write(out); err != nil {
		if !errors.Is(err, syscall.EPIPE) {
			fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		}
		return 1
	}
	return 0
}
