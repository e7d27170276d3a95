package environ

import (
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"sandbox": "/sb/root", "sandbox_home": "/sb/home", "port": "4321", "cwd": "/src"}
	tests := []struct {
		in, want string
		wantErr  []string // substrings of the error; nil = no error
	}{
		{"{sandbox}", "/sb/root", nil},
		{"{sandbox}/repo", "/sb/root/repo", nil},
		{"--root={sandbox} --home={sandbox_home}", "--root=/sb/root --home=/sb/home", nil},
		{"http://127.0.0.1:{port}/mcp", "http://127.0.0.1:4321/mcp", nil},
		{"{cwd}{cwd}", "/src/src", nil},
		{"no placeholders", "no placeholders", nil},
		{"", "", nil},
		{`{"a":1}`, `{"a":1}`, nil},
		{"{ }", "{ }", nil},
		{"{}", "{}", nil},
		{"{A}", "{A}", nil},
		{"{sandbox-x}", "{sandbox-x}", nil},
		{"{Sandbox}", "{Sandbox}", nil},
		{"{{sandbox}}", "{/sb/root}", nil},
		{"{sandbox", "{sandbox", nil},
		{"{nope}/x", "", []string{"unknown placeholder {nope}", "known: {cwd}, {port}, {sandbox}, {sandbox_home}"}},
		{"{sandbox}/{a_b}", "", []string{"unknown placeholder {a_b}"}},
	}
	for _, tt := range tests {
		got, err := Expand(tt.in, vars)
		if tt.wantErr == nil {
			if err != nil || got != tt.want {
				t.Errorf("Expand(%q) = %q, %v; want %q, nil", tt.in, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("Expand(%q) = %q, nil; want an error", tt.in, got)
			continue
		}
		for _, w := range tt.wantErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Expand(%q) error %q, want it to contain %q", tt.in, err, w)
			}
		}
	}
}

func TestExpandDoesNotExpandValuesAgain(t *testing.T) {
	got, err := Expand("{a}", map[string]string{"a": "{b}", "b": "no"})
	if err != nil || got != "{b}" {
		t.Errorf("Expand = %q, %v; want %q, nil", got, err, "{b}")
	}
}

func TestExpandErrorDoesNotQuoteTheValue(t *testing.T) {
	_, err := Expand("sk-live-123{oops}", map[string]string{})
	if err == nil {
		t.Fatal("Expand of an unknown placeholder succeeded")
	}
	if strings.Contains(err.Error(), "sk-live-123") {
		t.Errorf("error %q quotes the value, which may be a secret", err)
	}
	if !strings.Contains(err.Error(), "no placeholders are defined here") {
		t.Errorf("error %q, want it to say that nothing is defined", err)
	}
}

func TestStartsWithPlaceholder(t *testing.T) {
	tests := map[string]bool{"{sandbox}/x": true, "{x}": true, "/x/{sandbox}": false, "{A}/x": false, "": false, "x{a}": false}
	for in, want := range tests {
		if got := StartsWithPlaceholder(in); got != want {
			t.Errorf("StartsWithPlaceholder(%q) = %v, want %v", in, got, want)
		}
	}
}
