package report

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sealmark/sealmark/internal/redact"
)

// The secret values one run knows, each registered with the Redactor.
const (
	testCanary    = "sm-canary-0f1e2d3c4b5a6978"
	testEnvSecret = "sk-live-env-secret-42"
	testHeaderVal = "Bearer hdr-secret-value-7"
	testDBPass    = "db-role-pw-Zx81Qq"
	testURLPass   = "url-only-pw-123" // known only from the URL itself
)

// fillStrings sets every exported string reachable from v to payload,
// growing empty slices and maps and allocating nil pointers on the way, and
// returns the paths it set. A field added to the model later is filled
// without any change here.
func fillStrings(v reflect.Value, path, payload string) []string {
	switch v.Kind() {
	case reflect.String:
		v.SetString(payload)
		return []string{path}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		return fillStrings(v.Elem(), path, payload)
	case reflect.Struct:
		var set []string
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				set = append(set, fillStrings(v.Field(i), path+"."+f.Name, payload)...)
			}
		}
		return set
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		var set []string
		for i := range v.Len() {
			set = append(set, fillStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i), payload)...)
		}
		return set
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		// Map keys are field names the harness chooses (observers.Record
		// documents it), never server data, so they carry no secret here.
		key := reflect.New(v.Type().Key()).Elem()
		if key.Kind() == reflect.String {
			key.SetString("field")
		}
		val := reflect.New(v.Type().Elem()).Elem()
		set := fillStrings(val, path+"[value]", payload)
		v.SetMapIndex(key, val)
		return set
	}
	return nil
}

// eachString calls fn for every string reachable from v, map keys included.
func eachString(v reflect.Value, path string, fn func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		fn(path, v.String())
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			eachString(v.Elem(), path, fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				eachString(v.Field(i), path+"."+f.Name, fn)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			eachString(v.Index(i), fmt.Sprintf("%s[%d]", path, i), fn)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			eachString(k, path+"[key]", fn)
			eachString(v.MapIndex(k), path+"[value]", fn)
		}
	}
}

func TestRedactionEndToEnd(t *testing.T) {
	payload := fmt.Sprintf("canary %s env %s header %s db %s end", testCanary, testEnvSecret, testHeaderVal, testDBPass)
	writeUnchecked(t) // every string holds the payload, class and verdicts too
	rep := &Report{}
	set := fillStrings(reflect.ValueOf(rep), "rep", payload)
	if len(set) < 30 {
		t.Fatalf("filled only %d string fields, want every field of the model: %v", len(set), set)
	}
	rep.Sandbox.Kept = true // a kept sandbox's path takes another route through Finalize
	// The URL goes through the report's URL rule, as the engine does.
	rep.Server.URL = redact.URL("https://admin:"+testURLPass+"@mcp.example.test/mcp?") + payload

	r := redact.New()
	r.Secret(testCanary, redact.MaskCanary)
	r.Secret(testEnvSecret, redact.MaskRedacted)
	r.Secret(testHeaderVal, redact.MaskRedacted)
	r.Secret(testDBPass, redact.MaskPassword)
	Finalize(rep, r)

	secrets := []string{testCanary, testEnvSecret, testHeaderVal, testDBPass, testURLPass}
	eachString(reflect.ValueOf(rep), "rep", func(path, s string) {
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				t.Errorf("after Finalize %s = %q, still holds %q", path, s, sec)
			}
		}
	})

	var js, txt bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"JSON": js.String(), "text": txt.String()} {
		for _, sec := range secrets {
			if strings.Contains(out, sec) {
				t.Errorf("%s output holds secret %q", name, sec)
			}
		}
		for _, mask := range []string{redact.MaskCanary, redact.MaskRedacted, redact.MaskPassword} {
			if !strings.Contains(out, mask) {
				t.Errorf("%s output lacks mask %q", name, mask)
			}
		}
	}
}
