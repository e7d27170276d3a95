package hostpath

import (
	"path"
	"strings"
)

// credentialPatterns are the names (lower case, path.Match) of files that
// hold credentials: keys and certificates' private halves, cloud and OAuth
// credentials, tokens, .env files, password stores.
var credentialPatterns = []string{
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk", "*.asc", "*.gpg",
	"id_*", "*credential*", "*token*", "*secret*", "*password*", "*passwd*",
	".env", ".env.*", "*.env", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".git-credentials",
	"service-account*.json", "serviceaccount*.json", "oauth*.json", "client_secret*.json",
	"*-sa.json", "gcp-*.json", "keyfile*.json", "auth.json", "kubeconfig", "htpasswd", ".htpasswd",
}

// Credentials reports whether a file's name (its last element) marks it
// as a credentials file, which sealmark scan does not copy into the
// sandbox unless told to: id_rsa, server.pem, .env, credentials.json,
// service-account-prod.json, oauth-keys.json, gh_token.txt, ...
func Credentials(p string) bool {
	p = strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/")
	base := strings.ToLower(path.Base(p))
	for _, pat := range credentialPatterns {
		if ok, _ := path.Match(pat, base); ok {
			return true
		}
	}
	return false
}
