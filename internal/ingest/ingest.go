package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"time"

	"github.com/langspec/langspec/internal/db"
)

// Go reads the Go specification from src, parses it and publishes it. Reading
// the same content again is reported as db.Unchanged and writes nothing.
func Go(ctx context.Context, store *db.DB, client *http.Client, src Source, now time.Time) (db.PublishResult, error) {
	raw, err := src.Read(ctx, client)
	if err != nil {
		return db.PublishResult{}, err
	}
	if err := ctx.Err(); err != nil {
		return db.PublishResult{}, err
	}
	parsed, err := ParseGoSpec(raw)
	if err != nil {
		return db.PublishResult{}, err
	}
	sum := sha256.Sum256(raw)
	snap := db.Snapshot{
		Language:    GoLanguage,
		Doc:         GoDoc,
		DisplayName: GoDisplayName,
		Version:     parsed.Version,
		SourceURL:   sourceURL(src),
		FetchedAt:   now,
		ContentHash: hex.EncodeToString(sum[:]),
	}
	return store.Publish(ctx, snap, parsed.Sections)
}

// sourceURL records where the text came from; the built-in snapshot is cited
// by its canonical address.
func sourceURL(src Source) string {
	if src.Kind == FromEmbedded {
		return GoCanonical
	}
	return src.Location
}

// EnsureDefault loads the embedded Go specification into an empty store, so
// the first search works offline with nothing set up. It reports whether it
// loaded anything.
func EnsureDefault(ctx context.Context, store *db.DB, now time.Time) (bool, error) {
	empty, err := store.Empty(ctx)
	if err != nil || !empty {
		return false, err
	}
	res, err := Go(ctx, store, nil, EmbeddedGoSpec(), now)
	if err != nil {
		return false, err
	}
	return res.Status != db.Unchanged, nil
}
