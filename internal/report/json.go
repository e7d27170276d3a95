package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// MaxJSONBytes bounds what ReadJSON reads: 64 MiB.
const MaxJSONBytes = 64 << 20

// WriteJSON writes rep as indented JSON in the schema's field order, followed
// by a newline. Map keys are sorted and HTML characters are not escaped, so
// "<redacted>" reads as written and two equal reports give equal bytes.
func WriteJSON(w io.Writer, rep *Report) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		return fmt.Errorf("report: encode JSON: %w", err)
	}
	if err := checkWritten(buf.Bytes()); err != nil {
		return err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write JSON: %w", err)
	}
	return nil
}

// WriteJSONSet writes several reports as one JSON object keyed by name (a
// go test package's Server calls, by test name), each report as WriteJSON
// writes it; ReadJSON reads a set that holds exactly one report.
func WriteJSONSet(w io.Writer, reps map[string]*Report) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(reps); err != nil {
		return fmt.Errorf("report: encode JSON: %w", err)
	}
	if err := checkWritten(buf.Bytes()); err != nil {
		return err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("report: write JSON: %w", err)
	}
	return nil
}

// ReadJSON reads a report WriteJSON wrote. It refuses input larger than
// MaxJSONBytes, input that is not one JSON object, and a report whose schema
// is not SchemaVersion. Fields it does not know are ignored, so a report
// from a newer harness of the same schema still reads.
func ReadJSON(r io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("report: read JSON: %w", err)
	}
	if len(data) > MaxJSONBytes {
		return nil, fmt.Errorf("report: read JSON: larger than %d MiB", MaxJSONBytes>>20)
	}
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("report: read JSON: %w", err)
	}
	if head.Schema == nil {
		// A set of one (WriteJSONSet) reads as its report.
		var set map[string]json.RawMessage
		if json.Unmarshal(data, &set) == nil && len(set) == 1 {
			for _, one := range set {
				if bytes.HasPrefix(bytes.TrimSpace(one), []byte("{")) && !bytes.Equal(one, data) {
					return ReadJSON(bytes.NewReader(one))
				}
			}
		}
	}
	switch {
	case head.Schema == nil:
		return nil, errors.New("report: read JSON: no schema field, want " + SchemaVersion)
	case *head.Schema != SchemaVersion:
		return nil, fmt.Errorf("report: read JSON: schema %q, want %q", *head.Schema, SchemaVersion)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("report: read JSON: %w", err)
	}
	return &rep, nil
}
