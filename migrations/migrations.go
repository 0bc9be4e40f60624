// Package migrations holds the store's schema as numbered SQL files.
//
// It exists only because go:embed cannot reach a parent directory: internal/db
// imports FS and applies the files in lexical order, one transaction each.
package migrations

import "embed"

// FS holds every migration; names are NNNN_description.sql and sort in the
// order they must run.
//
//go:embed *.sql
var FS embed.FS

// StateFS holds the migrations of the state file (db.State): tokens and
// secrets, apart from the index.
//
//go:embed state/*.sql
var StateFS embed.FS
