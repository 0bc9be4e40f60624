package db

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// wordSample is the vocabulary the generated sections and queries draw
// from: common and rare words, words one stem apart ("type", "types",
// "typed"), accents (folded away), CJK, digits and code.
var wordSample = strings.Fields(`type types typed typing value values method methods receiver pointer
	interface set sets slice slices expression expressions channel goroutine select defer panic recover
	café cafe naïve Ångström 日本語 テキスト x86 int64 utf8 a[i:j] x.(T) map[string]int len cap
	the of and is in a to for with zzyzx quux frobnicate`)

// genSections makes n sections whose words follow a steep curve (the first
// words of wordSample in most sections, the last in few), with words in
// every column.
func genSections(r *rand.Rand, n int, tag string) []Section {
	word := func() string {
		i := int(math.Floor(math.Pow(r.Float64(), 3) * float64(len(wordSample))))
		return wordSample[i]
	}
	text := func(words int) string {
		parts := make([]string, words)
		for i := range parts {
			parts[i] = word()
		}
		return strings.Join(parts, " ")
	}
	out := make([]Section, n)
	for i := range out {
		out[i] = Section{SectionID: fmt.Sprintf("%s-%d", tag, i), Level: 2, Title: text(1 + r.IntN(4)),
			Path: text(r.IntN(6)), URL: "u", Text: text(r.IntN(120)), SourcePolicy: FullText, Anchors: text(r.IntN(3))}
	}
	return out
}

// TestUpgradeFillsSkips opens a store whose posting lists were written
// before migration 0007: the migration adds the skips of every long list,
// the same bytes an ingest writes, and leaves short lists without.
func TestUpgradeFillsSkips(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "w.db")
	store, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	snap := Snapshot{Language: "gen", Doc: "a", DisplayName: "a", Version: "1", SourceURL: "test",
		FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: "a1"}
	if _, err := store.Publish(ctx, snap, genSections(rand.New(rand.NewPCG(5, 6)), 3000, "a")); err != nil {
		t.Fatal(err)
	}
	skipsByTerm := func(store *DB) map[string]string {
		t.Helper()
		rows, err := store.sql.QueryContext(ctx, `SELECT term, df, coalesce(hex(skips), '') FROM word_postings`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var term, skips string
			var df int
			if err := rows.Scan(&term, &df, &skips); err != nil {
				t.Fatal(err)
			}
			if (skips != "") != (df > wordindex.SkipEvery) {
				t.Errorf("%q in %d sections has skips %q", term, df, skips)
			}
			out[term] = skips
		}
		return out
	}
	written := skipsByTerm(store)
	if written["type"] == "" {
		t.Fatal("the commonest word has no skips; the test needs a list longer than SkipEvery")
	}
	for _, q := range []string{
		`ALTER TABLE word_postings DROP COLUMN skips`,
		`DELETE FROM schema_migrations WHERE name = '0007_word_skips.sql'`,
	} {
		if _, err := store.sql.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()

	store, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if filled := skipsByTerm(store); !maps.Equal(filled, written) {
		t.Errorf("skips after the migration differ from those the ingest wrote")
	}
}
