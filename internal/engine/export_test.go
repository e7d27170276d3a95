package engine

// SetCredentialHomes makes a run of c hide the credential stores of homes
// (a fake home the test made) instead of the harness user's.
func SetCredentialHomes(c *Config, homes []string) { c.credentialHomes = homes }
