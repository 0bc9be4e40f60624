package db

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// TestUpgradeFromBeforeRanking opens a store written before migration 0003
// (no anchors, shapes or vocabulary) the way a user upgrading would: the
// migration runs, the old text stays searchable, and the next ingest of the
// unchanged source rewrites the document with the new fields instead of
// calling it unchanged — without corrupting the indexes on the way (deleting
// rows the new shapes index never saw once did).
func TestUpgradeFromBeforeRanking(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	d := &DB{sql: old, path: path}
	if _, err := old.ExecContext(ctx, `CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"0001_init.sql", "0002_manuals.sql"} {
		if err := d.applyMigration(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO documents (id, language, doc, display_name) VALUES (1, 'go', 'spec', 'Go spec')`,
		`INSERT INTO snapshots (id, document_id, version, source_url, fetched_at, content_hash, complete, section_count)
			VALUES (1, 1, 'go1.26', 'test', '2026-01-01T00:00:00Z', 'h1', 1, 1)`,
		`INSERT INTO sections (snapshot_id, section_id, ord, level, title, section_path, url, body, char_count, content_hash, source_policy)
			VALUES (1, 'Slice_expressions', 0, 2, 'Slice expressions', 'Slice expressions', 'u', 'a[low : high : max]', 19, 'x', 'full_text')`,
	} {
		if _, err := old.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	store, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sc, err := store.Scope(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := wordHits(ctx, sc, "slice")
	if err != nil || len(ps) != 1 {
		t.Fatalf("old text after the migration: %v, %v", ps, err)
	}
	// Migration 0004 wrote the literals of the old text and 0005 indexed
	// them: its code is found as a substring before any re-ingest.
	if ps, err := sc.Substrings(ctx, []string{"a[low"}); err != nil || len(ps) != 1 {
		t.Fatalf("old code after the migration: %v, %v", ps, err)
	}
	if err := store.IntegrityCheck(ctx); err != nil {
		t.Fatalf("indexes after the migration: %v", err)
	}
	snap := Snapshot{Language: "go", Doc: "spec", DisplayName: "Go spec", Version: "go1.26", SourceURL: "test",
		FetchedAt: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), ContentHash: "h1"}
	secs := []Section{{SectionID: "Slice_expressions", Level: 2, Title: "Slice expressions", Path: "Slice expressions",
		URL: "u", Text: "a[low : high : max]", SourcePolicy: FullText, Anchors: "full slice expression"}}
	res, err := store.Publish(ctx, snap, secs)
	if err != nil || res.Status != Updated {
		t.Fatalf("re-ingest after the upgrade: %+v, %v; want updated", res, err)
	}
	if err := store.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	sc, err = store.Scope(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func() (int, error){
		"shape": func() (int, error) {
			found, err := sc.Shapes(ctx, []string{"x[x:x:x]"})
			return len(found), err
		},
		"literal": func() (int, error) {
			found, err := sc.Substrings(ctx, []string{"max]"})
			return len(found), err
		},
		"anchor": func() (int, error) {
			hits, err := wordHits(ctx, sc, "full")
			return len(hits), err
		},
	} {
		if ps, err := run(); err != nil || ps != 1 {
			t.Errorf("%s after the re-ingest: %v, %v", name, ps, err)
		}
	}
	counts, err := sc.Counts(ctx, []string{"slice", "zebra"})
	if err != nil || counts.DF["slice"] != 1 || counts.DF["zebra"] != 0 || counts.Sections != 1 {
		t.Errorf("counts = %+v, %v", counts, err)
	}
	vocab, err := sc.Vocabulary(ctx)
	if err != nil || vocab.DF("slice") != 1 || vocab.DF("expression") != 1 || vocab.DF("low") != 1 {
		t.Errorf("vocabulary = %v, %v", vocab, err)
	}
	if counts, err := sc.Counts(ctx, []string{"slice"}); err != nil || counts.DF["slice"] != 1 {
		t.Errorf("counts from the loaded vocabulary = %+v, %v", counts, err)
	}
	if res, err := store.Publish(ctx, snap, secs); err != nil || res.Status != Unchanged {
		t.Errorf("second re-ingest: %+v, %v; want unchanged", res, err)
	}
}

// wordHits is the ranking engine's word channel for word over sc.
func wordHits(ctx context.Context, sc *Scoped, word string) ([]rank.Hit, error) {
	q, err := ftsquery.Parse(word)
	if err != nil {
		return nil, err
	}
	res, err := rank.New(rank.Weights{Channels: map[string]float64{rank.ChannelWords: 1}}).Search(ctx, sc, q, 10)
	return res.Hits, err
}
