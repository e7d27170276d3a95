package packs_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sealmark/sealmark/internal/pin"
	"github.com/sealmark/sealmark/packs"
)

// Lock pins every annotation the server sent, not only the hints Sealmark
// reads, and passes every text through the run's redaction.
func TestLockPinsRawAnnotationsRedacted(t *testing.T) {
	surface := func(annotations, description string) *packs.Surface {
		raw := `{"name":"fetch","description":` + quote(description) + `,"inputSchema":{"type":"object","properties":{"dir":{"default":"/tmp/sb-123/x"}}},"annotations":` + annotations + `}`
		var tool packs.Tool
		if err := json.Unmarshal([]byte(raw), &tool); err != nil {
			t.Fatal(err)
		}
		tool.Raw = json.RawMessage(raw)
		return &packs.Surface{Tools: []packs.Tool{tool}}
	}
	redact := func(s string) string {
		return strings.NewReplacer("sk-secret-1", "<redacted>", "sk-secret-2", "<redacted>", "/tmp/sb-123", "{sandbox}", "/tmp/sb-456", "{sandbox}").Replace(s)
	}
	a := surface(`{"openWorldHint":false}`, "Fetch with key sk-secret-1").Lock(redact)
	b := surface(`{"openWorldHint":true}`, "Fetch with key sk-secret-2").Lock(redact)
	assert.Equal(t, "Fetch with key <redacted>", a.Tools[0].Description)
	changes := pin.Compare(a, b)
	if assert.Len(t, changes, 1) {
		assert.Equal(t, []string{"annotations"}, changes[0].Parts, "an annotation Sealmark does not read is pinned too")
		assert.Equal(t, []string{`~ annotations: annotation "openWorldHint" changed`}, changes[0].Diff)
	}
	// The same schema in another run's sandbox is the same schema.
	other := surface(`{"openWorldHint":false}`, "Fetch with key sk-secret-1")
	other.Tools[0].InputSchema = json.RawMessage(strings.ReplaceAll(string(other.Tools[0].InputSchema), "/tmp/sb-123", "/tmp/sb-456"))
	assert.Empty(t, pin.Compare(a, other.Lock(redact)))
	assert.NotEmpty(t, pin.Compare(a, other.Lock(nil)), "without redaction the sandbox path differs")
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
