package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReferenceCoversEverySetting(t *testing.T) {
	refs := Reference()
	require.Len(t, refs, len(settings))
	flags, envs := map[string]bool{}, map[string]bool{}
	for i, r := range refs {
		assert.Equal(t, settings[i].key, r.Key)
		assert.NotEmpty(t, r.Doc, "%s has no line in keyDocs", r.Key)
		assert.Equal(t, !settings[i].flagOnly, r.FileKey, r.Key)
		flags[r.Flag], envs[r.Env] = true, true
	}
	assert.Len(t, keyDocs, len(settings), "keyDocs names a key that is not a setting")
	for flag := range flagKeys {
		assert.True(t, flags["--"+flag], "--%s is in no KeyRef", flag)
	}
	for _, e := range envVars {
		assert.True(t, envs[e.name], "%s is in no KeyRef", e.name)
	}
	for _, want := range []string{"--env", "--header", "the command after --"} {
		assert.True(t, flags[want], want)
	}
}

func TestWriteReferenceListsEveryKey(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteReference(&buf))
	out := buf.String()
	for _, r := range Reference() {
		if r.FileKey {
			assert.Contains(t, out, "  "+r.Key+" ", r.Key)
		}
		for _, s := range []string{r.Flag, r.Env, r.Doc} {
			assert.Contains(t, out, s, r.Key)
		}
	}
	assert.True(t, strings.HasSuffix(out, "docs/sealmark.schema.json.\n"))
}
