package db_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// TestUseReadPool checks what the read pool promises besides sharing: a
// size below one is refused with a typed error, its connections refuse
// to write whatever a query asks, and the store still writes through its
// own pool.
func TestUseReadPool(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, -1} {
		err := mustOpenDB(t).UseReadPool(n)
		if ae, ok := errors.AsType[*apperr.Error](err); !ok || ae.Code != apperr.InvalidArgument {
			t.Errorf("UseReadPool(%d) = %v, want invalid_argument", n, err)
		}
	}

	d := mustOpenDB(t)
	if err := d.UseReadPool(2); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Publish(ctx, snapshot("go1.26", "a"), sections(20, "firstword")); err != nil {
		t.Fatalf("a write beside the read pool: %v", err)
	}
	if hits := mustSearch(t, d, db.Scope{}, "firstword"); len(hits) != 1 {
		t.Fatalf("firstword: %d hits through the read pool, want 1", len(hits))
	}
	for _, write := range []string{
		"DELETE FROM sections",
		"UPDATE snapshots SET version = 'x'",
		"CREATE TABLE intruder (x)",
		"INSERT INTO documents (language, doc, display_name) VALUES ('x', 'y', 'z')",
	} {
		err := db.ExecOnReadPool(ctx, d, write)
		if err == nil || !strings.Contains(err.Error(), "readonly") && !strings.Contains(err.Error(), "query_only") {
			t.Errorf("%s through the read pool: %v, want a refusal", write, err)
		}
	}
	if mode := db.JournalMode(t, d.Path()); mode != "wal" {
		t.Errorf("journal mode %q after the refused writes, want wal", mode)
	}
	if hits := mustSearch(t, d, db.Scope{}, "firstword"); len(hits) != 1 {
		t.Errorf("firstword: %d hits after the refused writes, want 1", len(hits))
	}
	if _, err := d.Publish(ctx, snapshot("go1.27", "b"), sections(20, "secondword")); err != nil {
		t.Fatalf("a second write: %v", err)
	}
	if hits := mustSearch(t, d, db.Scope{}, "secondword"); len(hits) != 1 {
		t.Errorf("secondword: %d hits through the read pool after a second write, want 1", len(hits))
	}
}
