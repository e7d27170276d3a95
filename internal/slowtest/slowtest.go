// Package slowtest scales a test's fixed waits to the machine it runs on,
// so that a bound meant to catch a hang does not fire on a machine that is
// merely busy:
//
//	cfg.StartTimeout = slowtest.Scale(10 * time.Second)
//	ctx, cancel := context.WithTimeout(ctx, slowtest.Scale(time.Minute))
//
// The factor is one for the whole test binary, fixed at its first use: the
// value of SEALMARK_TEST_SLOW when it is set (a number, at least 1), else
// the machine's load average over the last minute per CPU, at least 1 and
// at most [MaxFactor]. On a quiet machine it is 1 and every wait is the
// one written; at a load average of 30 on two cores it is 15.
//
// Only waits that bound a hang scale. A wait that is what a test checks
// (a server must exit within its grace, a probe must report a timeout of
// 3 s) is the product's and stays as written.
package slowtest

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Env names the variable that sets the factor by hand.
const Env = "SEALMARK_TEST_SLOW"

// MaxFactor bounds the factor the load average gives: past it a wait
// that bounds a hang would hold a failing test for too long.
const MaxFactor = 20

// Factor is the test binary's factor: SEALMARK_TEST_SLOW, else the load
// average per CPU, never below 1.
func Factor() float64 { return factor() }

var factor = sync.OnceValue(func() float64 {
	f, _ := compute(os.Getenv(Env), readLoad(), runtime.NumCPU())
	return f
})

// Scale is d times the factor.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// compute is the factor given the variable's value, the load average
// (negative when unknown) and the number of CPUs, and where it came from.
func compute(env string, load float64, cpus int) (float64, string) {
	if env != "" {
		f, err := strconv.ParseFloat(env, 64)
		if err == nil && f >= 1 {
			return f, Env
		}
		// A value the test cannot use is said once and ignored, never a
		// silent 1.
		fmt.Fprintf(os.Stderr, "slowtest: %s=%q is not a number of at least 1; using the load average\n", Env, env)
	}
	if load < 0 || cpus < 1 {
		return 1, "no load average"
	}
	f := load / float64(cpus)
	switch {
	case f < 1:
		f = 1
	case f > MaxFactor:
		f = MaxFactor
	}
	return f, "load average"
}

// readLoad is the one-minute load average, or -1 where /proc/loadavg
// cannot be read.
func readLoad() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	first, _, _ := strings.Cut(string(b), " ")
	v, err := strconv.ParseFloat(first, 64)
	if err != nil {
		return -1
	}
	return v
}
