package db

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// GoSpecHTML is the Go specification as the toolchain ships it, markup and
// all: real text with the tokenizer's hard cases, for the tests here and in
// db_test.
func GoSpecHTML(tb testing.TB) string {
	tb.Helper()
	root := runtime.GOROOT()
	if root == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			tb.Fatalf("locating GOROOT: %v", err)
		}
		root = string(bytes.TrimSpace(out))
	}
	b, err := os.ReadFile(filepath.Join(root, "doc", "go_spec.html"))
	if err != nil {
		tb.Fatalf("reading the Go spec: %v", err)
	}
	return string(b)
}

// JournalMode is the store's journal mode as a new connection finds it,
// for the tests here and in db_test.
func JournalMode(tb testing.TB, path string) string {
	tb.Helper()
	conn, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		tb.Fatal(err)
	}
	return mode
}

// ExecOnReadPool runs statement on the store's read pool (UseReadPool),
// for the tests that check it refuses to write.
func ExecOnReadPool(ctx context.Context, d *DB, statement string) error {
	if d.reads == nil {
		return errors.New("no read pool")
	}
	_, err := d.reads.ExecContext(ctx, statement)
	return err
}
