package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"testing"
)

// TestReleaseGoesBackToWAL: after a direct write the file is in WAL mode
// again, also when the writer's connection can no longer run a statement
// (a cancelled write can leave it so; here it is made bad by hand).
func TestReleaseGoesBackToWAL(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(*sql.Conn)
	}{
		{"the writer's connection works", func(*sql.Conn) {}},
		{"the writer's connection is bad", func(c *sql.Conn) {
			_ = c.Raw(func(any) error { return driver.ErrBadConn })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "langspec.db")
			d, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			w, err := d.takeWriter(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !w.direct {
				t.Fatal("an empty store was not written directly")
			}
			tc.spoil(w.conn)
			w.release(ctx)

			mode := JournalMode(t, path)
			if mode != "wal" {
				t.Errorf("after the write the journal mode is %q, want wal", mode)
			}
		})
	}
}
