package startvalue

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKind pins which values count as computed at start.
func TestKind(t *testing.T) {
	now := time.Date(2026, 12, 4, 15, 20, 0, 0, time.UTC)
	for s, want := range map[string]string{
		"2026-11-04":                    "a time or date",
		"2026-12-04T15:20:00.123Z":      "a time or date",
		"2026-12-04 15:20:00":           "a time or date",
		"Fri, 04 Dec 2026 15:20:00 UTC": "a time or date",
		"Fri Dec 04 2026 15:20:00 GMT+0000 (Coordinated Universal Time)": "a time or date",
		"1796397600":                           "an epoch time",
		"1796397600123":                        "an epoch time",
		"0b6f9a43-1c2d-4e5f-8a9b-0c1d2e3f4a5b": "a uuid",
		"9f86d081884c7d65":                     "a hex nonce",
		"V1StGXR8_Z5jdHi6B-myT":                "a random id",
		"01JEQ8X3K4M5N6P7Q8R9S0T1V2":           "a random id",
		"1600000000":                           "",
		"main":                                 "",
		"deadbeefdeadbeef":                     "",
		"read_multiple_files":                  "",
		"application/json":                     "",
		"42":                                   "",
		"":                                     "",
	} {
		assert.Equal(t, want, Kind(s, now), s)
	}
}

// TestText writes computed words as their kind and keeps everything else,
// white space included.
func TestText(t *testing.T) {
	now := time.Date(2026, 12, 4, 15, 20, 0, 0, time.UTC)
	assert.Equal(t, "<a time or date>", Text("2026-12-04T15:20:00Z", now))
	assert.Equal(t, "List notes since (<a time or date>),\n  newest first.", Text("List notes since (2026-11-04),\n  newest first.", now))
	assert.Equal(t, "Read one note by name.", Text("Read one note by name.", now))
	assert.Equal(t, "  two  spaces ", Text("  two  spaces ", now))
}

// TestJSON masks computed values in a schema, but for its fixed members.
func TestJSON(t *testing.T) {
	now := time.Date(2026, 12, 4, 15, 20, 0, 0, time.UTC)
	dec := json.NewDecoder(strings.NewReader(`{"type":"object","properties":{
		"since":{"type":"string","default":"2026-11-04"},
		"after_ms":{"type":"integer","default":1796397600123},
		"limit":{"type":"integer","default":20},
		"mode":{"enum":["2026-11-04","fast"]}}}`))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	got, err := json.Marshal(JSON(v, now))
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{
		"since":{"type":"string","default":"<a time or date>"},
		"after_ms":{"type":"integer","default":"<an epoch time>"},
		"limit":{"type":"integer","default":20},
		"mode":{"enum":["2026-11-04","fast"]}}}`, string(got))
}
