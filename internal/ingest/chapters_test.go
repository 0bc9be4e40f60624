package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// chaptersDirReader reads pages from a folder; the rels in fail cannot be
// read, and reading onCancel cancels the read's context first, as a user's
// Ctrl-C during a fetch would.
type chaptersDirReader struct {
	dir      string
	fail     map[string]bool
	onCancel string
	cancel   context.CancelFunc
}

func (d chaptersDirReader) Read(ctx context.Context, rel string) (Page, error) {
	rel, _, _ = strings.Cut(rel, "#")
	if rel == d.onCancel && d.cancel != nil {
		d.cancel()
	}
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	if d.fail[rel] {
		return Page{}, apperr.New(apperr.Unavailable, "try again", "cannot fetch %s", rel)
	}
	p := filepath.Join(d.dir, filepath.FromSlash(rel))
	body, err := os.ReadFile(p)
	if err != nil {
		return Page{}, apperr.Wrap(err, apperr.Unavailable, "", "cannot read %s", p)
	}
	return Page{Location: p, Rel: rel, Body: body}, nil
}

func jlsSource() SourceSpec {
	return SourceSpec{
		Language: "java", Doc: "jls", Kind: KindHTMLChapters, Entry: "index.html",
		CanonicalURL:   "https://docs.oracle.com/javase/specs/jls/se21/html/",
		SourcePolicy:   db.ExcerptOnly,
		ChapterPattern: `^jls-\d+\.html$`,
	}
}

var jlsDir = filepath.Join("..", "..", "fixtures", "jls")

func TestReadHTMLChapters(t *testing.T) {
	doc, err := readHTMLChapters(context.Background(), jlsSource(), chaptersDirReader{dir: jlsDir})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != "se21" {
		t.Errorf("version = %q, want se21", doc.Version)
	}
	if len(doc.Failed) != 0 {
		t.Errorf("failed = %v", doc.Failed)
	}
	const base = "https://docs.oracle.com/javase/specs/jls/se21/html/"
	want := []struct {
		id, parent, title, path, url string
		level                        int
		textHas                      string
	}{
		// jls-1.html puts its chapter title in an h2, as its sections do:
		// levels come from how the div.section elements nest.
		{"jls-1", "", "Chapter 1. Introduction", "Chapter 1. Introduction", base + "jls-1.html#jls-1", 1,
			"This sample stands in for the opening"},
		{"jls-1.1", "jls-1", "1.1. Organization of the Specification",
			"Chapter 1. Introduction > 1.1. Organization of the Specification", base + "jls-1.html#jls-1.1", 2,
			"Chapter 2 describes the grammars"},
		{"jls-1.2", "jls-1", "1.2. Example Programs", "Chapter 1. Introduction > 1.2. Example Programs",
			base + "jls-1.html#jls-1.2", 2, "for (String a : args)\n            System.out.println(a);"},
		{"jls-4", "", "Chapter 4. Types, Values, and Variables", "Chapter 4. Types, Values, and Variables",
			base + "jls-4.html#jls-4", 1, "statically typed"},
		{"jls-4.1", "jls-4", "4.1. The Kinds of Types and Values",
			"Chapter 4. Types, Values, and Variables > 4.1. The Kinds of Types and Values", base + "jls-4.html#jls-4.1", 2,
			"Type:\n  PrimitiveType\n  ReferenceType\n\nThere is also"},
		{"jls-4.2", "jls-4", "4.2. Primitive Types and Values",
			"Chapter 4. Types, Values, and Variables > 4.2. Primitive Types and Values", base + "jls-4.html#jls-4.2", 2,
			"named by its reserved keyword"},
		{"jls-4.2.1", "jls-4.2", "4.2.1. Integral Types and Values",
			"Chapter 4. Types, Values, and Variables > 4.2. Primitive Types and Values > 4.2.1. Integral Types and Values",
			base + "jls-4.html#jls-4.2.1", 3, "- For byte, from -128 to 127, inclusive"},
		{"jls-4.2.2", "jls-4.2", "4.2.2. Integer Operations",
			"Chapter 4. Types, Values, and Variables > 4.2. Primitive Types and Values > 4.2.2. Integer Operations",
			base + "jls-4.html#jls-4.2.2", 3, "Example 4.2.2-1. Integer Operations"},
		{"jls-4.3", "jls-4", "4.3. Reference Types and Values",
			"Chapter 4. Types, Values, and Variables > 4.3. Reference Types and Values", base + "jls-4.html#jls-4.3", 2,
			"four kinds of reference types"},
	}
	if len(doc.Sections) != len(want) {
		for _, s := range doc.Sections {
			t.Logf("%s %q", s.SectionID, s.Title)
		}
		t.Fatalf("got %d sections, want %d", len(doc.Sections), len(want))
	}
	for i, w := range want {
		s := doc.Sections[i]
		if s.SectionID != w.id || s.ParentID != w.parent || s.Title != w.title || s.Path != w.path || s.URL != w.url || s.Level != w.level {
			t.Errorf("section %d = {%s %s %q %q %s %d}, want {%s %s %q %q %s %d}", i,
				s.SectionID, s.ParentID, s.Title, s.Path, s.URL, s.Level, w.id, w.parent, w.title, w.path, w.url, w.level)
		}
		if !strings.Contains(s.Text, w.textHas) {
			t.Errorf("%s text lacks %q:\n%s", s.SectionID, w.textHas, s.Text)
		}
		if s.SourcePolicy != db.ExcerptOnly {
			t.Errorf("%s policy = %q", s.SectionID, s.SourcePolicy)
		}
	}
	// Page chrome and the chapters' own tables of contents stay out; a
	// section's text stops at its first subsection.
	for _, s := range doc.Sections {
		for _, chrome := range []string{"Prev", "Next", "Home", "Table of Contents", "Lexical Structure", "Chapter 1. Introduction"} {
			if strings.Contains(s.Text, chrome) {
				t.Errorf("%s text holds page chrome %q:\n%s", s.SectionID, chrome, s.Text)
			}
		}
	}
	if txt := doc.Sections[5].Text; strings.Contains(txt, "integers in these ranges") {
		t.Errorf("4.2 holds its subsection's text:\n%s", txt)
	}
	if txt := doc.Sections[3].Text; strings.Contains(txt, "Types come in two kinds") {
		t.Errorf("chapter 4 holds 4.1's text:\n%s", txt)
	}
}

func TestReadHTMLChaptersFailures(t *testing.T) {
	// One chapter that cannot be read is reported; the others are parsed.
	doc, err := readHTMLChapters(context.Background(), jlsSource(),
		chaptersDirReader{dir: jlsDir, fail: map[string]bool{"jls-1.html": true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Failed) != 1 || doc.Failed[0].Rel != "jls-1.html" || apperr.CodeOf(doc.Failed[0].Err) != apperr.Unavailable {
		t.Errorf("failed = %+v, want jls-1.html unavailable", doc.Failed)
	}
	if len(doc.Sections) != 6 || doc.Sections[0].SectionID != "jls-4" {
		t.Errorf("got %d sections starting %q, want chapter 4's 6", len(doc.Sections), doc.Sections[0].SectionID)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tests := []struct {
		name string
		ctx  context.Context
		src  func(*SourceSpec)
		r    PageReader
		code apperr.Code
		is   error
	}{
		{"index missing", context.Background(), func(s *SourceSpec) { s.Entry = "nope.html" }, chaptersDirReader{dir: jlsDir},
			apperr.Unavailable, nil},
		{"no chapter_pattern", context.Background(), func(s *SourceSpec) { s.ChapterPattern = "" }, chaptersDirReader{dir: jlsDir},
			apperr.InvalidArgument, nil},
		{"bad chapter_pattern", context.Background(), func(s *SourceSpec) { s.ChapterPattern = "(" }, chaptersDirReader{dir: jlsDir},
			apperr.InvalidArgument, nil},
		{"no chapter matches", context.Background(), func(s *SourceSpec) { s.ChapterPattern = `^ch\d+\.html$` },
			chaptersDirReader{dir: jlsDir}, apperr.InvalidArgument, nil},
		// Cancelling while a chapter is read ends the read; the chapter is
		// not reported as missing.
		{"cancelled mid-way", ctx, func(*SourceSpec) {}, chaptersDirReader{dir: jlsDir, onCancel: "jls-4.html", cancel: cancel},
			apperr.Internal, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := jlsSource()
			tt.src(&src)
			doc, err := readHTMLChapters(tt.ctx, src, tt.r)
			if err == nil {
				t.Fatalf("no error; doc = %+v", doc)
			}
			if apperr.CodeOf(err) != tt.code || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("err = %v, want code %s (is %v)", err, tt.code, tt.is)
			}
		})
	}
}

func TestChapterLinks(t *testing.T) {
	// The fixture's index links to the preface, the index and each chapter
	// several times (chapter, then its sections).
	doc, err := readHTMLChapters(context.Background(), jlsSource(), chaptersDirReader{dir: jlsDir})
	if err != nil {
		t.Fatal(err)
	}
	var chapters []string
	for _, s := range doc.Sections {
		if s.Level == 1 {
			chapters = append(chapters, s.SectionID)
		}
	}
	if strings.Join(chapters, " ") != "jls-1 jls-4" {
		t.Errorf("chapters = %v, want jls-1 jls-4 once each, in index order", chapters)
	}
}

func TestJLSVersion(t *testing.T) {
	tests := []struct{ page, want string }{
		{`<h2 class="subtitle">Java SE 21 Edition</h2>`, "se21"},
		{`<title>x</title><div class="subtitle">Java&nbsp;SE&nbsp;8&nbsp;Edition</div>`, "se8"},
		{`<h1 class="title">The Java Language Specification</h1>`, ""},
	}
	for _, tt := range tests {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(tt.page))
		if err != nil {
			t.Fatal(err)
		}
		if got := jlsVersion(doc); got != tt.want {
			t.Errorf("jlsVersion(%s) = %q, want %q", tt.page, got, tt.want)
		}
	}
}
