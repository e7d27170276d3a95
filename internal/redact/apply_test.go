package redact

import (
	"bytes"
	"testing"
)

type label string

type inner struct {
	Text  string
	Label label
}

type sample struct {
	Plain    string
	Ptr      *string
	Nested   inner
	NestedP  *inner
	List     []string
	Array    [2]string
	Structs  []inner
	Map      map[string]string
	MapS     map[string]inner
	MapP     map[string]*inner
	Any      any
	AnyPtr   any
	Bytes    []byte
	Count    int
	Self     *sample
	hidden   string
	Embedded // exported embedded struct
}

type Embedded struct{ Promoted string }

func TestApplyRewritesEveryReachableString(t *testing.T) {
	const secret = "top-secret-value"
	r := New()
	r.Secret(secret, MaskRedacted)

	str := "p " + secret
	shared := &inner{Text: secret}
	s := &sample{
		Plain:    secret,
		Ptr:      &str,
		Nested:   inner{Text: secret, Label: label(secret)},
		NestedP:  shared,
		List:     []string{secret, "x" + secret},
		Array:    [2]string{secret, secret},
		Structs:  []inner{{Text: secret}},
		Map:      map[string]string{secret: secret},
		MapS:     map[string]inner{"k": {Text: secret}},
		MapP:     map[string]*inner{"k": shared},
		Any:      inner{Text: secret},
		AnyPtr:   &inner{Text: secret},
		Bytes:    []byte(secret),
		hidden:   secret,
		Embedded: Embedded{Promoted: secret},
	}
	s.Self = s // a cycle must not loop forever

	r.Apply(s)

	checks := map[string]string{
		"Plain":            s.Plain,
		"Ptr":              *s.Ptr,
		"Nested.Text":      s.Nested.Text,
		"Nested.Label":     string(s.Nested.Label),
		"NestedP.Text":     s.NestedP.Text,
		"List[0]":          s.List[0],
		"List[1]":          s.List[1],
		"Array[0]":         s.Array[0],
		"Array[1]":         s.Array[1],
		"Structs[0].Text":  s.Structs[0].Text,
		"Map value":        s.Map[secret],
		"MapS[k].Text":     s.MapS["k"].Text,
		"MapP[k].Text":     s.MapP["k"].Text,
		"Any.(inner).Text": s.Any.(inner).Text,
		"AnyPtr.Text":      s.AnyPtr.(*inner).Text,
		"Promoted":         s.Promoted,
	}
	wants := map[string]string{"Ptr": "p <redacted>", "List[1]": "x<redacted>"}
	for name, got := range checks {
		want := MaskRedacted
		if w, ok := wants[name]; ok {
			want = w
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	// Documented exceptions: map keys, unexported fields and bytes stay.
	if _, ok := s.Map[secret]; !ok {
		t.Errorf("map key was rewritten: %v", s.Map)
	}
	if s.hidden != secret {
		t.Errorf("unexported field = %q, want it untouched", s.hidden)
	}
	if !bytes.Equal(s.Bytes, []byte(secret)) {
		t.Errorf("[]byte = %q, want it untouched", s.Bytes)
	}
}

func TestApplyNilAndNonPointer(t *testing.T) {
	r := New()
	r.Secret("abcdefgh", MaskRedacted)
	r.Apply(nil)
	var p *sample
	r.Apply(p)
	defer func() {
		if recover() == nil {
			t.Error("Apply(non-pointer) did not panic")
		}
	}()
	r.Apply(sample{})
}
