// Package layout holds the shape of the tree as a test: which layer each
// package sits in, so that imports run one way only (from cmd/langspec down
// to internal/db, internal/text and internal/apperr), and the packages the
// project's design card names (internal/db, internal/ingest,
// internal/tools), which must not disappear. It has no code; see
// layout_test.go and docs/architecture.md.
package layout
