package ingest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

const rustCanonical = "https://doc.rust-lang.org/reference/"

func rustSpec(entry string) SourceSpec {
	return SourceSpec{Language: "rust", Doc: "reference", Kind: KindMdBook, Entry: entry,
		CanonicalURL: rustCanonical, SourcePolicy: db.FullText}
}

func mdBookFixture(name string) string { return filepath.Join("..", "..", "fixtures", "mdbook", name) }

func mustReadMdBook(t testing.TB, src SourceSpec, r PageReader) Document {
	t.Helper()
	doc, err := readMdBook(context.Background(), src, r)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

type wantSection struct {
	id, parent string
	level      int
	path, url  string
}

func checkSections(t *testing.T, got []db.Section, want []wantSection) {
	t.Helper()
	if len(got) != len(want) {
		for _, s := range got {
			t.Logf("got %s", s.SectionID)
		}
		t.Fatalf("got %d sections, want %d", len(got), len(want))
	}
	for i, w := range want {
		s := got[i]
		if s.SectionID != w.id || s.ParentID != w.parent || s.Level != w.level || s.Path != w.path || s.URL != rustCanonical+w.url {
			t.Errorf("section %d = {%s %s h%d %q %s},\n want {%s %s h%d %q %s}", i,
				s.SectionID, s.ParentID, s.Level, s.Path, s.URL, w.id, w.parent, w.level, w.path, rustCanonical+w.url)
		}
	}
}

// bookStats are the publish rules and citation rules every mdbook document
// must meet; checkBook counts the breaches.
type bookStats struct {
	dupIDs, emptyTitles, badTree, ruleMarkers, missingAnchors int
}

// ruleMarkerRE is a rule marker as the sources write it, r[expr.method.intro],
// or as the rendered book shows it, [expr.method.intro], not glued to a
// word before it: "expr[expr]" is an index expression, "error[E0277]" a
// diagnostic, "#[link]" an attribute and "r[8-15]" a register class, all
// legitimate text.
var ruleMarkerRE = regexp.MustCompile(`(?m)(^|[^\w$#!])(r?)\[([a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*)\]`)

// checkBook checks the sections against the publish rules (unique ids,
// titles), the tree (parents come first, paths and levels follow them), the
// rule markers (rules holds the book's rule names; none may show in any
// text), and, when anchors is not nil, that every URL's page exists and
// holds the anchor.
func checkBook(t *testing.T, secs []db.Section, rules map[string]bool, anchors func(page string) (map[string]bool, bool)) bookStats {
	t.Helper()
	var st bookStats
	byID := map[string]db.Section{}
	for _, s := range secs {
		if _, dup := byID[s.SectionID]; dup || s.SectionID == "" {
			st.dupIDs++
			t.Errorf("duplicate or empty id %q", s.SectionID)
		}
		if strings.TrimSpace(s.Title) == "" {
			st.emptyTitles++
			t.Errorf("%s: empty title", s.SectionID)
		}
		if s.SourcePolicy != db.FullText {
			t.Errorf("%s: policy %q", s.SectionID, s.SourcePolicy)
		}
		if s.ParentID == "" {
			if s.Path != s.Title {
				st.badTree++
				t.Errorf("%s: top-level path %q", s.SectionID, s.Path)
			}
		} else if p, ok := byID[s.ParentID]; !ok || s.Path != p.Path+" > "+s.Title || s.Level <= p.Level {
			st.badTree++
			t.Errorf("%s: parent %q missing or path/level off (%q h%d)", s.SectionID, s.ParentID, s.Path, s.Level)
		}
		for _, m := range ruleMarkerRE.FindAllStringSubmatch(s.Text, -1) {
			// A known rule name in brackets, or r[...] opening a line.
			if rules[m[3]] || m[2] == "r" && (m[1] == "" || m[1] == "\n") {
				st.ruleMarkers++
				t.Errorf("%s: rule marker %q left in text", s.SectionID, m[0])
			}
		}
		if anchors != nil {
			page, frag, _ := strings.Cut(strings.TrimPrefix(s.URL, rustCanonical), "#")
			if ids, ok := anchors(page); !ok || frag != "" && !ids[frag] {
				st.missingAnchors++
				t.Errorf("%s: URL %s: anchor not on the page", s.SectionID, s.URL)
			}
		}
		byID[s.SectionID] = s
	}
	return st
}

// pageAnchors reads the ids of the pages under dir, once each.
func pageAnchors(dir string) func(page string) (map[string]bool, bool) {
	cache := map[string]map[string]bool{}
	return func(page string) (map[string]bool, bool) {
		if ids, ok := cache[page]; ok {
			return ids, ids != nil
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(page)))
		if err != nil {
			cache[page] = nil
			return nil, false
		}
		ids := map[string]bool{}
		root, _ := html.Parse(bytes.NewReader(b))
		var visit func(n *html.Node)
		visit = func(n *html.Node) {
			if id := attr(n, "id"); n.Type == html.ElementNode && id != "" {
				ids[id] = true
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				visit(c)
			}
		}
		visit(root)
		cache[page] = ids
		return ids, true
	}
}

var ruleIDRE = regexp.MustCompile(`<div class="rule" id="r-([^"]+)"`)

// ruleNames are the rule names a rendered page declares.
func ruleNames(t testing.TB, file string) map[string]bool {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, m := range ruleIDRE.FindAllSubmatch(b, -1) {
		names[string(m[1])] = true
	}
	return names
}

func sectionByID(secs []db.Section, id string) (db.Section, bool) {
	i := slices.IndexFunc(secs, func(s db.Section) bool { return s.SectionID == id })
	if i < 0 {
		return db.Section{}, false
	}
	return secs[i], true
}

type textCheck struct {
	id      string
	has     []string
	hasNone []string
}

func checkTexts(t *testing.T, secs []db.Section, checks []textCheck) {
	t.Helper()
	for _, c := range checks {
		s, ok := sectionByID(secs, c.id)
		if !ok {
			t.Errorf("no section %q", c.id)
			continue
		}
		for _, h := range c.has {
			if !strings.Contains(s.Text, h) {
				t.Errorf("%s lacks %q:\n%s", c.id, h, s.Text)
			}
		}
		for _, h := range c.hasNone {
			if strings.Contains(s.Text, h) {
				t.Errorf("%s holds %q:\n%s", c.id, h, s.Text)
			}
		}
	}
}

// The sections of the print.html fixture. Chapters nest as the table of
// contents does; the numeric chapter's "Bit validity" is "bit-validity-1"
// in print.html (the boolean chapter has one before it) but "bit-validity"
// on its own page, which is what its URL must name.
var printFixtureSections = []wantSection{
	{"introduction", "", 1, "Introduction", "introduction.html"},
	{"introduction#rust-releases", "introduction", 2, "Introduction > Rust releases", "introduction.html#rust-releases"},
	// The fixture drops the h2s between, so the h3 sits under this h2.
	{"introduction#conventions", "introduction#rust-releases", 3, "Introduction > Rust releases > Conventions", "introduction.html#conventions"},
	{"introduction#contributing", "introduction", 2, "Introduction > Contributing", "introduction.html#contributing"},
	{"lexical-structure", "", 1, "Lexical structure", "lexical-structure.html"},
	{"input-format", "lexical-structure", 2, "Lexical structure > Input format", "input-format.html"},
	{"input-format#source-encoding", "input-format", 3, "Lexical structure > Input format > Source encoding", "input-format.html#source-encoding"},
	{"input-format#byte-order-mark-removal", "input-format", 3, "Lexical structure > Input format > Byte order mark removal", "input-format.html#byte-order-mark-removal"},
	{"input-format#tokenization", "input-format", 3, "Lexical structure > Input format > Tokenization", "input-format.html#tokenization"},
	{"type-system", "", 1, "Type system", "type-system.html"},
	{"types", "type-system", 2, "Type system > Types", "types.html"},
	{"types#type-expressions", "types", 3, "Type system > Types > Type expressions", "types.html#type-expressions"},
	{"types#parenthesized-types", "types#type-expressions", 4, "Type system > Types > Type expressions > Parenthesized types", "types.html#parenthesized-types"},
	{"types#recursive-types", "types", 3, "Type system > Types > Recursive types", "types.html#recursive-types"},
	{"types/boolean", "types", 3, "Type system > Types > Boolean type", "types/boolean.html"},
	{"types/boolean#operations-on-boolean-values", "types/boolean", 4, "Type system > Types > Boolean type > Operations on boolean values", "types/boolean.html#operations-on-boolean-values"},
	{"types/boolean#logical-not", "types/boolean#operations-on-boolean-values", 5, "Type system > Types > Boolean type > Operations on boolean values > Logical not", "types/boolean.html#logical-not"},
	{"types/boolean#logical-or", "types/boolean#operations-on-boolean-values", 5, "Type system > Types > Boolean type > Operations on boolean values > Logical or", "types/boolean.html#logical-or"},
	{"types/boolean#bit-validity", "types/boolean", 4, "Type system > Types > Boolean type > Bit validity", "types/boolean.html#bit-validity"},
	{"types/numeric", "types", 3, "Type system > Types > Numeric types", "types/numeric.html"},
	{"types/numeric#integer-types", "types/numeric", 4, "Type system > Types > Numeric types > Integer types", "types/numeric.html#integer-types"},
	{"types/numeric#floating-point-types", "types/numeric", 4, "Type system > Types > Numeric types > Floating-point types", "types/numeric.html#floating-point-types"},
	{"types/numeric#machine-dependent-integer-types", "types/numeric", 4, "Type system > Types > Numeric types > Machine-dependent integer types", "types/numeric.html#machine-dependent-integer-types"},
	{"types/numeric#bit-validity", "types/numeric", 4, "Type system > Types > Numeric types > Bit validity", "types/numeric.html#bit-validity"},
}

func TestReadMdBookPrintFixture(t *testing.T) {
	doc := mustReadMdBook(t, rustSpec("print.html"), newFSReader(mdBookFixture("print")))
	checkSections(t, doc.Sections, printFixtureSections)
	checkBook(t, doc.Sections, ruleNames(t, mdBookFixture("print/print.html")), nil)
	if doc.Version != "1.95.0" {
		t.Errorf("version = %q, want 1.95.0 (from the rules' test links)", doc.Version)
	}
	if len(doc.Failed) != 0 {
		t.Errorf("failed = %v", doc.Failed)
	}
	checkTexts(t, doc.Sections, []textCheck{
		{id: "introduction", has: []string{"This book is the primary reference for the Rust programming language.", "Note\n\nFor known bugs"}},
		{id: "introduction#conventions",
			has: []string{"2018 Edition differences\n\nBefore the 2018 edition",
				"- Statements that define a term", "(e.g.)"},
			hasNone: []string{"[example.rule.label]", "[example"}},
		// The rule's "Tests" toggle and hidden list of tests are chrome.
		{id: "input-format#source-encoding", has: []string{"encoded in UTF-8.\n\nIt is an error"},
			hasNone: []string{"Tests", "not-utf8.rs", "input.encoding"}},
		// The grammar stays; its hidden railroad diagram, the toggle button
		// and the hidden lines of the example go.
		{id: "types#parenthesized-types",
			has:     []string{"Syntax\nParenthesizedType → ( Type )", "type T<'a> = &'a (dyn Any + Send);"},
			hasNone: []string{"Show Railroad", "use std::any::Any", "#![allow(unused)]", "fn main()"}},
		{id: "types/boolean", has: []string{"let b: bool = true;\n\nThe boolean type or bool"}, hasNone: []string{"fn main"}},
		// Cells are tab-separated, rows on lines of their own.
		{id: "types/boolean#logical-or", has: []string{"a\tb\ta | b\ntrue\ttrue\ttrue\n"}},
		{id: "types/numeric#bit-validity", has: []string{"[u8; size_of::<T>()]"}},
	})
	for _, s := range doc.Sections {
		for _, chrome := range []string{"Keyboard shortcuts", "Print this book", "Suggest an edit", "Toggle", "r["} {
			if strings.Contains(s.Title, chrome) || strings.Contains(s.Text, chrome) {
				t.Errorf("%s holds page chrome %q", s.SectionID, chrome)
			}
		}
		if s.Title == "The Rust Reference" {
			t.Errorf("menu title became section %s", s.SectionID)
		}
	}
}

// Skip selectors from the source spec remove what they match.
func TestReadMdBookSkip(t *testing.T) {
	src := rustSpec("print.html")
	src.Skip = []string{".alert-warning", "table"}
	doc := mustReadMdBook(t, src, newFSReader(mdBookFixture("print")))
	checkTexts(t, doc.Sections, []textCheck{
		{id: "introduction#conventions", has: []string{"2018 Edition differences"}, hasNone: []string{"organization of the rules"}},
		{id: "types/boolean#logical-or", hasNone: []string{"true"}},
	})
	src.Skip = []string{"div["}
	if _, err := readMdBook(context.Background(), src, newFSReader(mdBookFixture("print"))); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Errorf("bad selector: err = %v, want invalid_argument", err)
	}
}

// The chapter pages of the html fixture, found through toc.html, whether the
// entry is index.html (whose sidebar is filled by a script) or toc.html.
// types.html is missing: it is reported, and its sub-chapters nest under
// the nearest chapter that was read.
var chapterFixtureSections = []wantSection{
	{"introduction", "", 1, "Introduction", "introduction.html"},
	{"introduction#rust-releases", "introduction", 2, "Introduction > Rust releases", "introduction.html#rust-releases"},
	{"type-system", "", 1, "Type system", "type-system.html"},
	{"types/boolean", "type-system", 3, "Type system > Boolean type", "types/boolean.html"},
	{"types/boolean#operations-on-boolean-values", "types/boolean", 4, "Type system > Boolean type > Operations on boolean values", "types/boolean.html#operations-on-boolean-values"},
	{"types/boolean#logical-not", "types/boolean#operations-on-boolean-values", 5, "Type system > Boolean type > Operations on boolean values > Logical not", "types/boolean.html#logical-not"},
	{"types/boolean#bit-validity", "types/boolean", 4, "Type system > Boolean type > Bit validity", "types/boolean.html#bit-validity"},
	{"types/numeric", "type-system", 3, "Type system > Numeric types", "types/numeric.html"},
	{"types/numeric#integer-types", "types/numeric", 4, "Type system > Numeric types > Integer types", "types/numeric.html#integer-types"},
	{"types/numeric#floating-point-types", "types/numeric", 4, "Type system > Numeric types > Floating-point types", "types/numeric.html#floating-point-types"},
	{"types/numeric#machine-dependent-integer-types", "types/numeric", 4, "Type system > Numeric types > Machine-dependent integer types", "types/numeric.html#machine-dependent-integer-types"},
	{"types/numeric#bit-validity", "types/numeric", 4, "Type system > Numeric types > Bit validity", "types/numeric.html#bit-validity"},
}

func TestReadMdBookChaptersFixture(t *testing.T) {
	printDoc := mustReadMdBook(t, rustSpec("print.html"), newFSReader(mdBookFixture("print")))
	for _, entry := range []string{"index.html", "toc.html"} {
		t.Run(entry, func(t *testing.T) {
			doc := mustReadMdBook(t, rustSpec(entry), newFSReader(mdBookFixture("html")))
			checkSections(t, doc.Sections, chapterFixtureSections)
			checkBook(t, doc.Sections, ruleNames(t, mdBookFixture("html/types/boolean.html")), pageAnchors(mdBookFixture("html")))
			if len(doc.Failed) != 1 || doc.Failed[0].Rel != "types.html" || apperr.CodeOf(doc.Failed[0].Err) != apperr.Unavailable {
				t.Errorf("failed = %v, want types.html unavailable", doc.Failed)
			}
			if doc.Version != "" {
				t.Errorf("version = %q; these pages have no test links", doc.Version)
			}
			// The same chapter read from print.html or from its page is
			// the same section: id, title, URL and text.
			for _, s := range doc.Sections {
				if !strings.HasPrefix(s.SectionID, "types/") {
					continue
				}
				p, ok := sectionByID(printDoc.Sections, s.SectionID)
				if !ok || p.Title != s.Title || p.URL != s.URL || p.Text != s.Text {
					t.Errorf("%s differs from print.html:\n%+v\n%+v", s.SectionID, s, p)
				}
			}
		})
	}
}

// The Markdown sources give the sections the rendered pages have: same ids,
// same URLs (the anchors exist on the html fixture's pages).
func TestReadMdBookSourcesFixture(t *testing.T) {
	doc := mustReadMdBook(t, rustSpec("SUMMARY.md"), newFSReader(mdBookFixture("src")))
	want := []wantSection{{"type-system", "", 1, "Type system", "type-system.html"}}
	for _, w := range chapterFixtureSections[3:] {
		// No types.md in between: SUMMARY lists the two chapters under
		// Type system directly.
		w.level--
		want = append(want, w)
	}
	checkSections(t, doc.Sections, want)
	checkBook(t, doc.Sections, ruleNames(t, mdBookFixture("html/types/boolean.html")), pageAnchors(mdBookFixture("html")))
	if len(doc.Failed) != 0 || doc.Version != "" {
		t.Errorf("failed = %v, version = %q", doc.Failed, doc.Version)
	}
	checkTexts(t, doc.Sections, []textCheck{
		{id: "types/boolean",
			has: []string{"let b: bool = true;\n\nThe boolean type or bool", "- The condition operand in if expressions",
				"Note\n\nThe boolean type acts similarly", "the traits Clone, Copy, Sized, Send, and Sync."},
			hasNone: []string{"r[", "[!NOTE]", "type.bool"}},
		{id: "types/boolean#logical-not", has: []string{"b\t!b\ntrue\tfalse\nfalse\ttrue"}},
		// Standard library links the build resolves keep only their text.
		{id: "types/numeric#machine-dependent-integer-types", has: []string{"type cast expressions, std::ptr, and provenance in particular"},
			hasNone: []string{"[std::ptr]", "[provenance]"}},
	})
	html := mustReadMdBook(t, rustSpec("index.html"), newFSReader(mdBookFixture("html")))
	for _, s := range doc.Sections {
		h, ok := sectionByID(html.Sections, s.SectionID)
		if !ok || h.Title != s.Title || h.URL != s.URL {
			t.Errorf("%s (%q %s) is not in the rendered pages as such", s.SectionID, s.Title, s.URL)
		}
	}
}

func TestPreprocessBookMarkdown(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"rule line", "r[type.bool.intro]\nThe *boolean type*.\n", "The *boolean type*.\n"},
		{"rule line before heading", "r[type.bool]\n# Boolean type\n", "# Boolean type\n"},
		{"rule line with CRLF", "r[a.b]\r\ntext\r\n", "text\r\n"},
		{"not alone on its line", "r[a] and more\n", "r[a] and more\n"},
		{"rule-like line in a fence", "```text\nr[a.b]\n```\n", "```text\nr[a.b]\n```\n"},
		{"note", "> [!NOTE]\n> Body.\n", "> Note\n>\n> Body.\n"},
		{"edition", "> [!EDITION-2018]\n> Before.\n", "> 2018 Edition differences\n>\n> Before.\n"},
		{"hidden rust lines", "```rust\n# fn main() {\nlet x = 1;\n#\n# }\n```\n", "```rust\nlet x = 1;\n```\n"},
		{"rust with attributes", "```rust,ignore\n#[inline]\n#![allow(x)]\n##[derive(Debug)]\n```\n", "```rust,ignore\n#[inline]\n#![allow(x)]\n#[derive(Debug)]\n```\n"},
		{"other languages keep # lines", "```text\n# not hidden\n```\n", "```text\n# not hidden\n```\n"},
		{"quoted rust fence", "> ```rust\n> # use std::x;\n> let y = 2;\n> ```\n", "> ```rust\n> let y = 2;\n> ```\n"},
		{"shorter fence does not close", "````rust\n```\n# hidden\n````\nr[a]\n", "````rust\n```\n````\n"},
		{"tilde fence", "~~~rust\n# hidden\n~~~\n# Heading\n", "~~~rust\n~~~\n# Heading\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(preprocessBookMarkdown([]byte(tt.in))); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// Heading ids in Markdown follow mdBook: from the rendered text, lowered,
// spaces to '-', punctuation dropped, repeats numbered within the chapter,
// {#id} kept; code fences hold no headings.
func TestBookMarkdownHeadingIDs(t *testing.T) {
	tests := []struct {
		name, md string
		want     []string
	}{
		{"plain", "# Method-call expressions\n", []string{"method-call-expressions"}},
		{"emphasis", "## What *The Reference* is not\n", []string{"what-the-reference-is-not"}},
		{"code", "## The `#[inline]` attribute\n", []string{"the-inline-attribute"}},
		{"link", "## See [paths](paths.md) too\n", []string{"see-paths-too"}},
		{"digits and dashes", "## Rust 2018-2021 and `u8`\n", []string{"rust-2018-2021-and-u8"}},
		{"non-ASCII kept", "## Ünïcode Straße\n", []string{"Ünïcode-straße"}},
		{"repeats", "## Examples\n\n## Examples\n\n### Examples\n", []string{"examples", "examples-1", "examples-2"}},
		{"explicit id", "## Custom {#my-id}\n\n## My id\n", []string{"my-id", "my-id-1"}},
		{"setext", "Title\n=====\n", []string{"title"}},
		{"fence", "```text\n# not a heading\n```\n\n~~~\n## nor this\n~~~\n", nil},
		{"rule line", "r[a.b]\n## Heading\n", []string{"heading"}},
	}
	md := newBookMarkdown()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := renderBookMarkdown(md, []byte(tt.md))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var visit func(n *html.Node)
			visit = func(n *html.Node) {
				if isHeading(n) {
					got = append(got, attr(n, "id"))
				}
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					visit(c)
				}
			}
			visit(root)
			if !slices.Equal(got, tt.want) {
				t.Errorf("ids = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMdBookSlug(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Method-call expressions", "method-call-expressions"},
		{"  The #[inline] attribute ", "the-inline-attribute"},
		{"Application Binary Interface (ABI)", "application-binary-interface-abi"},
		{"self", "self"},
		{"a  b", "a--b"},
		{"snake_case", "snake_case"},
		{"<T as Trait>::f", "t-as-traitf"},
	}
	for _, tt := range tests {
		if got := mdBookSlug(tt.text); got != tt.want {
			t.Errorf("mdBookSlug(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// printIDs maps print.html's book-wide ids back to page ids.
func TestPrintIDs(t *testing.T) {
	heading := func(id, text string) *html.Node {
		n := &html.Node{Type: html.ElementNode, Data: "h2", Attr: []html.Attribute{{Key: "id", Val: id}}}
		n.AppendChild(&html.Node{Type: html.TextNode, Data: text})
		return n
	}
	var p printIDs
	p.reset()
	steps := []struct{ id, text, want string }{
		{"examples-3", "Examples", "examples"},          // renumbered book-wide
		{"examples-4", "Examples", "examples-1"},        // second on its page too
		{"rust-2018", "Rust 2018", "rust-2018"},         // the digits are the title's
		{"custom-anchor", "Something", "custom-anchor"}, // written by the author
		{"", "No id", ""},
	}
	for _, s := range steps {
		if got := p.local(heading(s.id, s.text)); got != s.want {
			t.Errorf("local(%q, %q) = %q, want %q", s.id, s.text, got, s.want)
		}
	}
	p.reset()
	if got := p.local(heading("examples-5", "Examples")); got != "examples" {
		t.Errorf("after reset: %q, want examples", got)
	}
}

// bookTOC finds the table of contents wherever an mdBook version puts it.
func TestBookTOC(t *testing.T) {
	const list = `<ol class="chapter"><li class="chapter-item expanded "><a href="../intro.html">Intro</a></li>` +
		`<li class="chapter-item "><a href="../a.html"><strong aria-hidden="true">1.</strong> A</a>` +
		`<a class="chapter-fold-toggle"><div>❱</div></a><ol class="section">` +
		`<li class="chapter-item "><a href="../a/b.html#top"><strong aria-hidden="true">1.1.</strong> B's</a></li>` +
		`<li class="chapter-item draft"><div>Draft</div></li></ol></li>` +
		`<li class="spacer"></li><li class="part-title">Appendices</li>` +
		`<li class="chapter-item "><a href="https://example.com/x.html">Elsewhere</a></li></ol>`
	want := []bookChapter{
		{read: "intro.html", page: "intro.html", title: "Intro", depth: 0},
		{read: "a.html", page: "a.html", title: "A", depth: 0},
		{read: "a/b.html", page: "a/b.html", title: "B's", depth: 1},
	}
	js := "class X extends HTMLElement {\n connectedCallback() {\n  this.innerHTML = '" +
		strings.ReplaceAll(strings.ReplaceAll(list, "'", `\'`), "../", "") + "';\n }\n}\n"
	tests := []struct {
		name   string
		files  fstest.MapFS
		failed []string
	}{
		{"sidebar in the page (older mdBook)", fstest.MapFS{
			"x/page.html": {Data: []byte(`<nav id="sidebar"><div class="sidebar-scrollbox">` + list + `</div></nav><main></main>`)},
		}, nil},
		// Links are relative to the file that holds them: x/toc.html's
		// "../a.html" is a.html; toc.js at the top writes "a.html".
		{"toc.html beside the page", fstest.MapFS{
			"x/page.html": {Data: []byte(`<script src="../toc-ab12.js"></script><main></main>`)},
			"x/toc.html":  {Data: []byte(list)},
		}, nil},
		{"toc.js only", fstest.MapFS{
			"x/page.html": {Data: []byte(`<script src="../toc-ab12.js"></script><script src="../book.js"></script>`)},
			"toc-ab12.js": {Data: []byte(js)},
		}, nil},
		{"none", fstest.MapFS{"x/page.html": {Data: []byte(`<main></main>`)}}, []string{"x/toc.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fsReader{tt.files}
			p, err := r.Read(context.Background(), "x/page.html")
			if err != nil {
				t.Fatal(err)
			}
			root, _ := html.Parse(bytes.NewReader(p.Body))
			got, failed, err := bookTOC(context.Background(), r, "x/page.html", root)
			if err != nil {
				t.Fatal(err)
			}
			var failedRels []string
			for _, f := range failed {
				failedRels = append(failedRels, f.Rel)
			}
			if !slices.Equal(failedRels, tt.failed) {
				t.Errorf("failed = %v, want %v", failedRels, tt.failed)
			}
			if tt.failed != nil {
				if got != nil {
					t.Errorf("chapters = %v, want none", got)
				}
				return
			}
			if !slices.Equal(got, want) {
				t.Errorf("chapters = %+v\nwant %+v", got, want)
			}
		})
	}
}

// A chapter that leaves an element open nests the next page break inside it;
// the chapters after it still map to their pages.
func TestReadMdBookPrintNestedBreak(t *testing.T) {
	const brk = `<div style="break-before: page; page-break-before: always;"></div>`
	files := fstest.MapFS{
		"print.html": {Data: []byte(`<main><h1 id="a">A</h1><div class="open"><p>Text of A.</p>` + brk +
			`<h1 id="b">B</h1><p>Text of B.</p><h2 id="examples-1">Examples</h2>` + brk +
			`<h1 id="c">C</h1><h2 id="examples-2">Examples</h2></div></main>`)},
		"toc.html": {Data: []byte(`<ol class="chapter"><li><a href="a.html">A</a></li><li><a href="b.html">B</a></li><li><a href="c.html">C</a></li></ol>`)},
	}
	doc := mustReadMdBook(t, rustSpec("print.html"), fsReader{files})
	checkSections(t, doc.Sections, []wantSection{
		{"a", "", 1, "A", "a.html"},
		{"b", "", 1, "B", "b.html"},
		{"b#examples", "b", 2, "B > Examples", "b.html#examples"},
		{"c", "", 1, "C", "c.html"},
		{"c#examples", "c", 2, "C > Examples", "c.html#examples"},
	})
	checkTexts(t, doc.Sections, []textCheck{{id: "a", has: []string{"Text of A."}, hasNone: []string{"B"}}, {id: "b", has: []string{"Text of B."}}})
}

// Without a table of contents that matches print.html's chapters, sections
// are cited on print.html itself, whose ids exist there.
func TestReadMdBookPrintFallback(t *testing.T) {
	files := fstest.MapFS{
		"book/print.html": {Data: []byte(`<main><p>Before any heading.</p><h1 id="a">A</h1><h2 id="examples">Examples</h2>` +
			`<div style="break-before: page; page-break-before: always;"></div>` +
			`<h1 id="b">B</h1><h2 id="examples-1">Examples</h2></main>`)},
	}
	doc := mustReadMdBook(t, rustSpec("book/print.html"), fsReader{files})
	checkSections(t, doc.Sections, []wantSection{
		{"print#a", "", 1, "A", "print.html#a"},
		{"print#examples", "print#a", 2, "A > Examples", "print.html#examples"},
		{"print#b", "", 1, "B", "print.html#b"},
		{"print#examples-1", "print#b", 2, "B > Examples", "print.html#examples-1"},
	})
	if len(doc.Failed) != 1 || doc.Failed[0].Rel != "book/toc.html" {
		t.Errorf("failed = %v, want book/toc.html", doc.Failed)
	}
}

// Text before a chapter's first heading gets a section titled from the
// table of contents instead of running into the previous chapter.
func TestReadMdBookUntitledStart(t *testing.T) {
	files := fstest.MapFS{
		"toc.html": {Data: []byte(`<ol class="chapter"><li><a href="a.html">Chapter A</a><ol class="section"><li><a href="b.html">Chapter B</a></li></ol></li></ol>`)},
		"a.html":   {Data: []byte(`<main><h1 id="a">A</h1><p>A's text.</p></main>`)},
		"b.html":   {Data: []byte(`<main><!-- comment --><p>B starts here.</p><h2 id="more">More</h2></main>`)},
	}
	doc := mustReadMdBook(t, rustSpec("toc.html"), fsReader{files})
	checkSections(t, doc.Sections, []wantSection{
		{"a", "", 1, "A", "a.html"},
		{"b", "a", 2, "A > Chapter B", "b.html"},
		{"b#more", "b", 3, "A > Chapter B > More", "b.html#more"},
	})
	checkTexts(t, doc.Sections, []textCheck{{id: "a", hasNone: []string{"B starts"}}, {id: "b", has: []string{"B starts here."}}})
}

func TestReadMdBookErrors(t *testing.T) {
	book := fstest.MapFS{
		"print.html":           {Data: []byte(`<main><!-- no chapters --></main>`)},
		"toc.html":             {Data: []byte(`<ol class="chapter"><li><a href="gone.html">Gone</a></li></ol>`)},
		"pages/index.html":     {Data: []byte(`<main><h1 id="x">X</h1></main>`)},
		"pages/toc.html":       {Data: []byte(`<ol class="chapter"><li><a href="gone.html">Gone</a></li></ol>`)},
		"SUMMARY.md":           {Data: []byte("# Summary\n\nNo links.\n")},
		"nosidebar/index.html": {Data: []byte(`<main><h1 id="x">X</h1></main>`)},
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		ctx   context.Context
		entry string
		code  apperr.Code
		msg   string
	}{
		{"missing entry", context.Background(), "missing/print.html", apperr.Unavailable, "cannot read"},
		{"empty book", context.Background(), "print.html", apperr.InvalidArgument, "no headings found in print.html"},
		{"no table of contents", context.Background(), "nosidebar/index.html", apperr.InvalidArgument, "no table of contents"},
		{"every chapter missing", context.Background(), "pages/index.html", apperr.Unavailable, "1 pages could not be read, first pages/gone.html"},
		{"no chapters in SUMMARY", context.Background(), "SUMMARY.md", apperr.InvalidArgument, "no chapters"},
		{"cancelled", cancelled, "print.html", apperr.Internal, "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readMdBook(tt.ctx, rustSpec(tt.entry), fsReader{book})
			if err == nil || apperr.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("err = %v, want %s with %q", err, tt.code, tt.msg)
			}
		})
	}
}

// cancelAfter cancels the context once n pages have been read, as a user's
// Ctrl-C would in the middle of a long per-chapter ingest.
type cancelAfter struct {
	r      PageReader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(ctx context.Context, rel string) (Page, error) {
	if c.n--; c.n < 0 {
		c.cancel()
	}
	return c.r.Read(ctx, rel)
}

// Unlike a page that fails (recorded, the rest still read), a context
// cancelled mid-way stops the whole document.
func TestReadMdBookChaptersCancel(t *testing.T) {
	for _, entry := range []string{"index.html", "SUMMARY.md"} {
		t.Run(entry, func(t *testing.T) {
			dir := "html"
			if entry == "SUMMARY.md" {
				dir = "src"
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := readMdBook(ctx, rustSpec(entry), &cancelAfter{r: newFSReader(mdBookFixture(dir)), n: 3, cancel: cancel})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestMdBookPage(t *testing.T) {
	for in, want := range map[string]string{
		"types/boolean.md": "types/boolean.html",
		"README.md":        "index.html",
		"guide/README.md":  "guide/index.html",
		"intro.markdown":   "intro.html",
	} {
		if got := mdBookPage(in); got != want {
			t.Errorf("mdBookPage(%q) = %q, want %q", in, got, want)
		}
	}
}

// rustReference is the Rust Reference of an installed rustup toolchain;
// the test skips when there is none.
func rustReference(t testing.TB, channel string) string {
	home := os.Getenv("RUSTUP_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			t.Skip("no home folder")
		}
		home = filepath.Join(h, ".rustup")
	}
	matches, _ := filepath.Glob(filepath.Join(home, "toolchains", channel+"-*", "share", "doc", "rust", "html", "reference", "print.html"))
	if len(matches) == 0 {
		t.Skipf("no %s Rust Reference under %s", channel, home)
	}
	return filepath.Dir(matches[0])
}

var tocLinkRE = regexp.MustCompile(`<a href="[^"]+\.html"`)

// The whole Reference of the local toolchains, from print.html and from its
// chapter pages: every rule holds, and both give the same sections.
func TestReadMdBookRealReference(t *testing.T) {
	for _, channel := range []string{"stable", "nightly"} {
		t.Run(channel, func(t *testing.T) {
			dir := rustReference(t, channel)
			rules := ruleNames(t, filepath.Join(dir, "print.html"))
			toc, err := os.ReadFile(filepath.Join(dir, "toc.html"))
			if err != nil {
				t.Fatal(err)
			}
			chapters := len(tocLinkRE.FindAll(toc, -1))

			start := time.Now()
			printDoc := mustReadMdBook(t, rustSpec("print.html"), newFSReader(dir))
			elapsed := time.Since(start)
			st := checkBook(t, printDoc.Sections, rules, pageAnchors(dir))
			pages := 0
			literal := 0
			for _, s := range printDoc.Sections {
				if !strings.Contains(s.SectionID, "#") {
					pages++
				}
				literal += strings.Count(s.Text, "r[")
			}
			if pages != chapters {
				t.Errorf("%d chapter sections, toc.html links %d chapters", pages, chapters)
			}
			if len(printDoc.Failed) != 0 {
				t.Errorf("failed = %v", printDoc.Failed)
			}
			t.Logf("print.html: %d sections in %v, %d chapters, version %q; duplicate ids %d, empty titles %d, rule markers %d, missing anchors %d, bad tree %d; %d rules; literal \"r[\" %d (register classes r[8-15], error[E0277], expr[a..b])",
				len(printDoc.Sections), elapsed, pages, printDoc.Version, st.dupIDs, st.emptyTitles, st.ruleMarkers, st.missingAnchors, st.badTree, len(rules), literal)
			if channel == "stable" && !regexp.MustCompile(`^1\.\d+\.\d+$`).MatchString(printDoc.Version) {
				t.Errorf("stable version = %q, want 1.N.N", printDoc.Version)
			}

			start = time.Now()
			pagesDoc := mustReadMdBook(t, rustSpec("index.html"), newFSReader(dir))
			t.Logf("chapter pages: %d sections in %v, %d failed, version %q", len(pagesDoc.Sections), time.Since(start), len(pagesDoc.Failed), pagesDoc.Version)
			if len(pagesDoc.Failed) != 0 || pagesDoc.Version != printDoc.Version {
				t.Errorf("chapter pages: failed %v, version %q", pagesDoc.Failed, pagesDoc.Version)
			}
			if len(pagesDoc.Sections) != len(printDoc.Sections) {
				t.Fatalf("chapter pages give %d sections, print.html %d", len(pagesDoc.Sections), len(printDoc.Sections))
			}
			for i, s := range pagesDoc.Sections {
				if s != printDoc.Sections[i] {
					t.Errorf("section %d differs:\n pages %+v\n print %+v", i, s, printDoc.Sections[i])
					break
				}
			}
		})
	}
}

// mdBookSlug with per-page numbering gives every heading of the real
// Reference the id its page has: what Markdown mode and the print.html
// mapping rely on.
func TestMdBookSlugRealPages(t *testing.T) {
	dir := rustReference(t, "stable")
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".html" || d.Name() == "print.html" || d.Name() == "toc.html" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		root, _ := html.Parse(bytes.NewReader(b))
		used := map[string]bool{}
		var visit func(x *html.Node)
		visit = func(x *html.Node) {
			if isHeading(x) && attr(x, "id") != "" {
				n++
				slug := mdBookSlug(rawText(x))
				id := slug
				for i := 1; used[id]; i++ {
					id = slug + "-" + strconv.Itoa(i)
				}
				used[id] = true
				if id != attr(x, "id") {
					t.Errorf("%s: heading %q: made %q, page has %q", p, rawText(x), id, attr(x, "id"))
				}
			}
			for c := x.FirstChild; c != nil; c = c.NextSibling {
				visit(c)
			}
		}
		if main := bookContent(root); main != nil {
			visit(main)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 500 {
		t.Errorf("only %d headings checked", n)
	}
}

// BenchmarkReadMdBookPrint reads the whole local Rust Reference from
// print.html (and toc.html), from memory.
func BenchmarkReadMdBookPrint(b *testing.B) {
	dir := rustReference(b, "stable")
	files := fstest.MapFS{}
	for _, name := range []string{"print.html", "toc.html"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	src := rustSpec("print.html")
	for b.Loop() {
		if _, err := readMdBook(context.Background(), src, fsReader{files}); err != nil {
			b.Fatal(err)
		}
	}
}
