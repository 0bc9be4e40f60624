package specdiff_test

// Tests on the real documents of the local toolchains: the Go specification
// from GOROOT and the Rust Reference from rustup. Each is compared with a
// copy whose source was edited in four known places (a sentence reworded, a
// section added, one removed, one renamed), and the diff must find exactly
// those.

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/specdiff"
)

// edit is one change to a document's source: replace old by new, or, when
// cutTo is set, cut from old up to (not including) cutTo. Each snippet must
// occur exactly once, so the test fails loudly when the document moves on.
type edit struct {
	old, new, cutTo string
}

func applyEdits(tb testing.TB, src []byte, edits []edit) []byte {
	tb.Helper()
	s := string(src)
	once := func(snippet string) int {
		if n := strings.Count(s, snippet); n != 1 {
			tb.Fatalf("the document has %q %d times, the edit needs it once: update the test to the new text", snippet, n)
		}
		return strings.Index(s, snippet)
	}
	for _, e := range edits {
		i := once(e.old)
		if e.cutTo == "" {
			s = s[:i] + e.new + s[i+len(e.old):]
			continue
		}
		j := once(e.cutTo)
		if j < i {
			tb.Fatalf("cut from %q to %q: the end comes first", e.old, e.cutTo)
		}
		s = s[:i] + s[j:]
	}
	return []byte(s)
}

// wantItem is an Item as the real-document tests check it.
type wantItem struct {
	kind                             string
	oldID, oldTitle, newID, newTitle string
	textChanged                      bool
}

func itemOf(it specdiff.Item) wantItem {
	w := wantItem{kind: it.Kind, textChanged: it.TextChanged}
	if it.Old != nil {
		w.oldID, w.oldTitle = it.Old.SectionID, it.Old.Title
	}
	if it.New != nil {
		w.newID, w.newTitle = it.New.SectionID, it.New.Title
	}
	return w
}

// checkDiff asserts that d has exactly the items want (in order), one
// sentence change in the changed section, marked as wantMarked, and every
// other section unchanged.
func checkDiff(t *testing.T, d specdiff.Diff, oldCount, newCount int, want []wantItem, wantMarked string) {
	t.Helper()
	var got []wantItem
	for _, it := range d.Items {
		got = append(got, itemOf(it))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("items\n%+v\nwant\n%+v", got, want)
	}
	s := d.Summary
	if s.Added != 1 || s.Removed != 1 || s.Renamed != 1 || s.Changed != 1 {
		t.Errorf("summary %+v, want one of each", s)
	}
	// The old version lost the changed, renamed and removed sections; the
	// new one the changed, renamed and added ones.
	if s.Unchanged != oldCount-3 || s.Unchanged != newCount-3 {
		t.Errorf("unchanged %d, want %d (old) and %d (new)", s.Unchanged, oldCount-3, newCount-3)
	}
	for _, it := range d.Items {
		switch it.Kind {
		case specdiff.KindChanged:
			if len(it.Sentences) != 1 || it.Sentences[0].Kind != specdiff.KindChanged || it.Sentences[0].Marked != wantMarked || it.Truncated {
				t.Errorf("changed %s: sentences %+v (truncated %v), want one marked %q", it.New.SectionID, it.Sentences, it.Truncated, wantMarked)
			}
			if it.Similarity <= 0.8 || it.Similarity >= 1 {
				t.Errorf("changed %s: similarity %.3f", it.New.SectionID, it.Similarity)
			}
		case specdiff.KindRenamed:
			if it.Similarity != 1 || len(it.Sentences) != 0 {
				t.Errorf("renamed %s: similarity %.3f, sentences %+v", it.New.SectionID, it.Similarity, it.Sentences)
			}
		}
	}
}

// goSpecRows parses go_spec.html into rows as the store would give them
// back (ord and char_count as Publish writes them).
func goSpecRows(tb testing.TB, src []byte, version string) []db.SectionRow {
	tb.Helper()
	p, err := ingest.ParseGoSpec(src)
	if err != nil {
		tb.Fatalf("parse the Go spec: %v", err)
	}
	out := make([]db.SectionRow, len(p.Sections))
	for i, s := range p.Sections {
		out[i] = db.SectionRow{
			Language: ingest.GoLanguage, Doc: ingest.GoDoc, Version: version,
			SectionID: s.SectionID, ParentID: s.ParentID, Order: i, Level: s.Level,
			Title: s.Title, Path: s.Path, URL: s.URL, Text: s.Text,
			CharCount: utf8.RuneCountInString(s.Text), SourcePolicy: s.SourcePolicy,
		}
	}
	return out
}

func TestCompareRealGoSpec(t *testing.T) {
	goroot := ingest.Goroot(context.Background())
	src, err := os.ReadFile(filepath.Join(goroot, "doc", "go_spec.html"))
	if goroot == "" || err != nil {
		t.Skipf("no Go specification in GOROOT (%q): %v", goroot, err)
	}
	edited := applyEdits(t, src, []edit{
		// (a) a sentence of "Slice expressions" reworded
		{old: "There are two variants: a simple form that specifies a low\nand high bound, and a full form that also specifies a bound on the capacity.",
			new: "There are two variants: a simple form that specifies a low\nand a high bound, and a full form that also specifies a maximum capacity."},
		// (b) a section added after "Full slice expressions"
		{old: `<h3 id="Type_assertions">Type assertions</h3>`,
			new: "<h3 id=\"Slice_bounds_checks\">Slice bounds checks</h3>\n\n<p>\nAn implementation may omit a bounds check when it can prove that the indices are in range.\n</p>\n\n" +
				`<h3 id="Type_assertions">Type assertions</h3>`},
		// (c) "Empty statements" removed, heading and all
		{old: `<h3 id="Empty_statements">Empty statements</h3>`, cutTo: `<h3 id="Labeled_statements">`},
		// (d) "Method sets" renamed: new heading and id, same text
		{old: `<h3 id="Method_sets">Method sets</h3>`, new: `<h3 id="Sets_of_methods">Sets of methods</h3>`},
	})
	old := goSpecRows(t, src, "go-old")
	newer := goSpecRows(t, edited, "go-new")

	t.Run("edited", func(t *testing.T) {
		d := compare(t, old, newer)
		checkDiff(t, d, len(old), len(newer), []wantItem{
			{kind: "renamed", oldID: "Method_sets", oldTitle: "Method sets", newID: "Sets_of_methods", newTitle: "Sets of methods"},
			{kind: "changed", oldID: "Slice_expressions", oldTitle: "Slice expressions", newID: "Slice_expressions", newTitle: "Slice expressions", textChanged: true},
			{kind: "added", newID: "Slice_bounds_checks", newTitle: "Slice bounds checks"},
			{kind: "removed", oldID: "Empty_statements", oldTitle: "Empty statements"},
		}, "There are two variants: a simple form that specifies a low and {+a+} high bound, and a full form that also specifies a [-bound on the-]{+maximum+} capacity.")
		wantChapters := []specdiff.Chapter{
			{ID: "Properties_of_types_and_values", Title: "Properties of types and values", Renamed: 1, Editorial: 1},
			{ID: "Expressions", Title: "Expressions", Changed: 1, Added: 1},
			{ID: "Statements", Title: "Statements", Removed: 1},
		}
		if !slices.Equal(d.Summary.Chapters, wantChapters) {
			t.Errorf("chapters %+v, want %+v", d.Summary.Chapters, wantChapters)
		}
	})

	t.Run("same version", func(t *testing.T) {
		d := compare(t, old, old)
		if !d.Unchanged() || d.Summary.Unchanged != len(old) {
			t.Errorf("%d items, summary %+v", len(d.Items), d.Summary)
		}
	})
}

// rustReferenceDir is the folder of the Rust Reference of the first local
// rustup toolchain of one of the channels ("stable", "nightly", or "any");
// the test skips when there is none.
func rustReferenceDir(tb testing.TB, channels ...string) string {
	home := os.Getenv("RUSTUP_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			tb.Skip("no home folder to find rustup in")
		}
		home = filepath.Join(h, ".rustup")
	}
	for _, channel := range channels {
		toolchain := channel + "-*"
		if channel == "any" {
			toolchain = "*"
		}
		matches, _ := filepath.Glob(filepath.Join(home, "toolchains", toolchain, "share", "doc", "rust", "html", "reference", "print.html"))
		if len(matches) > 0 {
			return filepath.Dir(matches[0])
		}
	}
	tb.Skipf("no Rust Reference (toolchain %s) under %s: install one with rustup and its rust-docs component", strings.Join(channels, " or "), home)
	return ""
}

// rustReferenceRows reads the Rust Reference in dir (print.html and
// toc.html) as the store gives it back. internal/ingest exports no parser
// for mdBook, so this runs the exported pipeline, ingest.Ingest, into
// store under the given version label, and reads the sections back with
// Outline (everything but the text) and SnapshotTexts (the texts, in the
// same document order).
func rustReferenceRows(tb testing.TB, store *db.DB, dir, version string) []db.SectionRow {
	tb.Helper()
	ctx := context.Background()
	src, err := ingest.Resolve(nil, "rust", "reference")
	if err != nil {
		tb.Fatal(err)
	}
	src.Version = version
	if _, err := ingest.Ingest(ctx, store, src, ingest.Options{From: dir}); err != nil {
		tb.Fatalf("ingest the Rust Reference from %s: %v", dir, err)
	}
	scope := db.Scope{Language: src.Language, Doc: src.Doc, Version: version}
	_, out, err := store.Outline(ctx, scope)
	if err != nil {
		tb.Fatal(err)
	}
	texts, err := store.SnapshotTexts(ctx, src.Language, src.Doc, version)
	if err != nil {
		tb.Fatal(err)
	}
	if len(texts) != len(out) {
		tb.Fatalf("%d sections in the outline, %d texts", len(out), len(texts))
	}
	for i := range out {
		if texts[i].Title != out[i].Title {
			tb.Fatalf("section %d: outline title %q, text title %q", i, out[i].Title, texts[i].Title)
		}
		out[i].Text = texts[i].Body
	}
	return out
}

// rustReferenceEdits are the four edits of the Rust Reference's print.html.
var rustReferenceEdits = []edit{
	// (a) a sentence of "Rust releases" reworded
	{old: "<p>Rust has a new language release every six weeks.", new: "<p>Rust has a new language release every twelve weeks."},
	// (b) a section added after "Rust releases"
	{old: `<h2 id="what-the-reference-is-not">`,
		new: `<h2 id="release-notes"><a class="header" href="#release-notes">Release notes</a></h2>` + "\n" +
			"<p>Each release of this book lists what changed since the previous one.</p>\n" +
			`<h2 id="what-the-reference-is-not">`},
	// (c) "Trait object layout" removed, with the rule marker before it
	{old: `<div class="rule" id="r-layout.trait-object">`, cutTo: `<div class="rule" id="r-layout.closure">`},
	// (d) "macro_use prelude" renamed: new heading and id, same text
	{old: `<h2 id="macro_use-prelude"><a class="header" href="#macro_use-prelude"><code>macro_use</code> prelude</a></h2>`,
		new: `<h2 id="prelude-of-macro_use-imports"><a class="header" href="#prelude-of-macro_use-imports">Prelude of <code>macro_use</code> imports</a></h2>`},
}

// rustReferenceVersions are the local Rust Reference and its edited copy.
func rustReferenceVersions(tb testing.TB) (old, newer []db.SectionRow) {
	dir := rustReferenceDir(tb, "stable", "any")
	printHTML, err := os.ReadFile(filepath.Join(dir, "print.html"))
	if err != nil {
		tb.Fatal(err)
	}
	toc, err := os.ReadFile(filepath.Join(dir, "toc.html"))
	if err != nil {
		tb.Skipf("the Rust Reference in %s has no toc.html: %v", dir, err)
	}
	editedDir := tb.TempDir()
	if err := os.WriteFile(filepath.Join(editedDir, "print.html"), applyEdits(tb, printHTML, rustReferenceEdits), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(editedDir, "toc.html"), toc, 0o644); err != nil {
		tb.Fatal(err)
	}
	store, err := db.Open(context.Background(), filepath.Join(tb.TempDir(), "langspec.db"))
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	return rustReferenceRows(tb, store, dir, "local"), rustReferenceRows(tb, store, editedDir, "edited")
}

func TestCompareRealRustReference(t *testing.T) {
	old, newer := rustReferenceVersions(t)
	t.Run("edited", func(t *testing.T) {
		d := compare(t, old, newer)
		checkDiff(t, d, len(old), len(newer), []wantItem{
			{kind: "changed", oldID: "introduction#rust-releases", oldTitle: "Rust releases", newID: "introduction#rust-releases", newTitle: "Rust releases", textChanged: true},
			{kind: "added", newID: "introduction#release-notes", newTitle: "Release notes"},
			{kind: "removed", oldID: "type-layout#trait-object-layout", oldTitle: "Trait object layout"},
			{kind: "renamed", oldID: "names/preludes#macro_use-prelude", oldTitle: "macro_use prelude", newID: "names/preludes#prelude-of-macro_use-imports", newTitle: "Prelude of macro_use imports"},
		}, "Rust has a new language release every [-six-]{+twelve+} weeks.")
		// Chapters are the top of the tree: "Type layout" is under the
		// "Type system" part, "Preludes" under "Names".
		wantChapters := []specdiff.Chapter{
			{ID: "introduction", Title: "Introduction", Changed: 1, Added: 1},
			{ID: "type-system", Title: "Type system", Removed: 1},
			{ID: "names", Title: "Names", Renamed: 1, Editorial: 1},
		}
		if !slices.Equal(d.Summary.Chapters, wantChapters) {
			t.Errorf("chapters %+v, want %+v", d.Summary.Chapters, wantChapters)
		}
		if d.Items[0].New.Version != "edited" || d.Items[0].Old.Version != "local" {
			t.Errorf("versions %q → %q", d.Items[0].Old.Version, d.Items[0].New.Version)
		}
	})
	t.Run("same version", func(t *testing.T) {
		if d := compare(t, old, old); !d.Unchanged() || d.Summary.Unchanged != len(old) {
			t.Errorf("%d items, summary %+v", len(d.Items), d.Summary)
		}
	})
}

// The stable and the nightly Reference differ the way versions do: every
// item is well formed, the counts add up, and every marked sentence reads
// back as its two sides.
func TestCompareRustStableNightly(t *testing.T) {
	stableDir, nightlyDir := rustReferenceDir(t, "stable"), rustReferenceDir(t, "nightly")
	store, err := db.Open(context.Background(), filepath.Join(t.TempDir(), "langspec.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	stable := rustReferenceRows(t, store, stableDir, "stable")
	nightly := rustReferenceRows(t, store, nightlyDir, "nightly")

	d := compare(t, stable, nightly)
	s := d.Summary
	t.Logf("stable %d sections, nightly %d: %d added, %d removed, %d renamed, %d changed, %d unchanged",
		len(stable), len(nightly), s.Added, s.Removed, s.Renamed, s.Changed, s.Unchanged)
	if s.Unchanged+s.Changed+s.Renamed+s.Added != len(nightly) || s.Unchanged+s.Changed+s.Renamed+s.Removed != len(stable) {
		t.Errorf("summary %+v does not add up to %d and %d sections", s, len(stable), len(nightly))
	}
	var perChapter int
	for _, c := range s.Chapters {
		perChapter += c.Added + c.Removed + c.Renamed + c.Changed
	}
	if perChapter != len(d.Items) {
		t.Errorf("chapters count %d items, the diff has %d", perChapter, len(d.Items))
	}
	for _, it := range d.Items {
		name := describe(it)
		if (it.Old == nil) != (it.Kind == specdiff.KindAdded) || (it.New == nil) != (it.Kind == specdiff.KindRemoved) {
			t.Errorf("%s: sides %v %v", name, it.Old != nil, it.New != nil)
		}
		// An added or removed section lists its sentences, as added or
		// removed; a pair of sections only when its text changed.
		if it.Old != nil && it.New != nil && it.TextChanged != (len(it.Sentences) > 0) {
			t.Errorf("%s: text changed %v with %d sentence changes", name, it.TextChanged, len(it.Sentences))
		}
		for _, sc := range it.Sentences {
			if sc.Kind != specdiff.KindChanged {
				if sc.Marked != "" || (sc.Old == "") == (sc.New == "") {
					t.Errorf("%s: %+v", name, sc)
				}
				continue
			}
			o, n, err := specdiff.Unmark(sc.Marked)
			if err != nil || squeeze(o) != squeeze(sc.Old) || squeeze(n) != squeeze(sc.New) {
				t.Errorf("%s: %q reads back as %q / %q (%v)", name, sc.Marked, o, n, err)
			}
		}
	}
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }

// BenchmarkCompareRustReference compares the local Rust Reference (about
// 750 sections) with its edited copy; reading them is not timed.
func BenchmarkCompareRustReference(b *testing.B) {
	old, newer := rustReferenceVersions(b)
	for b.Loop() {
		if d := compare(b, old, newer); len(d.Items) != 4 {
			b.Fatalf("%d items", len(d.Items))
		}
	}
}
