package ingest_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
)

// TestSpilledTextsStoreTheSameDocument: a document whose texts wait in a
// file while it is read (here nearly all of them, or all past the first
// half) is stored exactly as one held in memory: every column of
// every section, every posting and every vocabulary count; a second ingest
// of an edited copy counts the same changes; and no file is left behind.
func TestSpilledTextsStoreTheSameDocument(t *testing.T) {
	ctx := context.Background()
	from := filepath.Join("..", "..", "fixtures", "markdown", "handbook-v2")
	edited := t.TempDir()
	if err := os.CopyFS(edited, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(edited, "Basics.md")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(string(b), "\n\n", "\n\nAn edited paragraph.\n\n", 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := ingest.Resolve(nil, "typescript", "")
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC) }

	type run struct {
		dump  string
		stats []ingest.SectionStats
	}
	ingestWith := func(held int) run {
		dir := t.TempDir()
		spill := filepath.Join(dir, "spill")
		if err := os.Mkdir(spill, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "langspec.db")
		store, err := db.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		var r run
		for i, copy := range []string{from, edited} {
			rep, err := ingest.Ingest(ctx, store, src, ingest.Options{From: copy, Now: now, SpillDir: spill, TextsHeld: held,
				Version: fmt.Sprint("v", i)})
			if err != nil {
				t.Fatalf("texts held %d, ingest %d: %v", held, i, err)
			}
			r.stats = append(r.stats, rep.Sections)
			if left, _ := os.ReadDir(spill); len(left) != 0 {
				t.Errorf("texts held %d: files left in the spill folder: %v", held, left)
			}
		}
		r.dump = dumpStore(t, path)
		return r
	}
	held := ingestWith(-1)
	if held.stats[1].Changed == 0 {
		t.Fatalf("the edit changed no section: %+v", held.stats)
	}
	// Nearly every text in the file, then about half of them (the
	// fixture's sections hold 3 KB of text).
	for _, limit := range []int{1, 1500} {
		got := ingestWith(limit)
		if got.dump != held.dump {
			t.Errorf("texts held %d: the store differs from the one whose texts were held", limit)
		}
		if fmt.Sprint(got.stats) != fmt.Sprint(held.stats) {
			t.Errorf("texts held %d: stats %+v, want %+v", limit, got.stats, held.stats)
		}
	}
}

// dumpStore is every stored section, posting list and vocabulary count of
// the database at path, as text.
func dumpStore(t *testing.T, path string) string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var out strings.Builder
	for _, q := range []string{
		`SELECT id, snapshot_id, section_id, parent_id, ord, level, title, section_path, url, body, char_count,
			content_hash, source_policy, anchors, shapes FROM sections ORDER BY id`,
		`SELECT snapshot_id, term, df, hex(postings), hex(skips) FROM word_postings ORDER BY snapshot_id, term`,
		`SELECT snapshot_id, sections, tokens, hex(layout) FROM word_layouts ORDER BY snapshot_id`,
		`SELECT snapshot_id, term, df FROM snapshot_terms ORDER BY snapshot_id, term`,
	} {
		rows, err := conn.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		n := 0
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&out, vals...)
			n++
		}
		rows.Close()
		if n == 0 {
			t.Fatalf("nothing stored for %s", q)
		}
	}
	return out.String()
}
