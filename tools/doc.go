// Package tools holds the checks of what Sealmark ships for CI, kept out of
// the main module so their dependencies never reach the sealmark binary or
// its go.mod:
//
//   - actionlint (github.com/rhysd/actionlint) lints the GitHub Action
//     (action.yml) and the example workflow (docs/examples/sealmark.yml,
//     also printed in docs/ci.md), and a test runs the Action's own shell
//     steps against a stand-in sealmark;
//   - GoReleaser (github.com/goreleaser/goreleaser/v2, a tool directive of
//     this module) builds the release archives from .goreleaser.yaml:
//     go tool goreleaser check, and a snapshot build in .ci/run.
//
// Run them from this directory:
//
//	cd tools && go test ./...
//	cd tools && go tool goreleaser check --config ../.goreleaser.yaml
//
// The main module's go test ./... does not descend here: tools is a module
// of its own.
package tools
