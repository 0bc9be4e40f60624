package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
)

// TestPublishMergesOnceTheSnapshotIsWritten: a snapshot big enough for FTS5
// to write many segments (here its hash size is made tiny, as a million
// sections would make it at the real one) is indexed with merging held back
// until every row is in, then merged into one segment; the index is whole,
// answers as one written without holding back, and FTS5's own merge
// settings are back at their defaults, and the index's hash size at its
// own, for every later write.
func TestPublishMergesOnceTheSnapshotIsWritten(t *testing.T) {
	ctx := context.Background()
	indexes := []string{"sections_fts", "sections_trigram", "sections_shapes"}
	// Words enough that each section adds to the hash, and some shared.
	secs := make([]db.Section, 600)
	for i := range secs {
		secs[i] = db.Section{SectionID: fmt.Sprintf("S%d", i), Level: 2, Title: fmt.Sprintf("Section %d", i),
			Path: fmt.Sprintf("Part %d > Section %d", i%7, i), URL: "u", SourcePolicy: db.FullText,
			Text: fmt.Sprintf("word%d and word%d call f%d.(T) then x[i:j] over channels %s", i, i*7%600, i%13, strings.Repeat("filler ", i%5))}
	}
	open := func(hashSize int) (*db.DB, *sql.DB) {
		path := filepath.Join(t.TempDir(), "langspec.db")
		d, err := db.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		raw, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		for _, ix := range indexes {
			if _, err := raw.Exec(`INSERT INTO `+ix+` (`+ix+`, rank) VALUES ('hashsize', ?)`, hashSize); err != nil {
				t.Fatal(err)
			}
		}
		return d, raw
	}
	small, smallRaw := open(1024)
	big, _ := open(8 << 20)
	for i, d := range []*db.DB{small, big} {
		// The small store is also told to gather its index in no more than
		// its hash size.
		opts := db.PublishOptions{IndexMemory: []int{1024, 0}[i]}
		if _, err := d.PublishFrom(ctx, snapshot("go1.26", "h1"), db.SectionList(secs), opts); err != nil {
			t.Fatal(err)
		}
		if err := d.IntegrityCheck(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, ix := range indexes {
		var segments int
		if err := smallRaw.QueryRow(`SELECT count(DISTINCT segid) FROM ` + ix + `_idx`).Scan(&segments); err != nil {
			t.Fatal(err)
		}
		if segments != 1 {
			t.Errorf("%s: %d segments after the publish, want 1", ix, segments)
		}
		settings := map[string]string{}
		rows, err := smallRaw.Query(`SELECT k, v FROM ` + ix + `_config WHERE k IN ('automerge', 'crisismerge', 'hashsize')`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			settings[k] = v
		}
		rows.Close()
		for k, want := range map[string]string{"automerge": "4", "crisismerge": "16"} {
			if v, set := settings[k]; set && v != want {
				t.Errorf("%s: %s = %s after the publish, want FTS5's default %s", ix, k, v, want)
			}
		}
		if v := settings["hashsize"]; v != "1024" {
			t.Errorf("%s: hashsize = %s after the publish, want the index's own, 1024", ix, v)
		}
	}
	// Each index answers as the one written at once: words in FTS5's word
	// index (a phrase, which the word postings do not answer), code in the
	// literal index, shapes in the shape index.
	channels := map[string]func(*db.Scoped) ([]int64, error){
		"phrase": func(s *db.Scoped) ([]int64, error) {
			layouts, err := s.Layouts(ctx)
			if err != nil {
				return nil, err
			}
			var ids []int64
			for _, p := range []string{"over channels", "word5 and"} {
				held, err := s.Phrase(ctx, rank.Term{Text: p})
				if err != nil {
					return nil, err
				}
				for snap, ords := range held {
					for _, o := range ords {
						ids = append(ids, layouts[snap].IDs[o])
					}
				}
			}
			return ids, nil
		},
		"substring": func(s *db.Scoped) ([]int64, error) {
			found, err := s.Substrings(ctx, []string{"f7.(t", "f12.(t"})
			return holding(found), err
		},
		"shape": func(s *db.Scoped) ([]int64, error) {
			found, err := s.Shapes(ctx, []string{"x[x:x]"})
			return holding(found), err
		},
	}
	for name, search := range channels {
		var got [2][]string
		for i, d := range []*db.DB{small, big} {
			scoped, err := d.Scope(ctx, db.Filter{Scope: db.Scope{Language: "go"}})
			if err != nil {
				t.Fatal(err)
			}
			ids, err := search(scoped)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, r := range rowsOf(t, scoped, ids) {
				got[i] = append(got[i], r.SectionID)
			}
			slices.Sort(got[i])
		}
		if len(got[0]) == 0 || !slices.Equal(got[0], got[1]) {
			t.Errorf("%s: %v from the held-back index, %v from one written at once", name, got[0], got[1])
		}
	}
}

// TestWritesGiveFreePagesBack: merging an index into one segment frees the
// pages of the segments merged, and a prune frees a whole version; a new
// store gives them back to the file system, so its file holds no free page
// after either, and shrinks after the prune.
func TestWritesGiveFreePagesBack(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "langspec.db")
	d, err := db.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	free := func(step string) {
		t.Helper()
		var n int
		if err := raw.QueryRow(`PRAGMA freelist_count`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s: %d free pages left in the file", step, n)
		}
	}
	size := func() int64 {
		t.Helper()
		if _, err := raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	big := make([]db.Section, 800)
	for i := range big {
		big[i] = db.Section{SectionID: fmt.Sprintf("S%d", i), Level: 2, Title: fmt.Sprintf("Section %d", i), Path: "P", URL: "u",
			SourcePolicy: db.FullText, Text: strings.Repeat(fmt.Sprintf("word%d channel type value ", i), 20)}
	}
	if _, err := d.Publish(ctx, snapshot("go1.25", "h1"), big); err != nil {
		t.Fatal(err)
	}
	free("publish")
	if _, err := d.Publish(ctx, snapshot("go1.26", "h2"), sections(3, "zebra")); err != nil {
		t.Fatal(err)
	}
	before := size()
	if _, err := d.Prune(ctx, db.Scope{Language: "go"}, 1); err != nil {
		t.Fatal(err)
	}
	free("prune")
	if after := size(); after > before*2/3 {
		t.Errorf("the file is %d bytes after pruning the big version, %d before", after, before)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}
