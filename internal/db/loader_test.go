package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/shape"
)

// The columns a section's row and indexes derive from its text are worked
// out on every core, a batch of sections at a time, and the batches finish
// in any order: each row must still get its own section's columns, in the
// document's order. The texts differ in length and shape, so a row given a
// neighbour's columns differs in every one of them.
func TestPublishGivesEachSectionItsOwnColumns(t *testing.T) {
	ctx := context.Background()
	d := mustOpenDB(t)
	const n = 5*256 + 7 // five whole batches and part of a sixth
	secs := make([]db.Section, n)
	for i := range secs {
		secs[i] = db.Section{
			SectionID: fmt.Sprintf("s%d", i), Level: 2, Title: fmt.Sprintf("Section %d", i),
			Path: fmt.Sprintf("Part > Section %d", i), URL: "u", SourcePolicy: db.FullText,
			// A word and a literal of its own (code punctuation makes it
			// one), and a length and shape no other section has.
			Text: fmt.Sprintf("Call lit_%05d::run() here, %s.%s é%d", i, ownWord(i), strings.Repeat(" word", i%97), i),
		}
	}
	if _, err := d.Publish(ctx, snapshot("v1", "h"), secs); err != nil {
		t.Fatal(err)
	}
	// The word index found each section's own word in that section: its
	// postings were written against the right row ids.
	for i := 0; i < n; i += 37 {
		hits := mustSearch(t, d, db.Scope{Language: "go"}, ownWord(i))
		if want := fmt.Sprintf("s%d", i); len(hits) != 1 || hits[0].SectionID != want {
			var got []string
			for _, h := range hits {
				got = append(got, h.SectionID)
			}
			t.Errorf("%s is in %v, want [%s]", ownWord(i), got, want)
		}
	}
	conn, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(d.Path()), RawQuery: "mode=ro"}).String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT ord, section_id, char_count, content_hash, shapes FROM sections ORDER BY ord`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var ord, chars int
		var id, hash, shapes string
		if err := rows.Scan(&ord, &id, &chars, &hash, &shapes); err != nil {
			t.Fatal(err)
		}
		if ord != seen {
			t.Fatalf("row %d has ord %d", seen, ord)
		}
		s := secs[ord]
		if id != s.SectionID || chars != utf8.RuneCountInString(s.Text) || hash != db.TextHash(s.Text) || shapes != shape.Of(s.Text) {
			t.Fatalf("row %d = %s, %d runes, hash %s, shapes %q; want %s's: %d, %s, %q",
				ord, id, chars, hash, shapes, s.SectionID, utf8.RuneCountInString(s.Text), db.TextHash(s.Text), shape.Of(s.Text))
		}
		seen++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if seen != n {
		t.Fatalf("%d rows, want %d", seen, n)
	}
	// The literal index holds each section's literals under its own row
	// (no other section holds every trigram of lit_00001::).
	find, err := conn.PrepareContext(ctx, `SELECT s.section_id FROM sections_trigram t JOIN sections s ON s.id = t.rowid WHERE sections_trigram MATCH ?`)
	if err != nil {
		t.Fatal(err)
	}
	defer find.Close()
	for i := 0; i < n; i += 37 {
		var got []string
		r, err := find.QueryContext(ctx, ftsquery.AllTrigrams([]string{fmt.Sprintf("lit_%05d::", i)}).String())
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			var id string
			if err := r.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got = append(got, id)
		}
		r.Close()
		if want := fmt.Sprintf("s%d", i); len(got) != 1 || got[0] != want {
			t.Errorf("literal lit_%05d:: is in %v, want [%s]", i, got, want)
		}
	}
}

// ownWord is a word only section i holds, whose stem is itself: i in three
// consonants other than s, between letters no ending is made of.
func ownWord(i int) string {
	const letters = "bcdfghjklmnpqrtvwz"
	w := []byte("zq")
	for range 3 {
		w = append(w, letters[i%len(letters)])
		i /= len(letters)
	}
	return string(append(w, 'x'))
}
