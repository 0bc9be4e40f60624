package db_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

func mustOpenDB(tb testing.TB) *db.DB {
	tb.Helper()
	d, err := db.Open(context.Background(), filepath.Join(tb.TempDir(), "langspec.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	return d
}

func snapshot(version, hash string) db.Snapshot {
	return db.Snapshot{Language: "go", Doc: "spec", DisplayName: "Go spec", Version: version,
		SourceURL: "test", FetchedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), ContentHash: hash}
}

// sections makes n sections; the first mentions word, so a search can tell
// versions apart.
func sections(n int, word string) []db.Section {
	out := make([]db.Section, n)
	for i := range out {
		out[i] = db.Section{SectionID: fmt.Sprintf("S%d", i), Level: 2, Title: fmt.Sprintf("Section %d", i),
			Path: fmt.Sprintf("Section %d", i), URL: "u", Text: "common filler text about channels", SourcePolicy: db.FullText}
	}
	out[0].Text = "this version says " + word
	return out
}

// mustSearch returns the sections of scope sc whose words hold word, best
// first: the ranking engine's word channel over what the store reads.
func mustSearch(tb testing.TB, d *db.DB, sc db.Scope, word string) []db.SectionRow {
	tb.Helper()
	ctx := context.Background()
	scoped, err := d.Scope(ctx, db.Filter{Scope: sc})
	if err != nil {
		tb.Fatal(err)
	}
	q, err := ftsquery.Parse(word)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := rank.New(rank.Weights{Channels: map[string]float64{rank.ChannelWords: 1}}).Search(ctx, scoped, q, 10)
	if err != nil {
		tb.Fatal(err)
	}
	ids := make([]int64, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return rowsOf(tb, scoped, ids)
}

// holding returns the ids of the sections of found that hold what was
// looked for (a count above zero).
func holding(found []rank.Occurrences) []int64 {
	var ids []int64
	for _, o := range found {
		if o.Title+o.Path+o.Body > 0 {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

// rowsOf reads the sections of row ids, in their order.
func rowsOf(tb testing.TB, scoped *db.Scoped, ids []int64) []db.SectionRow {
	tb.Helper()
	rows, err := scoped.Sections(context.Background(), ids)
	if err != nil {
		tb.Fatal(err)
	}
	out := make([]db.SectionRow, 0, len(ids))
	for _, id := range ids {
		out = append(out, rows[id])
	}
	return out
}

func TestOpenTwiceChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "langspec.db")
	ctx := context.Background()
	d, err := db.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	before, err := d.SchemaState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d, err = db.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	after, err := d.SchemaState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if before != after {
		t.Errorf("second open changed the schema: %+v → %+v", before, after)
	}
	if len(after.Migrations) == 0 || !strings.HasPrefix(after.Migrations, "0001_init.sql@") {
		t.Errorf("migrations = %v", after.Migrations)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte(strings.Repeat("this is not sqlite ", 500)), 0o644)
	notLangspec := filepath.Join(dir, "other.db")
	other, err := db.Open(context.Background(), notLangspec)
	if err != nil {
		t.Fatal(err)
	}
	other.Close()
	tests := []struct {
		name string
		path string
		code apperr.Code
	}{
		{"not a database", garbage, apperr.CorruptDatabase},
		{"directory", dir, apperr.Unavailable},
		{"empty path", "", apperr.InvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := db.Open(context.Background(), tt.path)
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded")
			}
			if apperr.CodeOf(err) != tt.code {
				t.Fatalf("code = %s (%v), want %s", apperr.CodeOf(err), err, tt.code)
			}
			if strings.Contains(err.Error(), "SQL") || strings.Contains(err.Error(), "sqlite") {
				t.Errorf("error leaks driver text: %v", err)
			}
		})
	}
}

func TestPublish(t *testing.T) {
	ctx := context.Background()
	d := mustOpenDB(t)
	steps := []struct {
		version, hash, word string
		want                db.PublishStatus
	}{
		{"go1.25", "h1", "alpha", db.Created},
		{"go1.25", "h1", "alpha", db.Unchanged},
		{"go1.26", "h2", "beta", db.Created},
		{"go1.26", "h3", "gamma", db.Updated},
		{"go1.9", "h4", "delta", db.Created}, // older version ingested last
	}
	for _, s := range steps {
		res, err := d.Publish(ctx, snapshot(s.version, s.hash), sections(3, s.word))
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != s.want {
			t.Errorf("publish %s/%s = %s, want %s", s.version, s.hash, res.Status, s.want)
		}
	}
	vs, err := d.Versions(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, fmt.Sprintf("%s:%v", v.Version, v.Default))
	}
	if strings.Join(got, " ") != "go1.26:true go1.25:false go1.9:false" {
		t.Errorf("versions = %v", got)
	}
	// The latest version is searched by default; the replaced content is gone.
	if hits := mustSearch(t, d, db.Scope{}, "gamma"); len(hits) != 1 || hits[0].Version != "go1.26" {
		t.Errorf("gamma hits = %+v", hits)
	}
	if hits := mustSearch(t, d, db.Scope{}, "beta"); len(hits) != 0 {
		t.Errorf("replaced content still found: %+v", hits)
	}
	if hits := mustSearch(t, d, db.Scope{Version: "go1.25"}, "alpha"); len(hits) != 1 {
		t.Errorf("alpha in go1.25 = %+v", hits)
	}
}

func TestPublishRejects(t *testing.T) {
	d := mustOpenDB(t)
	dup := sections(2, "x")
	dup[1].SectionID = dup[0].SectionID
	badPolicy := sections(1, "x")
	badPolicy[0].SourcePolicy = "whatever"
	tests := []struct {
		name string
		snap db.Snapshot
		secs []db.Section
		msg  string
	}{
		{"no sections", snapshot("v", "h"), nil, "no sections"},
		{"duplicate id", snapshot("v", "h"), dup, "occurs twice"},
		{"bad policy", snapshot("v", "h"), badPolicy, "source policy"},
		{"no version", snapshot("", "h"), sections(1, "x"), "no version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.Publish(context.Background(), tt.snap, tt.secs)
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want invalid_argument with %q", err, tt.msg)
			}
		})
	}
}

// An ingest that dies half-way leaves the previous version current, and
// readers keep working (no SQLITE_BUSY) while it writes.
func TestPublishIsAtomicAndReadersNeverBlock(t *testing.T) {
	d := mustOpenDB(t)
	if _, err := d.Publish(context.Background(), snapshot("go1.25", "old"), sections(5, "oldword")); err != nil {
		t.Fatal(err)
	}
	// A second handle, as a second process would have.
	reader, err := db.Open(context.Background(), d.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := d.Publish(ctx, snapshot("go1.26", "new"), sections(20000, "newword"))
		done <- err
	}()
	var wg sync.WaitGroup
	var searches int
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			hits := mustSearch(t, reader, db.Scope{Language: "go"}, "oldword")
			if len(hits) != 1 || hits[0].Version != "go1.25" {
				t.Errorf("during ingest: hits = %+v", hits)
				return
			}
			searches++
			if searches == 20 {
				cancel() // the ingest dies mid-write
			}
		}
	}()
	err = <-done
	close(stop)
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Publish err = %v, want context.Canceled (did it finish before 20 searches?)", err)
	}
	if hits := mustSearch(t, reader, db.Scope{}, "newword"); len(hits) != 0 {
		t.Errorf("half-written version is visible: %+v", hits)
	}
	vs, _ := reader.Versions(context.Background(), "")
	if len(vs) != 1 || vs[0].Version != "go1.25" {
		t.Errorf("versions after failed ingest = %+v", vs)
	}
}

func TestSectionLookup(t *testing.T) {
	ctx := context.Background()
	d := mustOpenDB(t)
	secs := []db.Section{
		{SectionID: "Expressions", Level: 2, Title: "Expressions", Path: "Expressions", URL: "u#Expressions", Text: "e", SourcePolicy: db.FullText},
		{SectionID: "Slice_expressions", ParentID: "Expressions", Level: 3, Title: "Slice expressions", Path: "Expressions > Slice expressions", URL: "u#Slice_expressions", Text: "s", SourcePolicy: db.FullText},
		{SectionID: "Full_slice_expressions", ParentID: "Slice_expressions", Level: 4, Title: "Full slice expressions", Path: "p", URL: "u", Text: "f", SourcePolicy: db.FullText},
		{SectionID: "Statements", Level: 2, Title: "Statements", Path: "Statements", URL: "u", Text: "st", SourcePolicy: db.FullText},
	}
	if _, err := d.Publish(ctx, snapshot("go1.26", "h"), secs); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"Slice_expressions", "slice_expressions", "Slice expressions", "slice expression", "the Slice_expression"} {
		r, err := d.Section(ctx, db.Scope{}, id)
		if err != nil || r.SectionID != "Slice_expressions" {
			t.Errorf("Section(%q) = %q, %v", id, r.SectionID, err)
		}
	}
	_, err := d.Section(ctx, db.Scope{}, "Slice_exprssions")
	if apperr.CodeOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "nearest ids: Slice_expressions") {
		t.Errorf("typo: %v", err)
	}
	_, err = d.Section(ctx, db.Scope{Language: "rust"}, "Slice_expressions")
	if apperr.CodeOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "available languages: go") {
		t.Errorf("unknown language: %v", err)
	}
	_, err = d.Section(ctx, db.Scope{Version: "go1.1"}, "Slice_expressions")
	if apperr.CodeOf(err) != apperr.NotFound || !strings.Contains(err.Error(), "available versions: go1.26") {
		t.Errorf("unknown version: %v", err)
	}
	r, _ := d.Section(ctx, db.Scope{}, "Expressions")
	subs, err := d.Subsections(ctx, r)
	if err != nil || len(subs) != 2 || subs[1].SectionID != "Full_slice_expressions" {
		t.Errorf("Subsections = %+v, %v", subs, err)
	}
}

func TestCompareVersionStrings(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"go1.9", "go1.10", -1},
		{"go1.26", "go1.26", 0},
		{"go1.26.1", "go1.26", 1},
		{"se8", "se21", -1},
		{"snapshot-20260208", "snapshot-20251231", 1},
		{"1.010", "1.9", 1},
	}
	for _, tt := range tests {
		if got := db.CompareVersionStrings(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// A version with missing pages never becomes current, and never replaces a
// complete copy; the same content under a new name (a date-named re-fetch)
// is no new version.
func TestPublishIncompleteAndRenamed(t *testing.T) {
	ctx := context.Background()
	d := mustOpenDB(t)
	incomplete := func(version, hash string) db.Snapshot {
		s := snapshot(version, hash)
		s.Incomplete = true
		return s
	}
	steps := []struct {
		name        string
		snap        db.Snapshot
		word        string
		want        db.PublishStatus
		wantVersion string // reported version, when it differs from snap's
	}{
		{"first complete", snapshot("2026-01-01", "h1"), "alpha", db.Created, ""},
		{"newer but incomplete", incomplete("2026-02-01", "h2"), "beta", db.KeptIncomplete, ""},
		{"same content, new date", snapshot("2026-03-01", "h1"), "alpha", db.Unchanged, "2026-01-01"},
		{"incomplete copy of a complete version", incomplete("2026-01-01", "h3"), "gamma", db.KeptIncomplete, ""},
		{"complete retry replaces the incomplete one", snapshot("2026-02-01", "h4"), "delta", db.Created, ""},
	}
	for _, s := range steps {
		res, err := d.Publish(ctx, s.snap, sections(3, s.word))
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		want := s.wantVersion
		if want == "" {
			want = s.snap.Version
		}
		if res.Status != s.want || res.Version != want {
			t.Errorf("%s: %s %s, want %s %s", s.name, res.Status, res.Version, s.want, want)
		}
		if s.name == "newer but incomplete" {
			// The incomplete version is listed but the complete one stays current.
			if hits := mustSearch(t, d, db.Scope{}, "alpha"); len(hits) != 1 || hits[0].Version != "2026-01-01" {
				t.Errorf("after an incomplete fetch: %+v", hits)
			}
			if hits := mustSearch(t, d, db.Scope{}, "beta"); len(hits) != 0 {
				t.Errorf("incomplete version searched: %+v", hits)
			}
		}
	}
	if hits := mustSearch(t, d, db.Scope{}, "gamma"); len(hits) != 0 {
		t.Errorf("incomplete copy replaced the complete one: %+v", hits)
	}
	if hits := mustSearch(t, d, db.Scope{}, "delta"); len(hits) != 1 || hits[0].Version != "2026-02-01" {
		t.Errorf("complete retry not current: %+v", hits)
	}
}

func TestPrune(t *testing.T) {
	ctx := context.Background()
	d := mustOpenDB(t)
	for i, v := range []string{"go1.22", "go1.23", "go1.24", "go1.25"} {
		if _, err := d.Publish(ctx, snapshot(v, fmt.Sprint("h", i)), sections(2, v)); err != nil {
			t.Fatal(err)
		}
	}
	failed := snapshot("go1.26", "h9")
	failed.Incomplete = true
	if _, err := d.Publish(ctx, failed, sections(2, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Prune(ctx, db.Scope{Language: "go"}, 0); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("keep 0: %v", err)
	}
	if _, err := d.Prune(ctx, db.Scope{Language: "cobol"}, 1); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("unknown language: %v", err)
	}
	removed, err := d.Prune(ctx, db.Scope{Language: "go", Doc: "spec"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range removed {
		names = append(names, v.Version)
	}
	if strings.Join(names, " ") != "go1.26 go1.23 go1.22" {
		t.Errorf("removed %v", names)
	}
	vs, _ := d.Versions(ctx, "go")
	if len(vs) != 2 || vs[0].Version != "go1.25" || !vs[0].Default || vs[1].Version != "go1.24" {
		t.Errorf("left %+v", vs)
	}
	if _, err := d.Scope(ctx, db.Filter{Scope: db.Scope{Version: "go1.22"}}); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("pruned version still searchable: %v", err)
	}
	if err := d.IntegrityCheck(ctx); err != nil {
		t.Errorf("integrity after prune: %v", err)
	}
}

// TestIndexesFollowWrites: the store writes new rows into the three
// section indexes itself (no insert trigger); after publishing, replacing a
// version and pruning, every index matches the sections (FTS5's own
// integrity check), the words and substrings of the current text are found,
// and those of the replaced text are not.
func TestIndexesFollowWrites(t *testing.T) {
	d := mustOpenDB(t)
	ctx := context.Background()
	substrings := func(needle string) []string {
		t.Helper()
		scoped, err := d.Scope(ctx, db.Filter{Scope: db.Scope{Language: "go"}})
		if err != nil {
			t.Fatal(err)
		}
		found, err := scoped.Substrings(ctx, []string{strings.ToLower(needle)})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rowsOf(t, scoped, holding(found)) {
			out = append(out, r.SectionID)
		}
		return out
	}
	check := func(step, word, gone string) {
		t.Helper()
		if err := d.IntegrityCheck(ctx); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if got := mustSearch(t, d, db.Scope{Language: "go"}, word); len(got) != 1 || got[0].SectionID != "S0" {
			t.Errorf("%s: words %q found %d sections", step, word, len(got))
		}
		if got := mustSearch(t, d, db.Scope{Language: "go"}, gone); len(got) != 0 {
			t.Errorf("%s: the replaced word %q is still found", step, gone)
		}
		if got := substrings(word + ".(T"); len(got) != 1 || got[0] != "S0" {
			t.Errorf("%s: the code %s.(T) found %v", step, word, got)
		}
		if got := substrings(gone + ".(T"); len(got) != 0 {
			t.Errorf("%s: the replaced code %s.(T) found %v", step, gone, got)
		}
	}
	// Each version's first section holds its word as a word and in code.
	withCode := func(n int, word string) []db.Section {
		s := sections(n, word)
		s[0].Text += "; call " + word + ".(T) then"
		return s
	}
	if _, err := d.Publish(ctx, snapshot("go1.26", "h1"), withCode(3, "zebra")); err != nil {
		t.Fatal(err)
	}
	check("publish", "zebra", "walrus")
	if _, err := d.Publish(ctx, snapshot("go1.26", "h2"), withCode(3, "walrus")); err != nil {
		t.Fatal(err)
	}
	check("replace", "walrus", "zebra")
	if _, err := d.Publish(ctx, snapshot("go1.27", "h3"), withCode(4, "ocelot")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Prune(ctx, db.Scope{Language: "go"}, 1); err != nil {
		t.Fatal(err)
	}
	check("prune", "ocelot", "walrus")
	// Trigrams apart are not a substring: "ab.cd … cde.x" holds every
	// trigram of "ab.cde", and no section holds "ab.cde" itself.
	if _, err := d.Publish(ctx, snapshot("go1.28", "h4"), sections(2, "ab.cd cde.x")); err != nil {
		t.Fatal(err)
	}
	if got := substrings("ab.cde"); len(got) != 0 {
		t.Errorf("a needle whose trigrams occur apart found %v", got)
	}
	if got := substrings("AB.CD"); len(got) != 1 {
		t.Errorf("a needle held as written, case aside, found %v", got)
	}
}

// TestMemoFollowsOtherWriters: what a store keeps between searches
// (versions, word counts, postings, rows) is dropped as soon as another
// handle on the same file commits — here a second handle, as an ingest
// run beside a server would be — even when the replacing sections reuse
// the row ids of the replaced ones.
func TestMemoFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "langspec.db")
	open := func() *db.DB {
		d, err := db.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	server, ingest := open(), open()
	if _, err := ingest.Publish(ctx, snapshot("go1.26", "h1"), sections(3, "alpha")); err != nil {
		t.Fatal(err)
	}
	counts := func(word string) int {
		t.Helper()
		scoped, err := server.Scope(ctx, db.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		wc, err := scoped.Counts(ctx, []string{word})
		if err != nil {
			t.Fatal(err)
		}
		return wc.DF[word]
	}
	for range 2 { // the second time from the memo
		if hits := mustSearch(t, server, db.Scope{}, "alpha"); len(hits) != 1 || hits[0].Text != "this version says alpha" {
			t.Fatalf("alpha hits = %+v", hits)
		}
		if n := counts("alpha"); n != 1 {
			t.Fatalf("alpha counted in %d sections", n)
		}
	}
	if _, err := ingest.Publish(ctx, snapshot("go1.26", "h2"), sections(3, "gamma")); err != nil {
		t.Fatal(err)
	}
	hits := mustSearch(t, server, db.Scope{}, "gamma")
	if len(hits) != 1 || hits[0].Text != "this version says gamma" {
		t.Fatalf("after the other handle's write, gamma hits = %+v", hits)
	}
	if hits := mustSearch(t, server, db.Scope{}, "alpha"); len(hits) != 0 {
		t.Errorf("replaced text still found: %+v", hits)
	}
	if n := counts("alpha"); n != 0 {
		t.Errorf("replaced word still counted in %d sections", n)
	}
	if _, err := ingest.Publish(ctx, snapshot("go1.27", "h3"), sections(2, "delta")); err != nil {
		t.Fatal(err)
	}
	vs, err := server.Versions(ctx, "go")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Version != "go1.27" || !vs[0].Default {
		t.Errorf("versions after the other handle's publish = %+v", vs)
	}
	if hits := mustSearch(t, server, db.Scope{}, "delta"); len(hits) != 1 || hits[0].Version != "go1.27" {
		t.Errorf("delta hits = %+v", hits)
	}
}

func TestIsPrerelease(t *testing.T) {
	for v, want := range map[string]bool{
		"1.97.0-nightly": true, "2.0.0-beta.1": true, "3.14.0rc1": true, "1.0.0-rc.2": true, "go1.27rc1": true, "preview-2026": true,
		"1.95.0": false, "go1.26": false, "se21": false, "2024": false, "es2025": false, "3.11": false, "source": false, "arc4": false,
	} {
		if got := db.IsPrerelease(v); got != want {
			t.Errorf("IsPrerelease(%q) = %v, want %v", v, got, want)
		}
	}
}
