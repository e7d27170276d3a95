package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sealmark/sealmark/internal/contain"
	"github.com/sealmark/sealmark/packs"
)

// ConfigPath returns the config file to load: the --config flag's value when
// given, else the SEALMARK_CONFIG variable of env, else "" (no file).
func ConfigPath(env []string, flag string) string {
	if flag != "" {
		return flag
	}
	path, _ := lookupEnv(env, "SEALMARK_CONFIG")
	return path
}

// lookupEnv finds name in env the way os.Getenv does: the first entry wins.
func lookupEnv(env []string, name string) (string, bool) {
	for _, e := range env {
		if k, v, ok := strings.Cut(e, "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// envVars are the SEALMARK_* variables that set a key.
var envVars = []struct{ name, key string }{
	{"SEALMARK_URL", "server.url"},
	{"SEALMARK_KEEP_ENV", "sandbox.keep_env"},
	{"SEALMARK_SCRUB_ENV", "sandbox.scrub_env"},
	{"SEALMARK_SANDBOX_DIR", "sandbox.dir"},
	{"SEALMARK_MAX_MIB", "sandbox.max_mib"},
	{"SEALMARK_LAYERS_OFF", "sandbox.layers_off"},
	{"SEALMARK_SERVICES", "sandbox.services"},
	{"SEALMARK_PACKS", "packs"},
	{"SEALMARK_FAIL_ON", "fail_on"},
	{"SEALMARK_ALLOW_INCONCLUSIVE", "allow_inconclusive"},
	{"SEALMARK_BASELINE", "baseline"},
	{"SEALMARK_LOCK", "lock"},
	{"SEALMARK_TIMEOUT", "timeouts.start"},
	{"SEALMARK_CALL_TIMEOUT", "timeouts.call"},
	{"SEALMARK_PROBE_TIMEOUT", "timeouts.probe"},
	{"SEALMARK_RUN_TIMEOUT", "timeouts.run"},
	{"SEALMARK_JSON", "report.json"},
	{"SEALMARK_SARIF", "report.sarif"},
	{"SEALMARK_JUNIT", "report.junit"},
	{"SEALMARK_DB_ADMIN_DSN", "db.admin_dsn"},
}

// flagKeys maps the CLI flags that set one key to that key. The flags env,
// header and command are read by fromFlags itself.
var flagKeys = map[string]string{
	"url":                "server.url",
	"start":              "server.start",
	"keep-env":           "sandbox.keep_env",
	"sandbox-dir":        "sandbox.dir",
	"max-mib":            "sandbox.max_mib",
	"layers-off":         "sandbox.layers_off",
	"service":            "sandbox.services",
	"no-sandbox":         "--no-sandbox",
	"keep-sandbox":       "--keep-sandbox",
	"fresh-starts":       "--fresh-starts",
	"jobs":               "--jobs",
	"uncontained":        "--uncontained",
	"packs":              "packs",
	"probes":             "--probes",
	"skip-probes":        "--skip-probes",
	"fail-on":            "fail_on",
	"allow-inconclusive": "allow_inconclusive",
	"baseline":           "baseline",
	"lock":               "lock",
	"timeout":            "timeouts.start",
	"call-timeout":       "timeouts.call",
	"probe-timeout":      "timeouts.probe",
	"run-timeout":        "timeouts.run",
	"json":               "report.json",
	"sarif":              "report.sarif",
	"junit":              "report.junit",
}

// frontEndFlags are CLI flags that are not settings; Resolve ignores them.
var frontEndFlags = []string{"config", "active", "yes", "example", "fixture", "into", "explain-config", "quiet", "verbose", "color"}

// Resolve layers the settings, a later layer winning: Defaults, then file
// (nil when there is no config file), then the SEALMARK_* variables of env,
// then flags (flag name → value, for the flags the user set). fileLines and
// fileName come from Load and make the origins ("sealmark.yaml:12"); when
// fileLines is nil, every value of file that differs from the default counts
// as set by the file.
//
// A list (packs, sandbox.keep_env, sandbox.layers_off, server.args) is replaced as a whole by a
// later layer. A map (server.env, server.headers) is merged entry by entry:
// --env NAME=VALUE replaces the file's NAME, or adds it at the end. An
// invalid environment value or flag is an error naming the variable or flag;
// every problem is reported.
func Resolve(file *Settings, fileLines map[string]int, fileName string, env []string, flags map[string]string) (*Resolved, error) {
	r := &Resolved{Settings: Defaults(), Origins: map[string]Origin{}}
	for _, s := range settings {
		r.origin(s.key, "default")
	}
	if file != nil {
		r.fromFile(file, fileLines, fileName)
	}
	errs := r.fromEnv(env)
	errs = append(errs, r.fromFlags(flags)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return r, nil
}

func (r *Resolved) origin(key, from string) {
	r.Origins[key] = Origin{Key: key, From: from}
}

func (r *Resolved) fromFile(file *Settings, lines map[string]int, name string) {
	if name == "" {
		name = "config file"
	}
	at := func(key string) string {
		if line := lines[key]; line > 0 {
			return fmt.Sprintf("%s:%d", name, line)
		}
		return name
	}
	def := Defaults()
	for i := range settings {
		s := &settings[i]
		if s.flagOnly {
			continue
		}
		_, set := lines[s.key]
		if lines == nil {
			set = s.differs(file, &def)
		}
		if !set {
			continue
		}
		s.copyTo(&r.Settings, file)
		r.origin(s.key, at(s.key))
		for _, entry := range entryKeys(s, &r.Settings) {
			r.origin(entry, at(entry))
		}
		if s.kind == kindHints {
			for pack := range r.Hints {
				r.origin("hints."+pack, at("hints."+pack))
			}
		}
	}
}

// entryKeys lists the origin keys of a map-valued setting's entries:
// server.env.NAME, server.headers.NAME, server.files.PATH, and for hints
// hints.PACK.KEY (hints.PACK for a pack with no keys), sorted.
func entryKeys(s *setting, from *Settings) []string {
	var out []string
	switch s.kind {
	case kindEnv, kindHeaders:
		for _, kv := range *s.field(from).(*[]KV) {
			out = append(out, s.key+"."+kv.Name)
		}
	case kindFiles:
		for _, f := range *s.field(from).(*[]File) {
			out = append(out, s.key+"."+f.Path)
		}
	case kindHints:
		for pack, keys := range from.Hints {
			if len(keys) == 0 {
				out = append(out, s.key+"."+pack)
			}
			for k := range keys {
				out = append(out, s.key+"."+pack+"."+k)
			}
		}
		sort.Strings(out)
	}
	return out
}

func (r *Resolved) fromEnv(env []string) []error {
	var errs []error
	for _, flag := range []string{"active", "yes"} {
		name := "SEALMARK_" + strings.ToUpper(flag)
		if _, set := lookupEnv(env, name); set {
			errs = append(errs, fmt.Errorf("%s: --%s has no environment form; pass --%s", name, flag, flag))
		}
	}
	for _, v := range envVars {
		value, set := lookupEnv(env, v.name)
		if !set || value == "" {
			continue // an empty variable is the same as an unset one
		}
		if err := r.setText(lookup(v.key), value); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", v.name, err))
			continue
		}
		r.origin(v.key, "env "+v.name)
	}
	return errs
}

func (r *Resolved) fromFlags(flags map[string]string) []error {
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		value := flags[name]
		var err error
		switch key, ok := flagKeys[name]; {
		case ok:
			if err = r.setText(lookup(key), value); err == nil {
				r.origin(key, "flag --"+name)
			}
		case name == "env":
			err = r.envFlag(value)
		case name == "header":
			err = r.headerFlag(value)
		case name == "command":
			if err = r.commandFlag(value); err != nil {
				errs = append(errs, fmt.Errorf("command after --: %v", err))
				continue
			}
		case slices.Contains(frontEndFlags, name):
		default:
			err = errors.New("not a setting (config.Resolve does not know this flag)")
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %v", name, err))
		}
	}
	return errs
}

// setText sets a key from the text of a variable or a flag. A list is
// comma-separated; spaces around items and empty items are dropped.
func (r *Resolved) setText(s *setting, text string) error {
	switch s.kind {
	case kindString:
		*s.field(&r.Settings).(*string) = text
	case kindNames:
		names := splitList(text)
		for _, n := range names {
			if !validName(n) {
				return fmt.Errorf("want a comma-separated list of names, got %q", text)
			}
		}
		*s.field(&r.Settings).(*[]string) = names
	case kindGlobs:
		list := splitList(text)
		for _, g := range list {
			if _, err := path.Match(g, ""); err != nil {
				return fmt.Errorf("%q is not a glob pattern: %v", g, err)
			}
		}
		*s.field(&r.Settings).(*[]string) = list
	case kindServices:
		list := splitList(text)
		for _, sv := range list {
			if _, err := contain.ParseService(sv); err != nil {
				return err
			}
		}
		*s.field(&r.Settings).(*[]string) = list
	case kindBool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("want true or false, got %q", text)
		}
		*s.field(&r.Settings).(*bool) = b
	case kindInt:
		i, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("want an integer, got %q", text)
		}
		*s.field(&r.Settings).(*int) = i
	case kindDuration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf(`want a duration such as "30s", got %q`, text)
		}
		*s.field(&r.Settings).(*time.Duration) = d
	case kindSeverity:
		sev, err := packs.ParseFailOn(text)
		if err != nil {
			return err
		}
		*s.field(&r.Settings).(*string) = sev.String()
	default:
		panic("config: setText on " + s.key) // no variable or flag sets this kind
	}
	return nil
}

func splitList(text string) []string {
	var out []string
	for _, item := range strings.Split(text, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// flagEntries splits a repeatable flag's value into its entries: a JSON
// array of strings (what the CLI passes, so that an entry holding a line
// break stays one entry and is refused as such), or one entry a line.
func flagEntries(value string) []string {
	var entries []string
	if strings.HasPrefix(value, "[") && json.Unmarshal([]byte(value), &entries) == nil {
		return entries
	}
	return strings.Split(value, "\n")
}

// envFlag merges --env entries (NAME=VALUE; flagEntries) into server.env.
// Errors never quote a value, which may be a secret.
func (r *Resolved) envFlag(value string) error {
	for _, line := range flagEntries(value) {
		name, val, ok := strings.Cut(line, "=")
		switch {
		case !ok:
			return errors.New(`want NAME=VALUE; an entry has no "="`)
		case !validEnvName(name):
			return errors.New("want NAME=VALUE; an entry has an empty name")
		}
		r.Env = r.merge("server.env", r.Env, KV{name, val}, false, "flag --env")
	}
	return nil
}

// headerFlag merges --header entries ("Name: value"; flagEntries) into
// server.headers, matching names in any letter case. A line break in an
// entry would inject a header of its own, so it is refused.
func (r *Resolved) headerFlag(value string) error {
	for _, line := range flagEntries(value) {
		name, val, ok := strings.Cut(line, ":")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		switch {
		case !ok:
			return errors.New(`want "Name: value"; an entry has no ":"`)
		case !validHeaderName(name):
			return fmt.Errorf(`want "Name: value"; %q is not a valid header name`, name)
		case strings.ContainsAny(val, "\r\n\x00"):
			return fmt.Errorf("header %s: a header value cannot hold a line break (CR or LF) or NUL: it would inject a header", name)
		}
		r.Headers = r.merge("server.headers", r.Headers, KV{name, val}, true, "flag --header")
	}
	return nil
}

// merge replaces the entry of list named like kv, or appends kv, and records
// its origin under key.NAME.
func (r *Resolved) merge(key string, list []KV, kv KV, fold bool, from string) []KV {
	list = clone(list)
	i := slices.IndexFunc(list, func(e KV) bool {
		return e.Name == kv.Name || fold && strings.EqualFold(e.Name, kv.Name)
	})
	if i < 0 {
		list = append(list, kv)
	} else {
		delete(r.Origins, key+"."+list[i].Name)
		list[i] = kv
	}
	r.origin(key+"."+kv.Name, from)
	return list
}

// commandFlag sets server.command and server.args from the command after
// --, passed as a JSON array of strings.
func (r *Resolved) commandFlag(value string) error {
	var argv []string
	if err := json.Unmarshal([]byte(value), &argv); err != nil {
		return errors.New("want a JSON array of strings (the command and its arguments)")
	}
	if len(argv) == 0 || argv[0] == "" {
		return errors.New("empty; give the server's command")
	}
	r.Command, r.Args = argv[0], append([]string{}, argv[1:]...)
	r.origin("server.command", "command after --")
	r.origin("server.args", "command after --")
	return nil
}
