package db_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// A relative --db is taken from the working directory; SQLite's URI form
// would read "sub/x.db" as a host named sub.
func TestOpenRelativePath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	d, err := db.Open(context.Background(), filepath.Join("sub", "x.db"))
	if err != nil {
		t.Fatalf("relative path: %v", err)
	}
	defer d.Close()
	if want := filepath.Join(dir, "sub", "x.db"); d.Path() != want {
		t.Errorf("Path() = %q, want %q", d.Path(), want)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub", "x.db")); err != nil {
		t.Errorf("database not created in the working directory: %v", err)
	}
}

// seeded makes a store holding one version, closed, and returns its path.
func seeded(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shipped.db")
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Publish(context.Background(), snapshot("go1.26", "h1"), sections(3, "alpha")); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A store that cannot be written is served read-only: searches answer, and
// a write is unavailable with a hint, never an internal error.
func TestReadOnlyStore(t *testing.T) {
	ctx := context.Background()
	path := seeded(t)
	d, err := db.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	if hits := mustSearch(t, d, db.Scope{}, "alpha"); len(hits) != 1 {
		t.Fatalf("search on a read-only store: %d hits", len(hits))
	}
	_, err = d.Publish(ctx, snapshot("go1.27", "h2"), sections(3, "beta"))
	if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("write on a read-only store: %v, want unavailable naming read-only", err)
	}
}

// The real thing, for a user who is not root: a file and folder without
// write permission are opened read-only by Open itself.
func TestOpenDetectsAReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root can write a read-only file; TestReadOnlyStore covers the read-only mode")
	}
	path := seeded(t)
	if err := os.Chmod(path, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(path), 0o755) })
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !d.ReadOnly() || len(mustSearch(t, d, db.Scope{}, "alpha")) != 1 {
		t.Errorf("read-only file: ReadOnly %v", d.ReadOnly())
	}
}

// TestOpenNewFileSettings: a new store is created with 16 KiB pages and in
// WAL mode; the driver runs its pragma list in sorted order, so a page size
// set after WAL would be silently ignored.
func TestOpenNewFileSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	d, err := db.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var pageSize, autoVacuum int
	var mode string
	if err := conn.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(`PRAGMA auto_vacuum`).Scan(&autoVacuum); err != nil {
		t.Fatal(err)
	}
	if pageSize != 16384 || mode != "wal" || autoVacuum != 2 {
		t.Errorf("page_size %d, journal_mode %s, auto_vacuum %d; want 16384, wal and 2 (incremental)", pageSize, mode, autoVacuum)
	}
}

// TestOpenRefusesANewerIndex: a store a newer langspec migrated is refused
// as such, for writing and for reading, with its file left as it is — not
// taken for a file that is no langspec database, whose hint is to move it
// away.
func TestOpenRefusesANewerIndex(t *testing.T) {
	ctx := context.Background()
	path := seeded(t)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_the_future.sql', 'then')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(context.Context, string) (*db.DB, error){"Open": db.Open, "OpenReadOnly": db.OpenReadOnly} {
		d, err := open(ctx, path)
		if err == nil {
			d.Close()
			t.Fatalf("%s: a newer index was opened", name)
		}
		if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(err.Error(), "newer langspec") || !strings.Contains(err.Error(), "9999_from_the_future.sql") {
			t.Errorf("%s: %v (code %s)", name, err, apperr.CodeOf(err))
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the newer index was changed")
	}
}
