package environ

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mkdirs makes each directory below root and returns root.
func mkdirs(t *testing.T, root string, dirs ...string) string {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// envMap turns env into a map and fails the test on a repeated name.
func envMap(t *testing.T, env []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, e := range env {
		name, value, ok := strings.Cut(e, "=")
		if !ok {
			t.Fatalf("entry %q has no '='", e)
		}
		if _, dup := m[strings.ToUpper(name)]; dup {
			t.Errorf("name %s appears twice in %q", name, env)
		}
		m[strings.ToUpper(name)] = value
	}
	return m
}

func TestBuildScrubbedPOSIX(t *testing.T) {
	callerHome := mkdirs(t, t.TempDir(), ".npm", ".cache/uv") // no uv python directory
	caller := []string{
		"PATH=/usr/local/bin:/usr/bin",
		"HOME=" + callerHome,
		"LANG=de_DE.UTF-8",
		"USER=alice",
		"SHELL=/bin/zsh",
		"DATABASE_URL=postgres://alice:hunter2@db/prod",
		"AWS_SECRET_ACCESS_KEY=AKIAsecret",
		"HTTP_PROXY=http://127.0.0.1:3128",
		"SSH_AUTH_SOCK=/run/agent",
		"TMPDIR=/var/tmp",
	}
	env, inherited := Build(Spec{
		Scrub:     true,
		Bin:       "/sb/bin",
		Home:      "/sb/home",
		Tmp:       "/sb/tmp",
		KeepEnv:   []string{"HTTP_PROXY", "NOT_SET_ANYWHERE"},
		ServerEnv: []KV{{"LOG_LEVEL", "debug"}},
		Caller:    caller,
		GOOS:      "linux",
	})
	want := []string{
		"HOME=/sb/home",
		"HTTP_PROXY=http://127.0.0.1:3128",
		"LANG=de_DE.UTF-8",
		"LOGNAME=sealmark",
		"LOG_LEVEL=debug",
		"PATH=/sb/bin:/usr/local/bin:/usr/bin",
		"SHELL=/bin/sh",
		"TEMP=/sb/tmp",
		"TERM=dumb",
		"TMP=/sb/tmp",
		"TMPDIR=/sb/tmp",
		"USER=sealmark",
		"UV_CACHE_DIR=" + filepath.Join(callerHome, ".cache/uv"),
		"npm_config_cache=" + filepath.Join(callerHome, ".npm"),
	}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("Build env =\n%s\nwant\n%s", strings.Join(env, "\n"), strings.Join(want, "\n"))
	}
	wantInherited := []string{"PATH (system part)", "LANG", "npm_config_cache", "UV_CACHE_DIR", "HTTP_PROXY"}
	if !reflect.DeepEqual(inherited, wantInherited) {
		t.Errorf("inherited = %q, want %q", inherited, wantInherited)
	}
	joined := strings.Join(env, "\n")
	for _, leak := range []string{"DATABASE_URL", "AWS_SECRET_ACCESS_KEY", "hunter2", "AKIAsecret", "SSH_AUTH_SOCK", "alice", "zsh", "/var/tmp"} {
		if strings.Contains(joined, leak) {
			t.Errorf("scrubbed environment leaks %s:\n%s", leak, joined)
		}
	}
}

func TestBuildLayers(t *testing.T) {
	canaries := []KV{{CanaryVar, "sm-canary-0000000000000000"}, {FakeAPIKeyVar, "sk-sealmark-fake-000000000000000000000000"}}
	tests := []struct {
		name   string
		spec   Spec
		lookup string
		want   string // "<unset>" when lookup must be absent
	}{
		{"no caller LANG gives C.UTF-8", Spec{Scrub: true}, "LANG", "C.UTF-8"},
		{"empty caller LANG gives C.UTF-8", Spec{Scrub: true, Caller: []string{"LANG="}}, "LANG", "C.UTF-8"},
		{"no caller PATH leaves bin alone", Spec{Scrub: true, Bin: "/sb/bin"}, "PATH", "/sb/bin"},
		{"keep_env replaces the base", Spec{Scrub: true, Tmp: "/sb/tmp", KeepEnv: []string{"TMPDIR"}, Caller: []string{"TMPDIR=/var/tmp"}}, "TMPDIR", "/var/tmp"},
		{"keep_env of an unset name adds nothing", Spec{Scrub: true, KeepEnv: []string{"HTTPS_PROXY"}}, "HTTPS_PROXY", "<unset>"},
		{"keep_env set but empty is kept", Spec{Scrub: true, KeepEnv: []string{"NO_PROXY"}, Caller: []string{"NO_PROXY="}}, "NO_PROXY", ""},
		{"server.env replaces the base", Spec{Scrub: true, ServerEnv: []KV{{"TERM", "xterm"}}}, "TERM", "xterm"},
		{"server.env replaces keep_env", Spec{Scrub: true, KeepEnv: []string{"HTTP_PROXY"}, Caller: []string{"HTTP_PROXY=a"}, ServerEnv: []KV{{"HTTP_PROXY", "b"}}}, "HTTP_PROXY", "b"},
		{"later server.env wins", Spec{Scrub: true, ServerEnv: []KV{{"X", "1"}, {"X", "2"}}}, "X", "2"},
		{"canaries replace server.env", Spec{Scrub: true, ServerEnv: []KV{{CanaryVar, "mine"}}, Canaries: canaries}, CanaryVar, "sm-canary-0000000000000000"},
		{"canaries are applied", Spec{Scrub: true, Canaries: canaries}, FakeAPIKeyVar, "sk-sealmark-fake-000000000000000000000000"},
		{"no canaries, no canary variable", Spec{Scrub: true}, CanaryVar, "<unset>"},
		{"caller's first duplicate wins", Spec{Scrub: true, Caller: []string{"LANG=first", "LANG=second"}}, "LANG", "first"},
		{"inherited keeps the caller", Spec{Caller: []string{"DATABASE_URL=x", "PATH=/usr/bin"}}, "DATABASE_URL", "x"},
		{"inherited PATH has no sandbox bin", Spec{Bin: "/sb/bin", Caller: []string{"PATH=/usr/bin"}}, "PATH", "/usr/bin"},
		{"inherited gets server.env", Spec{Caller: []string{"X=1"}, ServerEnv: []KV{{"X", "2"}}}, "X", "2"},
		{"inherited gets canaries last", Spec{Caller: []string{CanaryVar + "=x"}, ServerEnv: []KV{{CanaryVar, "y"}}, Canaries: canaries}, CanaryVar, "sm-canary-0000000000000000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := Build(tt.spec)
			m := envMap(t, env)
			got, ok := m[strings.ToUpper(tt.lookup)]
			if !ok {
				got = "<unset>"
			}
			if got != tt.want {
				t.Errorf("%s = %q, want %q (env %q)", tt.lookup, got, tt.want, env)
			}
		})
	}
}

func TestBuildInheritedReportsNothingInherited(t *testing.T) {
	env, inherited := Build(Spec{Caller: []string{"A=1", "B=2"}})
	if inherited != nil {
		t.Errorf("inherited = %q for an inherited environment, want nil", inherited)
	}
	if want := []string{"A=1", "B=2"}; !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
}

func TestBuildInheritedListsEachNameOnce(t *testing.T) {
	_, inherited := Build(Spec{Scrub: true, KeepEnv: []string{"LANG", "LANG"}, Caller: []string{"LANG=C"}})
	if want := []string{"LANG"}; !reflect.DeepEqual(inherited, want) {
		t.Errorf("inherited = %q, want %q", inherited, want)
	}
}

func TestBuildCaches(t *testing.T) {
	home := mkdirs(t, t.TempDir(), ".npm", ".cache/uv", ".local/share/uv/python")
	bare := t.TempDir() // a home without caches
	own := mkdirs(t, t.TempDir(), "npm", "uvc", "uvp", "xdgc/uv", "xdgd/uv/python")
	tests := []struct {
		name   string
		caller []string
		want   map[string]string // the three cache variables; missing = absent
	}{
		{"defaults under HOME", []string{"HOME=" + home}, map[string]string{
			"npm_config_cache":      filepath.Join(home, ".npm"),
			"UV_CACHE_DIR":          filepath.Join(home, ".cache/uv"),
			"UV_PYTHON_INSTALL_DIR": filepath.Join(home, ".local/share/uv/python"),
		}},
		{"no directory, no variable", []string{"HOME=" + bare}, map[string]string{}},
		{"no HOME, no variable", nil, map[string]string{}},
		{"caller's variables win", []string{"HOME=" + home,
			"npm_config_cache=" + filepath.Join(own, "npm"),
			"UV_CACHE_DIR=" + filepath.Join(own, "uvc"),
			"UV_PYTHON_INSTALL_DIR=" + filepath.Join(own, "uvp")}, map[string]string{
			"npm_config_cache":      filepath.Join(own, "npm"),
			"UV_CACHE_DIR":          filepath.Join(own, "uvc"),
			"UV_PYTHON_INSTALL_DIR": filepath.Join(own, "uvp"),
		}},
		{"caller's variable naming a missing directory drops it", []string{"HOME=" + home,
			"UV_CACHE_DIR=" + filepath.Join(own, "gone")}, map[string]string{
			"npm_config_cache":      filepath.Join(home, ".npm"),
			"UV_PYTHON_INSTALL_DIR": filepath.Join(home, ".local/share/uv/python"),
		}},
		{"relative caller value is ignored", []string{"HOME=" + bare, "npm_config_cache=.npm"}, map[string]string{}},
		{"upper-case npm spelling", []string{"HOME=" + bare, "NPM_CONFIG_CACHE=" + filepath.Join(own, "npm")}, map[string]string{
			"npm_config_cache": filepath.Join(own, "npm"),
		}},
		{"XDG base directories", []string{"HOME=" + bare, "XDG_CACHE_HOME=" + filepath.Join(own, "xdgc"), "XDG_DATA_HOME=" + filepath.Join(own, "xdgd")}, map[string]string{
			"UV_CACHE_DIR":          filepath.Join(own, "xdgc/uv"),
			"UV_PYTHON_INSTALL_DIR": filepath.Join(own, "xdgd/uv/python"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, inherited := Build(Spec{Scrub: true, Caller: tt.caller, GOOS: "linux"})
			m := envMap(t, env)
			for _, name := range []string{"npm_config_cache", "UV_CACHE_DIR", "UV_PYTHON_INSTALL_DIR"} {
				got, ok := m[strings.ToUpper(name)]
				want, wantOK := tt.want[name]
				if ok != wantOK || got != want {
					t.Errorf("%s = %q (set %v), want %q (set %v)", name, got, ok, want, wantOK)
				}
				if listed := contains(inherited, name); listed != wantOK {
					t.Errorf("inherited %q lists %s: %v, want %v", inherited, name, listed, wantOK)
				}
			}
		})
	}
}

func TestBuildWindows(t *testing.T) {
	env, inherited := Build(Spec{
		Scrub: true,
		Bin:   `C:\sb\bin`,
		Home:  `C:\sb\home`,
		Tmp:   `C:\sb\tmp`,
		Caller: []string{
			`Path=C:\Windows\system32;C:\Windows`,
			`SystemRoot=C:\Windows`,
			`COMSPEC=C:\Windows\system32\cmd.exe`,
			`PATHEXT=.COM;.EXE;.BAT;.CMD`,
			`USERPROFILE=C:\Users\alice`,
			`APPDATA=C:\Users\alice\AppData\Roaming`,
			`AWS_SECRET_ACCESS_KEY=AKIAsecret`,
			`=C:=C:\work`,
		},
		ServerEnv: []KV{{"path", `D:\only`}}, // names match in any case: replaces PATH
		GOOS:      "windows",
	})
	m := envMap(t, env)
	want := map[string]string{
		"HOME":         `C:\sb\home`,
		"USERPROFILE":  `C:\sb\home`,
		"APPDATA":      `C:\sb\home`,
		"LOCALAPPDATA": `C:\sb\home`,
		"TEMP":         `C:\sb\tmp`,
		"TMP":          `C:\sb\tmp`,
		"SYSTEMROOT":   `C:\Windows`,
		"COMSPEC":      `C:\Windows\system32\cmd.exe`,
		"PATHEXT":      `.COM;.EXE;.BAT;.CMD`,
		"PATH":         `D:\only`,
	}
	for name, w := range want {
		if got := m[name]; got != w {
			t.Errorf("%s = %q, want %q", name, got, w)
		}
	}
	for _, absent := range []string{"AWS_SECRET_ACCESS_KEY", "WINDIR", "PROGRAMFILES", "=C:"} {
		if _, ok := m[absent]; ok {
			t.Errorf("%s is set, want it absent: %q", absent, env)
		}
	}
	wantInherited := []string{"PATH (system part)", "SYSTEMROOT", "COMSPEC", "PATHEXT"}
	if !reflect.DeepEqual(inherited, wantInherited) {
		t.Errorf("inherited = %q, want %q", inherited, wantInherited)
	}

	env, _ = Build(Spec{Scrub: true, Bin: `C:\sb\bin`, Caller: []string{`PATH=C:\Windows`}, GOOS: "windows"})
	if got := Value(env, "PATH"); got != `C:\sb\bin;C:\Windows` {
		t.Errorf("Windows PATH = %q, want the bin, ';', then the caller's PATH", got)
	}
}

func TestValueAndSplit(t *testing.T) {
	env := []string{"A=1", "B=x=y", "A=2", "=C:=C:\\w", "junk"}
	tests := []struct{ name, want string }{{"A", "2"}, {"B", "x=y"}, {"=C:", `C:\w`}, {"junk", ""}, {"Z", ""}}
	for _, tt := range tests {
		if got := Value(env, tt.name); got != tt.want {
			t.Errorf("Value(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
