package redact

import (
	"fmt"
	"reflect"
)

// Apply rewrites, in place, every string reachable from v, as String would.
// v must be a pointer (Apply panics otherwise; a nil v or nil pointer does
// nothing).
//
// Apply follows struct fields, pointers, interfaces, slices, arrays and map
// values, and rewrites every value whose kind is string, named string types
// included. It leaves alone:
//   - unexported struct fields;
//   - map keys (a rewritten key could collide with another);
//   - []byte and other non-string data.
//
// A pointer met twice (a cycle, or two fields sharing a value) is rewritten
// once.
func (r *Redactor) Apply(v any) {
	if v == nil {
		return
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer {
		panic(fmt.Sprintf("redact: Apply needs a pointer, got %s", rv.Type()))
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	w := walker{r: r, seen: map[visit]bool{}}
	w.walk(rv)
}

type visit struct {
	ptr uintptr
	typ reflect.Type
}

type walker struct {
	r    *Redactor
	seen map[visit]bool
}

func (w *walker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		if !v.CanSet() {
			return
		}
		if s := v.String(); s != "" {
			if n := w.r.rewrite(s); n != s {
				v.SetString(n)
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		key := visit{v.Pointer(), v.Type()}
		if w.seen[key] {
			return
		}
		w.seen[key] = true
		w.walk(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		if e.Kind() == reflect.Pointer {
			w.walk(e)
			return
		}
		if !v.CanSet() {
			return
		}
		c := reflect.New(e.Type()).Elem()
		c.Set(e)
		w.walk(c)
		v.Set(c)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				w.walk(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if !mayHoldString(v.Type().Elem()) {
			return
		}
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() || !v.CanInterface() || !mayHoldString(v.Type().Elem()) {
			return
		}
		for _, k := range v.MapKeys() {
			c := reflect.New(v.Type().Elem()).Elem()
			c.Set(v.MapIndex(k))
			w.walk(c)
			v.SetMapIndex(k, c)
		}
	}
}

// mayHoldString reports whether a value of type t can lead to a string.
func mayHoldString(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Interface, reflect.Struct,
		reflect.Slice, reflect.Array, reflect.Map:
		return true
	}
	return false
}
