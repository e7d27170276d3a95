package launch_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childArg in os.Args[1] makes the test binary act as a fake server; the mode
// follows it.
const childArg = "launch-test-child"

func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == childArg {
		// syscall.Exit skips the race detector's one-second sleep at exit.
		syscall.Exit(runChild(os.Args[2]))
	}
	os.Exit(m.Run())
}

// children are the fake servers, by mode.
var children = map[string]func() int{
	// echo copies stdin to stdout line by line and exits at stdin EOF.
	"echo": func() int {
		r := bufio.NewReader(os.Stdin)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				if _, werr := os.Stdout.Write(line); werr != nil {
					return 1
				}
			}
			if err != nil {
				return 0
			}
		}
	},
	// mixed writes one line of every kind, ends on an unterminated JSON line
	// and exits with status 3.
	"mixed": func() int {
		os.Stdout.WriteString("starting server v1.0\n\n  \t\n" +
			`{"jsonrpc":"2.0","method":"a"}` + "\r\n" +
			"not json {\n" +
			`{"partial":true}`)
		return 3
	},
	// oversize writes lines around a 1024-byte limit, and one far beyond it.
	"oversize": func() int {
		os.Stdout.WriteString(strings.Repeat("a", 1024) + "\n")
		os.Stdout.WriteString(strings.Repeat("b", 1025) + "\n")
		os.Stdout.WriteString(strings.Repeat("y", 10000) + "\r\n")
		os.Stdout.WriteString(`{"after":1}` + "\n")
		return 0
	},
	// unended writes a line, then 3000 bytes with no newline; each line
	// read from stdin ends it and starts another of 10 bytes; it exits at
	// stdin EOF, the last line still unended.
	"unended": func() int {
		os.Stdout.WriteString(`{"a":1}` + "\n" + strings.Repeat("z", 3000))
		r := bufio.NewReader(os.Stdin)
		for {
			if _, err := r.ReadBytes('\n'); err != nil {
				return 0
			}
			os.Stdout.WriteString("\n" + strings.Repeat("w", 10))
		}
	},
	// bigline writes 100 MiB without a newline, then exits.
	"bigline": func() int {
		chunk := bytes.Repeat([]byte{'x'}, 1<<20)
		for range 100 {
			if _, err := os.Stdout.Write(chunk); err != nil {
				return 1
			}
		}
		return 0
	},
	// stubborn ignores SIGTERM and stdin, so only SIGKILL ends it.
	"stubborn": func() int {
		signal.Ignore(syscall.SIGTERM)
		os.Stdout.WriteString(`{"ready":true}` + "\n")
		time.Sleep(time.Hour)
		return 0
	},
	// deaf never reads stdin; SIGTERM ends it.
	"deaf": func() int {
		os.Stdout.WriteString(`{"ready":true}` + "\n")
		time.Sleep(time.Hour)
		return 0
	},
	// grandchild starts a sleeper that stays in the group and keeps stdout
	// open, prints the sleeper's pid and exits.
	"grandchild": func() int {
		exe, err := os.Executable()
		if err != nil {
			return 1
		}
		cmd := exec.Command(exe, childArg, "sleeper")
		cmd.Stdout = os.Stdout
		if err := cmd.Start(); err != nil {
			return 1
		}
		fmt.Printf(`{"grandchild":%d}`+"\n", cmd.Process.Pid)
		return 0
	},
	// parent starts a sleeper that stays in the group, prints its pid and
	// sleeps without reading stdin; SIGTERM ends it, not the sleeper.
	"parent": func() int {
		exe, err := os.Executable()
		if err != nil {
			return 1
		}
		cmd := exec.Command(exe, childArg, "sleeper")
		if err := cmd.Start(); err != nil {
			return 1
		}
		fmt.Printf(`{"sleeper":%d}`+"\n", cmd.Process.Pid)
		time.Sleep(time.Hour)
		return 0
	},
	"sleeper": func() int {
		time.Sleep(time.Hour)
		return 0
	},
	// stderr writes 100000 numbered lines of 19 bytes to stderr.
	"stderr": func() int {
		w := bufio.NewWriter(os.Stderr)
		for i := range 100000 {
			fmt.Fprintf(w, "stderr line %06d\n", i)
		}
		w.Flush()
		return 0
	},
	// env prints its environment and working directory as JSON.
	"env": func() int {
		dir, _ := os.Getwd()
		b, _ := json.Marshal(map[string]any{"env": os.Environ(), "dir": dir})
		os.Stdout.Write(append(b, '\n'))
		return 0
	},
	// lines writes 100 JSON lines of exactly 100 bytes.
	"lines": func() int {
		w := bufio.NewWriter(os.Stdout)
		for i := range 100 {
			fmt.Fprintf(w, `{"i":"%03d","pad":"%s"}`+"\n", i, strings.Repeat("p", 100-len(`{"i":"000","pad":""}`)))
		}
		w.Flush()
		return 0
	},
	// blanks writes 3000 empty lines.
	"blanks": func() int {
		os.Stdout.WriteString(strings.Repeat("\n", 3000))
		return 0
	},
	// flood writes 5000 JSON lines (far more than a pipe holds), then exits
	// at stdin EOF.
	"flood": func() int {
		w := bufio.NewWriter(os.Stdout)
		for i := range 5000 {
			fmt.Fprintf(w, `{"i":%d,"pad":"%s"}`+"\n", i, strings.Repeat("f", 80))
		}
		if w.Flush() != nil {
			return 1
		}
		io.Copy(io.Discard, os.Stdin)
		return 0
	},
}

func runChild(mode string) int {
	run, ok := children[mode]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown child mode %q\n", mode)
		return 2
	}
	return run()
}
