package db_test

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/db"
)

// scratchIndexes are the scratch databases beside the store at path.
func scratchIndexes(t *testing.T, path string) []string {
	t.Helper()
	found, err := filepath.Glob(path + ".index-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestSideIndexesAreTheWrittenOnes writes one snapshot into two stores: an
// empty one nobody else has open, whose literal and shape indexes are built
// beside the writer in a scratch database and copied in (sideindex.go), and
// one open in another handle, which writes them itself. The hash is made
// tiny, so that each index is flushed into many segments and merged, as a
// million sections make it at the real size. Every row of both indexes'
// shadow tables is the same in the two stores, the scratch database is
// there in the middle of the first write only and gone after it, and the
// store passes FTS5's integrity check.
func TestSideIndexesAreTheWrittenOnes(t *testing.T) {
	ctx := context.Background()
	// Literals (x[i:j], f(T)) and shapes in every section, some shared.
	secs := make([]db.Section, 600)
	for i := range secs {
		secs[i] = db.Section{SectionID: fmt.Sprintf("S%d", i), Level: 2, Title: fmt.Sprintf("Section %d", i),
			Path: fmt.Sprintf("Part %d > Section %d", i%7, i), URL: "u", SourcePolicy: db.FullText,
			Text: fmt.Sprintf("word%d and `x%d[i:j]` call f%d.(T) then `m[k%d] = v` over %s", i, i*7%600, i%13, i%5, strings.Repeat("chan<- int ", i%4))}
	}
	write := func(t *testing.T, alone bool) (path string, scratchMid []string) {
		path = filepath.Join(t.TempDir(), "langspec.db")
		d, err := db.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if !alone {
			other, err := db.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			if err := other.Ping(ctx); err != nil {
				t.Fatal(err)
			}
		}
		src := &watchedSource{SectionList: secs, at: 300, watch: func() error { scratchMid = scratchIndexes(t, path); return nil }}
		if _, err := d.PublishFrom(ctx, snapshot("go1.26", "h1"), src, db.PublishOptions{IndexMemory: 1024}); err != nil {
			t.Fatal(err)
		}
		if err := d.IntegrityCheck(ctx); err != nil {
			t.Error(err)
		}
		if left := scratchIndexes(t, path); len(left) > 0 {
			t.Errorf("scratch databases left after the write: %q", left)
		}
		return path, scratchMid
	}
	aside, scratchAside := write(t, true)
	written, scratchWritten := write(t, false)
	if len(scratchAside) != 1 || len(scratchWritten) != 0 {
		t.Fatalf("scratch databases in the middle of the write: %q alone, %q beside another handle; want one and none", scratchAside, scratchWritten)
	}
	a, b := shadowRows(t, aside), shadowRows(t, written)
	if len(a) < 7 {
		t.Fatalf("only %d shadow tables: %v", len(a), slices.Sorted(maps.Keys(a)))
	}
	for table, rows := range b {
		switch got := a[table]; {
		case len(got) != len(rows):
			t.Errorf("%s: %d rows built aside, %d written", table, len(got), len(rows))
		case !slices.Equal(got, rows):
			t.Errorf("%s: the rows built aside differ from the rows written", table)
		}
	}
	for table := range a {
		if _, ok := b[table]; !ok {
			t.Errorf("%s: built aside only", table)
		}
	}
}

// shadowRows reads every row of the literal and shape indexes' shadow
// tables of the store at path, in order, each as the quoted SQL values.
func shadowRows(t *testing.T, path string) map[string][]string {
	t.Helper()
	conn, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	all := map[string][]string{}
	for _, table := range queryStrings(t, conn, `SELECT name FROM sqlite_schema WHERE type = 'table'
		AND (name LIKE 'sections\_trigram\_%' ESCAPE '\' OR name LIKE 'sections\_shapes\_%' ESCAPE '\')`) {
		var quoted []string
		for _, c := range queryStrings(t, conn, `SELECT name FROM pragma_table_info(?)`, table) {
			quoted = append(quoted, `quote("`+c+`")`)
		}
		all[table] = queryStrings(t, conn, `SELECT `+strings.Join(quoted, ` || ',' || `)+` FROM "`+table+`" ORDER BY 1`)
	}
	return all
}

// queryStrings is the one text column of every row query returns.
func queryStrings(t *testing.T, conn *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := conn.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
