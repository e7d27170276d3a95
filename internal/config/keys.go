package config

import (
	"maps"
	"reflect"
	"strings"
)

// kind is how a key's value is written and stored.
type kind int

const (
	kindString   kind = iota // a YAML string
	kindNames                // a list of names (packs, variable names, layers)
	kindArgs                 // a list of scalars, each taken as written
	kindServices             // a list of tcp:127.0.0.1:<port> or unix:<path> endpoints
	kindEnv                  // a map of variable name to a scalar taken as written
	kindHeaders              // a map of header name to a scalar taken as written
	kindFiles                // a map of path to content
	kindBool                 // true or false
	kindInt                  // an integer
	kindDuration             // a Go duration string such as "30s"
	kindSeverity             // low, medium, high or critical
	kindNetwork              // closed (open is not supported yet)
	kindHints                // a map of pack name to a free-form map
	kindProbes               // a list of table rows (packs/table)
	kindGlobs                // a list of glob patterns (--probes, --skip-probes)
)

// setting is one key: its path in sealmark.yaml and the Settings field that
// holds it.
type setting struct {
	key      string
	kind     kind
	flagOnly bool                // no file key: set only by a flag
	field    func(*Settings) any // a pointer to the field; nil when nothing is stored
}

// settings lists every key in the order Explain prints them.
var settings = []setting{
	{key: "server.command", kind: kindString, field: func(s *Settings) any { return &s.Command }},
	{key: "server.args", kind: kindArgs, field: func(s *Settings) any { return &s.Args }},
	{key: "server.env", kind: kindEnv, field: func(s *Settings) any { return &s.Env }},
	{key: "server.url", kind: kindString, field: func(s *Settings) any { return &s.URL }},
	{key: "server.headers", kind: kindHeaders, field: func(s *Settings) any { return &s.Headers }},
	{key: "server.files", kind: kindFiles, field: func(s *Settings) any { return &s.Files }},
	{key: "server.start", kind: kindString, field: func(s *Settings) any { return &s.Start }},
	{key: "sandbox.keep_env", kind: kindNames, field: func(s *Settings) any { return &s.KeepEnv }},
	{key: "sandbox.scrub_env", kind: kindBool, field: func(s *Settings) any { return &s.ScrubEnv }},
	{key: "sandbox.dir", kind: kindString, field: func(s *Settings) any { return &s.SandboxDir }},
	{key: "sandbox.max_mib", kind: kindInt, field: func(s *Settings) any { return &s.MaxMiB }},
	{key: "sandbox.layers_off", kind: kindNames, field: func(s *Settings) any { return &s.LayersOff }},
	{key: "sandbox.services", kind: kindServices, field: func(s *Settings) any { return &s.Services }},
	{key: "sandbox.network", kind: kindNetwork},
	{key: "--no-sandbox", kind: kindBool, flagOnly: true, field: func(s *Settings) any { return &s.NoSandbox }},
	{key: "--uncontained", kind: kindBool, flagOnly: true, field: func(s *Settings) any { return &s.Uncontained }},
	{key: "--keep-sandbox", kind: kindBool, flagOnly: true, field: func(s *Settings) any { return &s.KeepSandbox }},
	{key: "--fresh-starts", kind: kindBool, flagOnly: true, field: func(s *Settings) any { return &s.FreshStarts }},
	{key: "--jobs", kind: kindInt, flagOnly: true, field: func(s *Settings) any { return &s.Jobs }},
	{key: "packs", kind: kindNames, field: func(s *Settings) any { return &s.Packs }},
	{key: "--probes", kind: kindGlobs, flagOnly: true, field: func(s *Settings) any { return &s.OnlyProbes }},
	{key: "--skip-probes", kind: kindGlobs, flagOnly: true, field: func(s *Settings) any { return &s.SkipProbes }},
	{key: "hints", kind: kindHints, field: func(s *Settings) any { return &s.Hints }},
	{key: "probes", kind: kindProbes, field: func(s *Settings) any { return &s.Probes }},
	{key: "fail_on", kind: kindSeverity, field: func(s *Settings) any { return &s.FailOn }},
	{key: "allow_inconclusive", kind: kindBool, field: func(s *Settings) any { return &s.AllowInconclusive }},
	{key: "baseline", kind: kindString, field: func(s *Settings) any { return &s.Baseline }},
	{key: "lock", kind: kindString, field: func(s *Settings) any { return &s.Lock }},
	{key: "timeouts.start", kind: kindDuration, field: func(s *Settings) any { return &s.StartTimeout }},
	{key: "timeouts.call", kind: kindDuration, field: func(s *Settings) any { return &s.CallTimeout }},
	{key: "timeouts.probe", kind: kindDuration, field: func(s *Settings) any { return &s.ProbeTimeout }},
	{key: "timeouts.run", kind: kindDuration, field: func(s *Settings) any { return &s.RunTimeout }},
	{key: "report.json", kind: kindString, field: func(s *Settings) any { return &s.JSON }},
	{key: "report.sarif", kind: kindString, field: func(s *Settings) any { return &s.SARIF }},
	{key: "report.junit", kind: kindString, field: func(s *Settings) any { return &s.JUnit }},
	{key: "db.admin_dsn", kind: kindString, field: func(s *Settings) any { return &s.DBAdminDSN }},
}

// fileKeys maps each key sealmark.yaml accepts to its setting, and sections
// holds the keys that group others (server, sandbox, ...).
var fileKeys, sections = func() (map[string]*setting, map[string]bool) {
	keys, secs := map[string]*setting{}, map[string]bool{}
	for i := range settings {
		s := &settings[i]
		if s.flagOnly {
			continue
		}
		keys[s.key] = s
		if sec, _, ok := strings.Cut(s.key, "."); ok {
			secs[sec] = true
		}
	}
	return keys, secs
}()

// lookup returns the setting of key; it panics on a key missing from the
// table, which is a bug in this package.
func lookup(key string) *setting {
	for i := range settings {
		if settings[i].key == key {
			return &settings[i]
		}
	}
	panic("config: no setting " + key)
}

// copyTo copies the setting's value from src to dst, cloning lists so the two
// never share storage.
func (s *setting) copyTo(dst, src *Settings) {
	if s.field == nil {
		return
	}
	switch d := s.field(dst).(type) {
	case *[]string:
		*d = clone(*s.field(src).(*[]string))
	case *[]KV:
		*d = clone(*s.field(src).(*[]KV))
	case *[]File:
		*d = clone(*s.field(src).(*[]File))
	case *map[string]map[string]any:
		*d = maps.Clone(*s.field(src).(*map[string]map[string]any))
	case *[]map[string]any:
		*d = clone(*s.field(src).(*[]map[string]any))
	default:
		reflect.ValueOf(d).Elem().Set(reflect.ValueOf(s.field(src)).Elem())
	}
}

// differs reports whether a and b hold different values for the setting.
func (s *setting) differs(a, b *Settings) bool {
	if s.field == nil {
		return false
	}
	va, vb := reflect.ValueOf(s.field(a)).Elem(), reflect.ValueOf(s.field(b)).Elem()
	if va.Kind() == reflect.Slice || va.Kind() == reflect.Map {
		if va.Len() == 0 && vb.Len() == 0 {
			return false // nil and empty are the same setting
		}
	}
	return !reflect.DeepEqual(va.Interface(), vb.Interface())
}

func clone[T any](list []T) []T {
	if list == nil {
		return nil
	}
	return append([]T(nil), list...)
}
