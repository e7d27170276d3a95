package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAllowInconclusiveLayers: allow_inconclusive is false by default and
// layered like the other settings: file, then SEALMARK_ALLOW_INCONCLUSIVE,
// then --allow-inconclusive.
func TestAllowInconclusiveLayers(t *testing.T) {
	const cmd = "server:\n  command: x\n"
	for _, tt := range []struct {
		name  string
		yaml  string
		env   []string
		flags map[string]string
		want  bool
	}{
		{"default", cmd, nil, nil, false},
		{"file", cmd + "allow_inconclusive: true\n", nil, nil, true},
		{"env over file", cmd + "allow_inconclusive: true\n", []string{"SEALMARK_ALLOW_INCONCLUSIVE=false"}, nil, false},
		{"env", cmd, []string{"SEALMARK_ALLOW_INCONCLUSIVE=true"}, nil, true},
		{"flag over env", cmd, []string{"SEALMARK_ALLOW_INCONCLUSIVE=false"}, map[string]string{"allow-inconclusive": "true"}, true},
	} {
		r, err := resolve(t, tt.yaml, tt.env, tt.flags)
		require.NoError(t, err, tt.name)
		assert.Equal(t, tt.want, r.AllowInconclusive, tt.name)
	}
}
