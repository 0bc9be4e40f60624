package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// sphinxFailReader fails the pages in fail and reads the rest through r.
type sphinxFailReader struct {
	r    PageReader
	fail map[string]bool
}

func (f sphinxFailReader) Read(ctx context.Context, rel string) (Page, error) {
	if f.fail[rel] {
		return Page{}, apperr.New(apperr.Unavailable, "", "HTTP 503 for %s", rel)
	}
	return f.r.Read(ctx, rel)
}

var pythonRef = SourceSpec{
	Language: "python", Doc: "reference", Kind: KindSphinx,
	Entry: "index.html", CanonicalURL: "https://docs.python.org/3/reference/", SourcePolicy: db.FullText,
}

func sphinxFixture() PageReader {
	return newFSReader(filepath.Join("..", "..", "fixtures", "sphinx"))
}

func TestReadSphinxFixture(t *testing.T) {
	doc, err := readSphinx(t.Context(), pythonRef, sphinxFixture())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != "3.11" {
		t.Errorf("version = %q, want 3.11", doc.Version)
	}
	if len(doc.Failed) != 0 {
		t.Errorf("failed = %v", doc.Failed)
	}
	const base = "https://docs.python.org/3/reference/"
	want := []struct {
		id, parent, title, path, url string
		level                        int
		textHas                      string
	}{
		{"the-python-language-reference", "", "The Python Language Reference", "The Python Language Reference",
			base + "index.html#the-python-language-reference", 1, "describes the syntax and “core semantics”"},
		{"lexical-analysis", "", "2. Lexical analysis", "2. Lexical analysis",
			base + "lexical_analysis.html#lexical-analysis", 1, "A Python program is read by a parser."},
		{"line-structure", "lexical-analysis", "2.1. Line structure", "2. Lexical analysis > 2.1. Line structure",
			base + "lexical_analysis.html#line-structure", 2, "A Python program is divided into a number of logical lines."},
		{"logical-lines", "line-structure", "2.1.1. Logical lines", "2. Lexical analysis > 2.1. Line structure > 2.1.1. Logical lines",
			base + "lexical_analysis.html#logical-lines", 3, "represented by the token NEWLINE"},
		{"physical-lines", "line-structure", "2.1.2. Physical lines", "2. Lexical analysis > 2.1. Line structure > 2.1.2. Physical lines",
			base + "lexical_analysis.html#physical-lines", 3, "terminated by an end-of-line sequence"},
		{"comments", "line-structure", "2.1.3. Comments", "2. Lexical analysis > 2.1. Line structure > 2.1.3. Comments",
			base + "lexical_analysis.html#comments", 3, "A comment starts with a hash character (#)"},
		// "literals" is a section id on both chapters: both get the page's
		// stem, and their URLs keep the real id.
		{"lexical_analysis#literals", "lexical-analysis", "2.4. Literals", "2. Lexical analysis > 2.4. Literals",
			base + "lexical_analysis.html#literals", 2, "Literals are notations for constant values"},
		{"numeric-literals", "lexical_analysis#literals", "2.4.4. Numeric literals", "2. Lexical analysis > 2.4. Literals > 2.4.4. Numeric literals",
			base + "lexical_analysis.html#numeric-literals", 3, "There are three types of numeric literals"},
		{"integer-literals", "lexical_analysis#literals", "2.4.5. Integer literals", "2. Lexical analysis > 2.4. Literals > 2.4.5. Integer literals",
			base + "lexical_analysis.html#integer-literals", 3, "integer      ::=  decinteger | bininteger | octinteger | hexinteger"},
		{"expressions", "", "6. Expressions", "6. Expressions",
			base + "expressions.html#expressions", 1, "This chapter explains the meaning of the elements of expressions"},
		{"arithmetic-conversions", "expressions", "6.1. Arithmetic conversions", "6. Expressions > 6.1. Arithmetic conversions",
			base + "expressions.html#arithmetic-conversions", 2, "- If either argument is a complex number"},
		{"atoms", "expressions", "6.2. Atoms", "6. Expressions > 6.2. Atoms",
			base + "expressions.html#atoms", 2, "Atoms are the most basic elements of expressions."},
		{"atom-identifiers", "atoms", "6.2.1. Identifiers (Names)", "6. Expressions > 6.2. Atoms > 6.2.1. Identifiers (Names)",
			base + "expressions.html#atom-identifiers", 3, "An identifier occurring as an atom is a name."},
		{"expressions#literals", "atoms", "6.2.2. Literals", "6. Expressions > 6.2. Atoms > 6.2.2. Literals",
			base + "expressions.html#literals", 3, "Python supports string and bytes literals"},
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
			t.Errorf("section %d = {%s %s %q %q %s L%d},\nwant         {%s %s %q %q %s L%d}", i,
				s.SectionID, s.ParentID, s.Title, s.Path, s.URL, s.Level, w.id, w.parent, w.title, w.path, w.url, w.level)
		}
		if !strings.Contains(s.Text, w.textHas) {
			t.Errorf("%s text lacks %q:\n%s", s.SectionID, w.textHas, s.Text)
		}
		if s.SourcePolicy != db.FullText {
			t.Errorf("%s policy = %q", s.SectionID, s.SourcePolicy)
		}
	}
	// Every URL's anchor is an id that exists on the page it names.
	for _, s := range doc.Sections {
		page, anchor, _ := strings.Cut(strings.TrimPrefix(s.URL, base), "#")
		raw, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "sphinx", page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(raw), `<section id="`+anchor+`">`) {
			t.Errorf("%s: %s has no section with id %q", s.SectionID, page, anchor)
		}
	}
	all := sphinxAllText(doc.Sections)
	// Titles and text come without the ¶ permalinks, the page chrome, the
	// toctree, or the head's scripts.
	for _, chrome := range []string{"¶", "Previous topic", "Next topic", "Table of Contents", "This Page", "Show Source",
		"Report a Bug", "Quick search", "Navigation", "3.11.2 Documentation", "Please donate", "Created using",
		"Python Software Foundation License", "DOCUMENTATION_OPTIONS", "toctree"} {
		if strings.Contains(all, chrome) {
			t.Errorf("chrome %q in the sections", chrome)
		}
	}
	// The toctree is navigation, not the introduction's text.
	if strings.Contains(doc.Sections[0].Text, "Lexical analysis") || strings.Contains(doc.Sections[0].Text, "Arithmetic conversions") {
		t.Errorf("toctree in the entry page's text:\n%s", doc.Sections[0].Text)
	}
	// A section's text stops at its first subsection.
	if strings.Contains(doc.Sections[1].Text, "logical lines") {
		t.Errorf("lexical-analysis holds its subsections' text:\n%s", doc.Sections[1].Text)
	}
	// Grammar in <pre> keeps its lines.
	if !strings.Contains(doc.Sections[8].Text, "decinteger   ::=  nonzerodigit ([\"_\"] digit)* | \"0\"+ ([\"_\"] \"0\")*\nbininteger") {
		t.Errorf("grammar lines not kept:\n%s", doc.Sections[8].Text)
	}
}

func sphinxAllText(sections []db.Section) string {
	var b strings.Builder
	for _, s := range sections {
		b.WriteString(s.Title + "\n" + s.Path + "\n" + s.Text + "\n")
	}
	return b.String()
}

func TestReadSphinxFailures(t *testing.T) {
	t.Run("chapter fails", func(t *testing.T) {
		r := sphinxFailReader{sphinxFixture(), map[string]bool{"expressions.html": true}}
		doc, err := readSphinx(t.Context(), pythonRef, r)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Failed) != 1 || doc.Failed[0].Rel != "expressions.html" || apperr.CodeOf(doc.Failed[0].Err) != apperr.Unavailable {
			t.Fatalf("failed = %v, want expressions.html unavailable", doc.Failed)
		}
		ids := map[string]bool{}
		for _, s := range doc.Sections {
			ids[s.SectionID] = true
		}
		// With the other "literals" gone, the id is unique and stays plain.
		if len(doc.Sections) != 9 || !ids["literals"] || ids["expressions"] {
			t.Errorf("sections = %v", ids)
		}
	})
	t.Run("chapter without sections", func(t *testing.T) {
		pages := memPages{
			"index.html": `<div role="main"><section id="top"><h1>Top</h1><div class="toctree-wrapper"><ul>
				<li class="toctree-l1"><a class="reference internal" href="a.html">A</a></li>
				<li class="toctree-l1"><a class="reference internal" href="b.html">B</a></li></ul></div></section></div>`,
			"a.html": `<div role="main"><p>not a Sphinx page</p></div>`,
			"b.html": `<div role="main"><section id="b"><h1>B</h1><p>b text</p></section></div>`,
		}
		doc, err := readSphinx(t.Context(), SourceSpec{Entry: "index.html", SourcePolicy: db.FullText}, pages)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Failed) != 1 || doc.Failed[0].Rel != "a.html" || !strings.Contains(doc.Failed[0].Err.Error(), "no Sphinx sections") {
			t.Errorf("failed = %v", doc.Failed)
		}
		if len(doc.Sections) != 2 || doc.Sections[1].SectionID != "b" {
			t.Errorf("sections = %+v", doc.Sections)
		}
	})
	t.Run("entry fails", func(t *testing.T) {
		r := sphinxFailReader{sphinxFixture(), map[string]bool{"index.html": true}}
		_, err := readSphinx(t.Context(), pythonRef, r)
		if apperr.CodeOf(err) != apperr.Unavailable || !strings.Contains(err.Error(), "index.html") {
			t.Errorf("err = %v, want the entry's unavailable error", err)
		}
	})
	t.Run("no sections anywhere", func(t *testing.T) {
		_, err := readSphinx(t.Context(), SourceSpec{Entry: "index.html"}, memPages{"index.html": "<p>hello</p>"})
		if apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("err = %v, want invalid_argument", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := readSphinx(ctx, pythonRef, sphinxFixture())
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// TestReadSphinxMarkup covers markup the fixture does not: the <div
// class="section"> of Sphinx before 4, deeper nesting, sections without
// headings, and SourceSpec.Skip.
func TestReadSphinxMarkup(t *testing.T) {
	type sec struct {
		id, parent, title, url string
		level                  int
		text                   string
	}
	tests := []struct {
		name string
		src  SourceSpec
		page string
		want []sec
	}{
		{
			name: "old div.section markup",
			page: `<html><head><title>Ref &mdash; Python 3.7.3 documentation</title></head><body>
<div class="related"><h3>Navigation</h3></div>
<div class="document"><div class="body" role="main">
<div class="section" id="data-model"><span id="datamodel"></span><h1>3. Data model<a class="headerlink" href="#data-model">¶</a></h1>
<p>Intro.</p>
<div class="section" id="objects"><h2>3.1. Objects<a class="headerlink" href="#objects">¶</a></h2><p>Objects are Python’s abstraction.</p>
<div class="section" id="id1"><h3>3.1.1. Deep<a class="headerlink" href="#id1">¶</a></h3><p>Deep text.</p></div>
</div>
<div class="section" id="types"><h2>3.2. Types</h2><pre>x = 1
y = 2</pre></div>
</div></div></div>
<div class="sphinxsidebar"><h3>Quick search</h3></div><div class="footer">© PSF</div></body></html>`,
			want: []sec{
				{"data-model", "", "3. Data model", "u/index.html#data-model", 1, "Intro."},
				{"objects", "data-model", "3.1. Objects", "u/index.html#objects", 2, "Objects are Python’s abstraction."},
				{"id1", "objects", "3.1.1. Deep", "u/index.html#id1", 3, "Deep text."},
				{"types", "data-model", "3.2. Types", "u/index.html#types", 2, "x = 1\ny = 2"},
			},
		},
		{
			name: "no role=main, heading-less section, skip selector",
			src:  SourceSpec{Skip: []string{"div.admonition"}},
			page: `<body><p>before any section</p><section id="a"><h2>A</h2><p>a text</p>
<div class="admonition note"><p>skip me</p></div>
<section id="no-heading"><p>orphan text</p></section></section></body>`,
			want: []sec{
				{"a", "", "A", "u/index.html#a", 1, "a text"},
				{"no-heading", "a", "no-heading", "u/index.html#no-heading", 2, "orphan text"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			src.Entry, src.CanonicalURL, src.SourcePolicy = "index.html", "u/", db.FullText
			doc, err := readSphinx(t.Context(), src, memPages{"index.html": tt.page})
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Sections) != len(tt.want) {
				t.Fatalf("got %d sections %+v, want %d", len(doc.Sections), doc.Sections, len(tt.want))
			}
			for i, w := range tt.want {
				s := doc.Sections[i]
				got := sec{s.SectionID, s.ParentID, s.Title, s.URL, s.Level, s.Text}
				if got != w {
					t.Errorf("section %d = %+v, want %+v", i, got, w)
				}
			}
			all := sphinxAllText(doc.Sections)
			for _, no := range []string{"¶", "Navigation", "Quick search", "© PSF", "skip me", "before any section"} {
				if strings.Contains(all, no) {
					t.Errorf("%q in the sections", no)
				}
			}
		})
	}
}

func TestSphinxVersion(t *testing.T) {
	tests := []struct{ name, head, want string }{
		{"title 3.11.2", `<title>The Python Language Reference &#8212; Python 3.11.2 documentation</title>`, "3.11"},
		{"title 3.13.1", `<title>The Python Language Reference — Python 3.13.1 documentation</title>`, "3.13"},
		{"pre-release", `<title>Expressions — Python 3.14.0rc1 documentation</title>`, "3.14"},
		{"inline options", `<title>Ref</title><script>var DOCUMENTATION_OPTIONS = { URL_ROOT: '../', VERSION: '3.7.3', LANGUAGE: 'None' };</script>`, "3.7"},
		{"none", `<title>Some manual</title><script src="x.js"></script>`, ""},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := goquery.NewDocumentFromReader(strings.NewReader("<html><head>" + tt.head + "</head><body></body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			if got := sphinxVersion(doc); got != tt.want {
				t.Errorf("version = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("SourceSpec.Version wins", func(t *testing.T) {
		src := pythonRef
		src.Version = "3.11-debian"
		doc, err := readSphinx(t.Context(), src, sphinxFixture())
		if err != nil || doc.Version != "3.11-debian" {
			t.Errorf("version = %q, %v", doc.Version, err)
		}
	})
}

// TestReadSphinxFullReference reads a whole Python Language Reference, e.g.
// usr/share/doc/python3.11/html/reference from Debian's python3.11-doc:
//
//	LANGSPEC_PYTHON_REFERENCE=/path/to/html/reference go test -run FullReference -v ./internal/ingest/
func TestReadSphinxFullReference(t *testing.T) {
	dir := os.Getenv("LANGSPEC_PYTHON_REFERENCE")
	if dir == "" {
		t.Skip("LANGSPEC_PYTHON_REFERENCE is not set")
	}
	start := time.Now()
	doc, err := readSphinx(t.Context(), pythonRef, newFSReader(dir))
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Failed) != 0 {
		t.Errorf("failed pages: %v", doc.Failed)
	}
	// Every section element on the pages read is one section.
	entry, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	pages := []string{"index.html"}
	for _, m := range regexp.MustCompile(`class="toctree-l1"><a class="reference internal" href="([^"#]+)"`).FindAllStringSubmatch(string(entry), -1) {
		pages = append(pages, m[1])
	}
	sectionRE := regexp.MustCompile(`<section id="|<div class="section" id="`)
	want := 0
	for _, p := range pages {
		raw, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		want += len(sectionRE.FindAll(raw, -1))
	}
	if len(doc.Sections) != want {
		t.Errorf("got %d sections, the pages have %d section elements", len(doc.Sections), want)
	}
	ids := map[string]bool{}
	for _, s := range doc.Sections {
		if ids[s.SectionID] {
			t.Errorf("duplicate id %q", s.SectionID)
		}
		ids[s.SectionID] = true
		if s.Title == "" || strings.Contains(s.Title, "¶") {
			t.Errorf("%s: bad title %q", s.SectionID, s.Title)
		}
	}
	t.Logf("%d pages, %d sections, version %q, read in %v", len(pages), len(doc.Sections), doc.Version, elapsed)
}

// TestSphinxMarkdownPublish stores what both readers make from their fixtures,
// so the store's rules (ids unique and non-empty, known source policy) hold.
func TestSphinxMarkdownPublish(t *testing.T) {
	tests := []struct {
		name string
		read kindReader
		src  SourceSpec
		r    PageReader
	}{
		{"sphinx", readSphinx, pythonRef, sphinxFixture()},
		{"markdown", readMarkdown, tsHandbook, markdownFixture()},
	}
	store, err := db.Open(t.Context(), filepath.Join(t.TempDir(), "langspec.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := tt.read(t.Context(), tt.src, tt.r)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, s := range doc.Sections {
				if s.Title == "" || (s.ParentID != "" && !seen[s.ParentID]) {
					t.Errorf("%s: title %q, parent %q not before it", s.SectionID, s.Title, s.ParentID)
				}
				seen[s.SectionID] = true
			}
			version := doc.Version
			if version == "" {
				version = "2026-01-01" // the caller's fallback: the fetch date
			}
			res, err := store.Publish(t.Context(), db.Snapshot{Language: tt.src.Language, Doc: tt.src.Doc, Version: version,
				SourceURL: "fixtures", FetchedAt: time.Now(), ContentHash: tt.name}, doc.Sections)
			if err != nil || res.Status != db.Created || res.Sections != len(doc.Sections) {
				t.Errorf("publish = %+v, %v", res, err)
			}
		})
	}
}
