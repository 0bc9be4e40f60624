package ingest

import (
	"context"
	"time"

	"github.com/langspec/langspec/internal/db"
)

// EnsureDefault loads the embedded Go specification into an empty store, so
// the first search works offline with nothing set up. It reports whether it
// loaded anything.
func EnsureDefault(ctx context.Context, store *db.DB, now time.Time) (bool, error) {
	empty, err := store.Empty(ctx)
	if err != nil || !empty {
		return false, err
	}
	rep, err := Ingest(ctx, store, goPreset(), Options{From: FromEmbedded, Now: func() time.Time { return now }})
	if err != nil {
		return false, err
	}
	return rep.Status != db.Unchanged, nil
}
