package ingest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

var tsHandbook = SourceSpec{
	Language: "typescript", Doc: "handbook", Kind: KindMarkdown,
	Entry: "handbook.txt", CanonicalURL: "https://www.typescriptlang.org", SourcePolicy: db.FullText,
}

func markdownFixture() PageReader {
	return newFSReader(filepath.Join("..", "..", "fixtures", "markdown"))
}

func TestReadMarkdownFixture(t *testing.T) {
	doc, err := readMarkdown(t.Context(), tsHandbook, markdownFixture())
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != "" || len(doc.Failed) != 0 {
		t.Errorf("version %q, failed %v; want none", doc.Version, doc.Failed)
	}
	const site = "https://www.typescriptlang.org/docs/handbook/2/"
	want := []struct {
		id, parent, title, url string
		level                  int
		textHas                string
	}{
		// The front matter's title is the page's section; oneline opens its text.
		{"basic-types", "", "The Basics", site + "basic-types.html", 1, "Step one in learning TypeScript: The basic types.\n\nValues in a JavaScript program"},
		{"static-type-checking", "basic-types", "Static type-checking", site + "basic-types.html#static-type-checking", 2, "const greeting = \"hi\";\n\ngreeting();"},
		{"tsc-the-typescript-compiler", "basic-types", "tsc, the TypeScript compiler", site + "basic-types.html#tsc-the-typescript-compiler", 2,
			"# Install the compiler globally\nnpm install -g typescript\n\n# Check a single file\ntsc welcome.ts"},
		{"emitting-with-errors", "tsc-the-typescript-compiler", "Emitting with errors", site + "basic-types.html#emitting-with-errors", 3, "tsc --noEmitOnError welcome.ts"},
		// "Examples" is on all three pages: each is qualified by its page.
		{"basic-types#examples", "basic-types", "Examples", site + "basic-types.html#examples", 2, `welcome("Ada");`},
		{"strictness", "basic-types", "Strictness", site + "basic-types.html#strictness", 2,
			"- noImplicitAny reports variables whose type is silently inferred as any\n- strictNullChecks makes"},
		// The second "Examples" on one page is examples-1 there, as on the
		// site, and that anchor is unique in the document.
		{"examples-1", "strictness", "Examples", site + "basic-types.html#examples-1", 3, "let title: string = null;"},
		{"everyday-types", "", "Everyday Types", site + "everyday-types.html", 1, "The language primitives."},
		{"the-primitives-string-number-and-boolean", "everyday-types", "The primitives: string, number, and boolean",
			site + "everyday-types.html#the-primitives-string-number-and-boolean", 2, "- string for text such as \"Ada\""},
		{"arrays", "everyday-types", "Arrays", site + "everyday-types.html#arrays", 2, "Array<number> means the same"},
		{"everyday-types#examples", "arrays", "Examples", site + "everyday-types.html#examples", 3,
			"const evens: number[] = [2, 4, 6];\nconst crew: Array<string> = [\"Ada\", \"Grace\"];"},
		{"functions", "everyday-types", "Functions", site + "everyday-types.html#functions", 2, ""},
		{"parameter-type-annotations", "functions", "Parameter Type Annotations", site + "everyday-types.html#parameter-type-annotations", 3,
			"// A number is not a string\nshout(42);"},
		{"return-type-annotations", "functions", "Return Type Annotations", site + "everyday-types.html#return-type-annotations", 3,
			"function luckyNumber(): number {\n  return 7;\n}\n// @ts-expect-error\nluckyNumber(\"one too many\");"},
		// From the subfolder the manifest lists.
		{"generics", "", "Generics", site + "generics.html", 1, "Types which take parameters"},
		{"hello-world-of-generics", "generics", "Hello World of Generics", site + "generics.html#hello-world-of-generics", 2, "let head = first<string>([\"a\", \"b\"]);"},
		{"generic-constraints", "generics", "Generic Constraints", site + "generics.html#generic-constraints", 2,
			"interface HasSize {\n  size: number;\n}\n\nfunction describe<T extends HasSize>"},
		{"generics#examples", "generics", "Examples", site + "generics.html#examples", 2, "pluck(point, \"x\");\npluck(point, \"z\");"},
	}
	if len(doc.Sections) != len(want) {
		for _, s := range doc.Sections {
			t.Logf("%s %q", s.SectionID, s.Title)
		}
		t.Fatalf("got %d sections, want %d", len(doc.Sections), len(want))
	}
	for i, w := range want {
		s := doc.Sections[i]
		if s.SectionID != w.id || s.ParentID != w.parent || s.Title != w.title || s.URL != w.url || s.Level != w.level {
			t.Errorf("section %d = {%s %s %q %s L%d},\nwant         {%s %s %q %s L%d}", i,
				s.SectionID, s.ParentID, s.Title, s.URL, s.Level, w.id, w.parent, w.title, w.url, w.level)
		}
		if !strings.Contains(s.Text, w.textHas) {
			t.Errorf("%s text lacks %q:\n%s", s.SectionID, w.textHas, s.Text)
		}
	}
	if got := doc.Sections[6].Path; got != "The Basics > Strictness > Examples" {
		t.Errorf("path = %q", got)
	}
	// Twoslash markup and the setup above a cut are gone; TypeScript's own
	// // @ts-expect-error stays.
	all := sphinxAllText(doc.Sections)
	for _, gone := range []string{"@errors", "@noErrors", "@strict", "@filename", "^?", "---cut", "declare function shout",
		"declare function first", "setup for the compiler only", "preamble", "layout: docs", "permalink"} {
		if strings.Contains(all, gone) {
			t.Errorf("%q left in the text", gone)
		}
	}
	if !strings.Contains(all, "// @ts-expect-error") {
		t.Error("// @ts-expect-error was removed")
	}
	// '#' lines inside a code fence are code, not headings.
	for _, s := range doc.Sections {
		if strings.Contains(s.Title, "Install") || strings.Contains(s.Title, "Check a single") {
			t.Errorf("code line became section %q", s.Title)
		}
	}
}

func TestReadMarkdownUniqueIDs(t *testing.T) {
	// "Examples" three times in a.md and once in b.md; "Setup" only in a.md
	// but b.md's page slug is "setup".
	pages := memPages{
		"list.txt":     "a.md\nsub/setup.md\n",
		"a.md":         "---\ntitle: A\n---\n## Examples\none\n## Examples\ntwo\n### Examples\nthree\n## Setup\nfour\n",
		"sub/setup.md": "# Setup guide\n\n## Examples\nfive\n",
	}
	src := SourceSpec{Entry: "list.txt", CanonicalURL: "https://example.org/docs/", SourcePolicy: db.FullText}
	doc, err := readMarkdown(t.Context(), src, pages)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, url string }{
		{"a", "https://example.org/docs/a.html"},
		{"a#examples", "https://example.org/docs/a.html#examples"},
		{"examples-1", "https://example.org/docs/a.html#examples-1"},
		{"examples-2", "https://example.org/docs/a.html#examples-2"},
		{"a#setup", "https://example.org/docs/a.html#setup"},
		{"setup", "https://example.org/docs/sub/setup.html"},
		{"setup#examples", "https://example.org/docs/sub/setup.html#examples"},
	}
	if len(doc.Sections) != len(want) {
		t.Fatalf("got %d sections %+v", len(doc.Sections), doc.Sections)
	}
	for i, w := range want {
		if s := doc.Sections[i]; s.SectionID != w.id || s.URL != w.url {
			t.Errorf("section %d = %s %s, want %s %s", i, s.SectionID, s.URL, w.id, w.url)
		}
	}
	if doc.Sections[5].Title != "Setup guide" {
		t.Errorf("title from the leading # heading = %q", doc.Sections[5].Title)
	}
}

func TestReadMarkdownEntries(t *testing.T) {
	tests := []struct {
		name      string
		src       SourceSpec
		pages     memPages
		wantIDs   []string
		wantTitle string // of the first section
		wantURL   string // of the first section
		wantFail  []string
		wantCode  apperr.Code // of the error; "" for none
	}{
		{
			name:    "single file, title from # heading, URL from the path",
			src:     SourceSpec{Entry: "guide/Getting Started.md", CanonicalURL: "https://example.org/"},
			pages:   memPages{"guide/Getting Started.md": "# Getting started\n\nHello.\n\n## Install\n\n```sh\n# not a heading\n```\n"},
			wantIDs: []string{"getting-started", "install"}, wantTitle: "Getting started",
			wantURL: "https://example.org/guide/Getting%20Started.html",
		},
		{
			name:    "no title anywhere: the file name",
			src:     SourceSpec{Entry: "notes.md"},
			pages:   memPages{"notes.md": "Just text.\n\n## Part\n"},
			wantIDs: []string{"notes", "part"}, wantTitle: "notes", wantURL: "notes.html",
		},
		{
			name:  "front matter title and the same # heading: one section",
			src:   SourceSpec{Entry: "a.md", CanonicalURL: "https://example.org"},
			pages: memPages{"a.md": "---\ntitle: 'Modules'\npermalink: docs/modules.html\n---\n# Modules\n\nIntro.\n\n# Another top\n"},
			// A second "#" heading sits below the page title, as a "##" would.
			wantIDs: []string{"modules", "another-top"}, wantTitle: "Modules", wantURL: "https://example.org/docs/modules.html",
		},
		{
			name:     "manifest lists a missing file",
			src:      SourceSpec{Entry: "docs/list.txt"},
			pages:    memPages{"docs/list.txt": "# comment\n\n a.md \nmissing.md\na.md\n", "docs/a.md": "## A\n"},
			wantIDs:  []string{"a", "a#a"},
			wantFail: []string{"docs/missing.md"}, wantTitle: "a", wantURL: "docs/a.html",
		},
		{
			name:     "every file missing",
			src:      SourceSpec{Entry: "list.txt"},
			pages:    memPages{"list.txt": "x.md\ny.md\n"},
			wantCode: apperr.Unavailable,
		},
		{
			name:     "the single file missing",
			src:      SourceSpec{Entry: "x.md"},
			pages:    memPages{},
			wantCode: apperr.Unavailable,
		},
		{
			name:     "manifest missing",
			src:      SourceSpec{Entry: "list.txt"},
			pages:    memPages{},
			wantCode: apperr.Unavailable,
		},
		{
			name:     "manifest line outside the folder",
			src:      SourceSpec{Entry: "list.txt"},
			pages:    memPages{"list.txt": "../secret.md\n"},
			wantCode: apperr.InvalidArgument,
		},
		{
			name:     "manifest line not Markdown",
			src:      SourceSpec{Entry: "list.txt"},
			pages:    memPages{"list.txt": "a.md\nlogo.png\n"},
			wantCode: apperr.InvalidArgument,
		},
		{
			name:     "empty manifest",
			src:      SourceSpec{Entry: "list.txt"},
			pages:    memPages{"list.txt": "# nothing yet\n"},
			wantCode: apperr.InvalidArgument,
		},
		{
			name:     "no entry",
			src:      SourceSpec{},
			wantCode: apperr.InvalidArgument,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.src.SourcePolicy = db.FullText
			doc, err := readMarkdown(t.Context(), tt.src, tt.pages)
			if tt.wantCode != "" {
				if apperr.CodeOf(err) != tt.wantCode {
					t.Fatalf("err = %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range doc.Sections {
				ids = append(ids, s.SectionID)
			}
			if strings.Join(ids, " ") != strings.Join(tt.wantIDs, " ") {
				t.Errorf("ids = %v, want %v", ids, tt.wantIDs)
			}
			if s := doc.Sections[0]; s.Title != tt.wantTitle || s.URL != tt.wantURL || s.Level != 1 {
				t.Errorf("first section = %q %s L%d, want %q %s L1", s.Title, s.URL, s.Level, tt.wantTitle, tt.wantURL)
			}
			var failed []string
			for _, f := range doc.Failed {
				failed = append(failed, f.Rel)
			}
			if strings.Join(failed, " ") != strings.Join(tt.wantFail, " ") {
				t.Errorf("failed = %v, want %v", failed, tt.wantFail)
			}
		})
	}
}

func TestReadMarkdownFilesAndContext(t *testing.T) {
	pages := memPages{"a.md": "## A\n", "deep/er/b.md": "## B\n"}
	src := SourceSpec{CanonicalURL: "u/", SourcePolicy: db.FullText, Version: "5.9"}
	t.Run("the caller's listing, subfolders included", func(t *testing.T) {
		doc, err := readMarkdownFiles(t.Context(), src, pages, []string{"a.md", "deep/er/b.md"})
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Sections) != 4 || doc.Sections[3].URL != "u/deep/er/b.html#b" || doc.Version != "5.9" {
			t.Errorf("sections %+v, version %q", doc.Sections, doc.Version)
		}
	})
	t.Run("empty listing", func(t *testing.T) {
		_, err := readMarkdownFiles(t.Context(), src, pages, nil)
		if apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := readMarkdownFiles(ctx, src, pages, []string{"a.md"})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

func TestMarkdownPageURL(t *testing.T) {
	tests := []struct {
		name, base, rel, permalink, want string
	}{
		{"permalink on the site root", "https://www.typescriptlang.org", "handbook-v2/Everyday Types.md",
			"/docs/handbook/2/everyday-types.html", "https://www.typescriptlang.org/docs/handbook/2/everyday-types.html"},
		{"site root with a slash", "https://www.typescriptlang.org/", "x.md",
			"/docs/handbook/2/generics.html", "https://www.typescriptlang.org/docs/handbook/2/generics.html"},
		// The permalink is a site path: it replaces the base's path, never
		// doubles it (/docs/docs/…).
		{"base with a path", "https://www.typescriptlang.org/docs/", "x.md",
			"/docs/handbook/2/generics.html", "https://www.typescriptlang.org/docs/handbook/2/generics.html"},
		{"relative permalink", "https://example.org/book/", "x.md", "ch1.html", "https://example.org/book/ch1.html"},
		{"permalink with a fragment", "https://example.org", "x.md", "/a.html#top", "https://example.org/a.html"},
		{"no permalink: the file's path", "https://example.org/book/", "part 1/Intro.md", "", "https://example.org/book/part%201/Intro.html"},
		{"no permalink, upper-case .MD", "https://example.org/", "a/b.MD", "", "https://example.org/a/b.html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := markdownPageURL(SourceSpec{CanonicalURL: tt.base}, tt.rel, tt.permalink); got != tt.want {
				t.Errorf("URL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestGithubSlug(t *testing.T) {
	tests := []struct{ title, want string }{
		{"Everyday Types", "everyday-types"},
		{"The primitives: string, number, and boolean", "the-primitives-string-number-and-boolean"},
		{"tsc, the TypeScript compiler", "tsc-the-typescript-compiler"},
		{"Do's and Don'ts", "dos-and-donts"},
		{"keyof & typeof", "keyof--typeof"},
		{"Type-only Imports", "type-only-imports"},
		{"snake_case stays", "snake_case-stays"},
		{"Über Typen", "über-typen"},
		{"ES2015 (ES6)", "es2015-es6"},
	}
	for _, tt := range tests {
		if got := githubSlug(tt.title); got != tt.want {
			t.Errorf("githubSlug(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
	s := newHeadingSlugger()
	for _, want := range []string{"examples", "examples-1", "examples-2"} {
		if got := s.slug("Examples"); got != want {
			t.Errorf("slug = %q, want %q", got, want)
		}
	}
	// A heading whose own slug was taken by a numbered repeat moves on.
	if got := s.slug("Examples 1"); got != "examples-1-1" {
		t.Errorf("slug = %q, want examples-1-1", got)
	}
}

func TestSplitFrontMatter(t *testing.T) {
	tests := []struct {
		name, src string
		want      map[string]string
		body      string
	}{
		{"handbook style", "---\ntitle: Everyday Types\nlayout: docs\npermalink: /docs/handbook/2/everyday-types.html\noneline: \"The language primitives.\"\n---\n\nText",
			map[string]string{"title": "Everyday Types", "layout": "docs", "permalink": "/docs/handbook/2/everyday-types.html", "oneline": "The language primitives."}, "\nText"},
		{"quotes and comments", "---\ntitle: 'It''s here'\noneline: \"say \\\"hi\\\"\"\ntags: a # a comment\n# whole-line comment\n---\nX",
			map[string]string{"title": "It's here", "oneline": `say "hi"`, "tags": "a"}, "X"},
		{"nested and list values skipped", "---\ntitle: T\ntranslatable: true\nnav:\n  - a\n  - b\n---\nX",
			map[string]string{"title": "T", "translatable": "true", "nav": ""}, "X"},
		{"CRLF and BOM", "\uFEFF---\r\ntitle: Windows\r\n---\r\nX", map[string]string{"title": "Windows"}, "X"},
		{"no front matter", "# Title\n\n---\n\ntitle: no\n", map[string]string{}, "# Title\n\n---\n\ntitle: no\n"},
		{"not closed", "---\ntitle: T\n\nBody", map[string]string{}, "---\ntitle: T\n\nBody"},
		{"empty", "", map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fm, body := splitFrontMatter([]byte(tt.src))
			if len(fm) != len(tt.want) {
				t.Errorf("front matter = %q, want %q", fm, tt.want)
			}
			for k, v := range tt.want {
				if fm[k] != v {
					t.Errorf("%s = %q, want %q", k, fm[k], v)
				}
			}
			if strings.ReplaceAll(string(body), "\r", "") != tt.body {
				t.Errorf("body = %q, want %q", body, tt.body)
			}
		})
	}
}

func TestTwoslashBlocks(t *testing.T) {
	tests := []struct {
		name, block, want string
	}{
		{"flags and queries", "```ts twoslash\n// @errors: 2345 2322\n// @noErrors\n// @strict: false\n// @filename: a.ts\nlet a = 1;\n//  ^?\nlet b = a;\n//      ^|\n```",
			"let a = 1;\nlet b = a;"},
		{"cut drops the setup", "```ts twoslash\n// @errors: 2345\ndeclare function f(x: string): void;\n// ---cut---\nf(1);\n```", "f(1);"},
		{"last cut wins", "```ts twoslash\nsetup1();\n// ---cut---\nsetup2();\n// ---cut---\nshown();\n```", "shown();"},
		{"cut-before and cut-after", "```ts twoslash {1}\nsetup();\n// ---cut-before---\nshown();\n// ---cut-after---\nhidden();\n```", "shown();"},
		{"TypeScript's own directives stay", "```ts twoslash\n// @ts-expect-error\nf();\n// @ts-ignore\n/** @param x a number */\n```",
			"// @ts-expect-error\nf();\n// @ts-ignore\n/** @param x a number */"},
		{"indented code kept", "```ts twoslash\nfunction f() {\n  // @errors: 1\n  return 1;\n}\n```", "function f() {\n  return 1;\n}"},
		// Without the twoslash mark the site shows the block as written.
		{"not twoslash", "```ts\n// @errors: 2345\n// ---cut---\nx;\n```", "// @errors: 2345\n// ---cut---\nx;"},
		{"escaped HTML", "```ts twoslash\nlet a: Array<string> = [];\nif (a.length < 1 && true) {}\n```", "let a: Array<string> = [];\nif (a.length < 1 && true) {}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := readMarkdown(t.Context(), SourceSpec{Entry: "a.md", SourcePolicy: db.FullText},
				memPages{"a.md": "## Code\n\n" + tt.block + "\n"})
			if err != nil {
				t.Fatal(err)
			}
			if got := doc.Sections[1].Text; got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReadMarkdownAcrossPages pins what depends on the whole document
// although pages are read one at a time: ids qualified because an anchor
// repeats on a later page, pages that share a slug, and the texts of links
// into other pages, earlier and later, which go to the section that holds
// the target anchor. An element's id met before a heading with the same
// anchor keeps it ("setup" is the <a> in A's own section).
func TestReadMarkdownAcrossPages(t *testing.T) {
	pages := memPages{
		"a.md": "---\ntitle: A\noneline: The A page.\n---\n<a id=\"setup\"></a>\n\n" +
			"## Examples\none [page b](sub/b.md), [x in c](c.md#x), [setup](#setup)\n" +
			"## Examples\ntwo\n" +
			"## Setup\nthree [escaped](#s%65tup)\n",
		"sub/b.md": "# Setup guide\n\nintro [second examples](../a.md#examples-1)\n\n## Examples\nfour\n",
		"c.md": "---\ntitle: C\npermalink: /docs/c.html\n---\n" +
			"## X\n[page a](a.md) [nowhere](a.md#nowhere)\n## C\nfive\n",
		"dup/c.md": "## C\n[back to x](../c.md#x)\n",
	}
	src := SourceSpec{CanonicalURL: "https://example.org/docs/", SourcePolicy: db.FullText}
	doc, err := readMarkdownFiles(t.Context(), src, pages, []string{"a.md", "sub/b.md", "c.md", "dup/c.md"})
	if err != nil {
		t.Fatal(err)
	}
	const site = "https://example.org/docs/"
	want := []struct{ id, parent, path, url, text, anchors string }{
		{"a", "", "A", site + "a.html", "The A page.", "setup\nescaped\npage a"},
		{"a#examples", "a", "A > Examples", site + "a.html#examples", "one page b, x in c, setup", ""},
		{"examples-1", "a", "A > Examples", site + "a.html#examples-1", "two", "second examples"},
		{"setup", "a", "A > Setup", site + "a.html#setup", "three escaped", ""},
		{"b", "", "Setup guide", site + "sub/b.html", "intro second examples", "page b"},
		{"b#examples", "b", "Setup guide > Examples", site + "sub/b.html#examples", "four", ""},
		{"c", "", "C", site + "c.html", "", ""},
		{"x", "c", "C > X", site + "c.html#x", "page a nowhere", "x in c\nback to x"},
		{"c#c", "c", "C > C", site + "c.html#c", "five", ""},
		{"dup-c", "", "c", site + "dup/c.html", "", ""},
		{"dup-c#c", "dup-c", "c > C", site + "dup/c.html#c", "back to x", ""},
	}
	if len(doc.Sections) != len(want) {
		t.Fatalf("got %d sections %+v, want %d", len(doc.Sections), doc.Sections, len(want))
	}
	for i, w := range want {
		s := doc.Sections[i]
		got := struct{ id, parent, path, url, text, anchors string }{s.SectionID, s.ParentID, s.Path, s.URL, s.Text, s.Anchors}
		if got != w {
			t.Errorf("section %d = %q,\nwant         %q", i, got, w)
		}
	}
}

// orderedPages serves memPages slowly and unevenly, so pages parsed on
// several cores finish out of order, and records the order pages were read
// in; after done is set, any read fails the test (a goroutine outlived its
// call).
type orderedPages struct {
	t     *testing.T
	pages memPages
	mu    sync.Mutex
	read  []string
	done  bool
	// cancel, when set, is called as page cancelAt is read.
	cancel   func()
	cancelAt string
}

func (o *orderedPages) Read(ctx context.Context, rel string) (Page, error) {
	o.mu.Lock()
	if o.done {
		o.t.Errorf("page %s read after the reader returned", rel)
	}
	o.read = append(o.read, rel)
	n := len(o.read)
	if o.cancel != nil && rel == o.cancelAt {
		o.cancel()
	}
	o.mu.Unlock()
	time.Sleep(time.Duration(n%3) * 100 * time.Microsecond)
	return o.pages.Read(ctx, rel)
}

func TestReadMarkdownPagesInOrder(t *testing.T) {
	pages := memPages{}
	var rels, wantTitles, wantFailed []string
	for i := range 120 {
		rel := fmt.Sprintf("p%03d.md", i)
		rels = append(rels, rel)
		if i%17 == 5 {
			wantFailed = append(wantFailed, rel) // not in pages: its read fails
			continue
		}
		// Pages of very different sizes finish parsing at different times.
		pages[rel] = fmt.Sprintf("# Page %d\n\n%s\n## Part %d\nSee [the first page](p000.md).\n", i, strings.Repeat("Some words. ", 1+(i%7)*300), i)
		wantTitles = append(wantTitles, fmt.Sprintf("Page %d", i), fmt.Sprintf("Part %d", i))
	}
	src := SourceSpec{CanonicalURL: "https://example.org/", SourcePolicy: db.FullText}

	t.Run("sections, failures and reads in the listing's order", func(t *testing.T) {
		r := &orderedPages{t: t, pages: pages}
		doc, err := readMarkdownFiles(t.Context(), src, r, rels)
		r.mu.Lock()
		r.done = true
		r.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		var titles, failed []string
		for _, s := range doc.Sections {
			titles = append(titles, s.Title)
		}
		for _, f := range doc.Failed {
			failed = append(failed, f.Rel)
		}
		if !slices.Equal(titles, wantTitles) {
			t.Errorf("section titles\n%q\nwant\n%q", titles, wantTitles)
		}
		if !slices.Equal(failed, wantFailed) {
			t.Errorf("failed pages %q, want %q", failed, wantFailed)
		}
		if !slices.Equal(r.read, rels) {
			t.Errorf("pages read in the order %q, want the listing's", r.read)
		}
		if got := doc.Sections[0].Anchors; got != "the first page" {
			t.Errorf("first page's in-link anchors = %q: links from every later page should count", got)
		}
	})
	t.Run("cancelled halfway: the error, and nothing runs on", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		r := &orderedPages{t: t, pages: pages, cancel: cancel, cancelAt: rels[len(rels)/2]}
		_, err := readMarkdownFiles(ctx, src, r, rels)
		r.mu.Lock()
		r.done = true
		reads := len(r.read)
		r.mu.Unlock()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if reads == len(rels) {
			t.Errorf("every page was read after the cancel")
		}
		time.Sleep(20 * time.Millisecond) // a read started late would now fail the test
	})
}
