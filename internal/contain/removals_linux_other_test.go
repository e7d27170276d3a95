//go:build linux && !amd64

package contain_test

// legacyChanges: no path-only calls here (only their *at forms).
func legacyChanges(result, string) {}

// legacyWant: none.
func legacyWant(_, _ string) []change { return nil }
