// Package goldens holds Sealmark's no-change proof: its test runs every
// shipped pack against the fixture servers (the correct twin and flawed
// ones) and compares a normalized report (packs, starts, probe ids,
// verdicts, severities, finding fingerprints) with golden files in
// testdata. A change to the engine's plumbing that keeps every verdict and
// report leaves them equal; one that changes a verdict shows which.
//
//	go test ./packs/internal/goldens            # compare
//	go test ./packs/internal/goldens -update    # rewrite the golden files
package goldens
