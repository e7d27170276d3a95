package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNothingTestedIsNoPass: a run in which every selected pack was not
// applicable (the notes fixture takes no path, so fs does not apply) is
// not green: exit 3, "nothing was tested", the pack counted in the
// summary.
func TestNothingTestedIsNoPass(t *testing.T) {
	code, out, errOut := sealmark(t, append(runArgs(t, "--quiet", "--packs", "fs", "--"), serverArgs(t, "")...)...)
	assert.Equal(t, 3, code, "stderr: %s", errOut)
	assert.Contains(t, out, "summary: 0 pass, 0 fail, 0 not applicable, 0 inconclusive, 0 error, 1 pack not applicable\nnothing was tested")
}
