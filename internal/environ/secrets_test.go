package environ

import (
	"regexp"
	"testing"
)

func TestSecretName(t *testing.T) {
	tests := map[string]bool{
		"API_KEY": true, "MONKEY": true, "github_token": true, "ClientSecret": true,
		"DB_PASSWORD": true, "PASSWD": true, "AUTHOR": true, "Authorization": true,
		"AWS_CREDENTIALS_FILE": true, "SESSION_COOKIE": true, "bearer": true,
		"SIGNING": false, "PATH": false, "LOG_LEVEL": false, "DATABASE_URL": false, "": false,
	}
	for name, want := range tests {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCanaries(t *testing.T) {
	first, second := Canaries(), Canaries()
	patterns := map[string]*regexp.Regexp{
		CanaryVar:     regexp.MustCompile(`^sm-canary-[0-9a-f]{16}$`),
		FakeAPIKeyVar: regexp.MustCompile(`^sk-sealmark-fake-[0-9a-f]{24}$`),
	}
	if len(first) != 2 || first[0].Name != CanaryVar || first[1].Name != FakeAPIKeyVar {
		t.Fatalf("Canaries() = %v, want %s then %s", first, CanaryVar, FakeAPIKeyVar)
	}
	for i, kv := range first {
		if !patterns[kv.Name].MatchString(kv.Value) {
			t.Errorf("%s = %q, want it to match %s", kv.Name, kv.Value, patterns[kv.Name])
		}
		if kv.Value == second[i].Value {
			t.Errorf("%s is %q in two calls, want fresh values", kv.Name, kv.Value)
		}
	}
	if got := first[0].String(); got != CanaryVar+"="+first[0].Value {
		t.Errorf("KV.String() = %q", got)
	}
}
