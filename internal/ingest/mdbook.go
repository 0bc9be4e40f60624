package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
)

// The mdbook kind reads books made with mdBook, first of all the Rust
// Reference, in one of three shapes chosen by SourceSpec.Entry:
//
//   - print.html: the whole book in one page (the fast path);
//   - index.html or toc.html: the chapter pages, in table-of-contents order;
//   - SUMMARY.md: the Markdown sources, chapters in SUMMARY order.
//
// Every shape yields the same sections with the same ids, so a book ingested
// from print.html and later from its chapter pages keeps its citations.
//
// Section ids are "<page>#<heading id>", where page is the chapter's path
// without ".html" ("expressions/method-call-expr#examples"), and a chapter's
// first h1 is the page alone ("expressions/method-call-expr"). Bare heading
// ids are not unique in a book (the Reference has a dozen "examples"), and
// numbering the repeats would make an id depend on every chapter before it,
// so adding a chapter upstream would renumber ids downstream. The page
// prefix keeps each id as stable as the page and heading it names, and it
// reads like the citation URL it stands for.

// mdBookEntry is the entry used when SourceSpec.Entry is empty.
const mdBookEntry = "print.html"

func readMdBook(ctx context.Context, src SourceSpec, r PageReader) (Document, error) {
	entry := src.Entry
	if entry == "" {
		entry = mdBookEntry
	}
	var (
		doc Document
		err error
	)
	switch {
	case strings.EqualFold(path.Ext(entry), ".md"):
		doc, err = readMdBookSources(ctx, src, entry, r)
	case path.Base(entry) == "print.html":
		doc, err = readMdBookPrint(ctx, src, entry, r)
	default:
		doc, err = readMdBookChapters(ctx, src, entry, r)
	}
	if err != nil {
		return Document{}, err
	}
	if len(doc.Sections) == 0 {
		// Nothing to store: say whether pages were missing or the pages
		// were not a book.
		if len(doc.Failed) > 0 {
			f := doc.Failed[0]
			return Document{}, apperr.Wrap(f.Err, apperr.Unavailable, "check the network or the local copy",
				"no headings read from %s: %d pages could not be read, first %s", entry, len(doc.Failed), f.Rel)
		}
		return Document{}, apperr.New(apperr.InvalidArgument,
			"point entry at an mdBook print.html, index.html or SUMMARY.md",
			"no headings found in %s", entry)
	}
	return doc, nil
}

// bookChapter is one chapter of a book, as its table of contents lists it.
type bookChapter struct {
	read  string // path for PageReader.Read, relative to the document's folder
	page  string // the rendered page, relative to the entry's folder: citations and ids
	title string // the title in the table of contents
	depth int    // nesting in the table of contents, 0 at the top
}

// key is the chapter's part of its section ids: the page without ".html".
func (c bookChapter) key() string { return strings.TrimSuffix(c.page, ".html") }

// bookEntry is a book's entry page with the table of contents found in or
// beside it.
type bookEntry struct {
	page     Page
	root     *html.Node
	chapters []bookChapter
	failed   []PageFailure
}

func readBookEntry(ctx context.Context, r PageReader, entry string) (bookEntry, error) {
	var e bookEntry
	var err error
	if e.page, err = r.Read(ctx, entry); err != nil {
		return e, fmt.Errorf("read %s: %w", entry, err)
	}
	if e.root, err = html.Parse(bytes.NewReader(e.page.Body)); err != nil {
		return e, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s", entry)
	}
	e.chapters, e.failed, err = bookTOC(ctx, r, entry, e.root)
	return e, err
}

// bookBuilder feeds a book's chapters, one after another, into one
// sectionBuilder, so that ids are unique across the book and chapters nest
// under their table of contents parents.
type bookBuilder struct {
	b   *sectionBuilder
	src SourceSpec
	ch  bookChapter
	// pages maps a chapter key back to its page, for links.
	pages map[string]string
	// localID is a heading's id on its own chapter page, "" when it has
	// none. In print.html it differs from the id there (printIDs).
	localID func(n *html.Node) string
	// pageH1 says the chapter's first h1 stands for the page: its id is the
	// chapter key, its link the page without an anchor.
	pageH1  bool
	sawH1   bool // the chapter's first h1 has been met
	started bool // the chapter's first heading, or its untitled text, has been met
	// levels holds, per table of contents depth, the section level of each
	// heading element.
	levels []map[string]int
}

func newBookBuilder(src SourceSpec) *bookBuilder {
	bb := &bookBuilder{
		src:     src,
		pages:   map[string]string{},
		localID: func(n *html.Node) string { return attr(n, "id") },
	}
	b := newSectionBuilder(src.CanonicalURL, src.SourcePolicy)
	// Table cells get a tab: the Reference's tables (register classes,
	// operator precedence) would otherwise run their cells together
	// ("x86regax, bx"). Not " | ": operator cells hold "|" themselves.
	b.blocks = map[string]string{"td": "\t", "th": "\t"}
	b.anchor = bb.anchor
	b.derive = bb.derive
	b.link = bb.link
	bb.b = b
	return bb
}

// startChapter makes the walk that follows belong to ch: its headings are
// shifted down by its depth in the table of contents, so a sub-chapter's h1
// lands under its parent chapter's h1 and above the parent's h2s.
func (bb *bookBuilder) startChapter(ch bookChapter, pageH1 bool) {
	bb.ch = ch
	bb.pages[ch.key()] = ch.page
	bb.pageH1 = pageH1
	bb.sawH1, bb.started = false, false
	for len(bb.levels) <= ch.depth {
		d := len(bb.levels)
		m := make(map[string]int, 6)
		for i := 1; i <= 6; i++ {
			m["h"+strconv.Itoa(i)] = i + d
		}
		bb.levels = append(bb.levels, m)
	}
	bb.b.levels = bb.levels[ch.depth]
}

func (bb *bookBuilder) anchor(n *html.Node) string {
	id := bb.localID(n)
	if bb.pageH1 && !bb.sawH1 && n.Data == "h1" {
		bb.sawH1 = true
		return bb.ch.key()
	}
	if id == "" {
		return ""
	}
	return bb.ch.key() + "#" + id
}

// derive is the id of a heading that has no anchor on its page (mdBook
// writes id="" for a heading such as "::"): still under its chapter, so it
// stays stable when other chapters change. Its URL is its parent's.
func (bb *bookBuilder) derive(title string) string {
	slug := mdBookSlug(title)
	if slug == "" {
		slug = "section"
	}
	return bb.ch.key() + "#" + slug
}

// link turns an anchor made by anchor ("page#id", or "page" for a chapter's
// h1) into the citation URL: the chapter page, and the id on it.
func (bb *bookBuilder) link(a string) string {
	if a == "" {
		return canonical(bb.src, bb.ch.page, "")
	}
	key, frag, _ := strings.Cut(a, "#")
	page, ok := bb.pages[key]
	if !ok {
		page = bb.ch.page
	}
	return canonical(bb.src, page, frag)
}

// walkAll walks the children of n as chapter content.
func (bb *bookBuilder) walkAll(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		bb.walkTop(c)
	}
}

// walkTop walks one top-level node of a chapter. Text before the chapter's
// first heading would otherwise run on into the previous chapter's last
// section; it gets a section of its own, titled from the table of contents.
func (bb *bookBuilder) walkTop(n *html.Node) {
	if !bb.started {
		switch {
		case hasHeading(n):
			bb.started = true
		case !hasText(n):
			return
		case bb.ch.title == "" || !bb.pageH1:
			return // nothing to title it with: leave it out rather than misfile it
		default:
			bb.started, bb.sawH1 = true, true
			bb.b.openSection(1+bb.ch.depth, bb.ch.title, bb.ch.key())
		}
	}
	bb.b.walk(n, false)
}

func isHeading(n *html.Node) bool {
	return n.Type == html.ElementNode && len(n.Data) == 2 && n.Data[0] == 'h' && n.Data[1] >= '1' && n.Data[1] <= '6'
}

func hasHeading(n *html.Node) bool {
	if isHeading(n) {
		return true
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasHeading(c) {
			return true
		}
	}
	return false
}

func hasText(n *html.Node) bool {
	if n.Type == html.TextNode {
		return strings.TrimSpace(n.Data) != ""
	}
	if n.Type == html.ElementNode && skipped[n.Data] {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasText(c) {
			return true
		}
	}
	return false
}

// bookContent is the element holding a page's text: <main> in mdBook's
// theme, else #content (custom themes), else <body> (Markdown rendered here).
func bookContent(root *html.Node) *html.Node {
	var main, content, body *html.Node
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if main != nil {
			return
		}
		if n.Type == html.ElementNode {
			switch {
			case n.Data == "main":
				main = n
				return
			case content == nil && attr(n, "id") == "content" || content == nil && attr(n, "id") == "mdbook-content":
				content = n
			case n.Data == "body" && body == nil:
				body = n
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	switch {
	case main != nil:
		return main
	case content != nil:
		return content
	case body != nil:
		return body
	}
	return root
}

// bookChromeClasses mark elements inside <main> that are not book text:
// the Reference's rule markers (div.rule, shown as "[expr.method.intro]"
// and written r[expr.method.intro] in the sources) with their "Tests"
// toggles and hidden test lists, the hidden railroad diagrams that repeat
// each grammar, and the lines mdBook hides in code examples (span.boring:
// "fn main() {" wrappers and the like).
var bookChromeClasses = []string{"rule", "test-link", "tests-popup", "popup-hidden", "grammar-railroad", "boring",
	// A footnote's marker in the text (a superscript number: "the fields
	// of the type.1") and, in older mdBooks, its back-link.
	"footnote-reference", "footnote-backref"}

// isFootnoteBackLink reports a footnote's link back to its marker, the "↩"
// at the end of the note, which mdBook writes as a plain <a href="#fr-…">.
func isFootnoteBackLink(n *html.Node) bool {
	return n.Type == html.ElementNode && n.Data == "a" && strings.HasPrefix(attr(n, "href"), "#fr-")
}

// bookChromeTags hold no book text wherever they are: icons, the "Show
// Railroad" button, forms.
var bookChromeTags = map[string]bool{"svg": true, "button": true, "script": true, "style": true, "noscript": true, "template": true, "input": true}

// pruneBookChrome removes page chrome from the tree under n, along with
// whatever the source's Skip selectors match.
func pruneBookChrome(n *html.Node, skip []string) error {
	var prune func(n *html.Node)
	prune = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && (bookChromeTags[c.Data] || hasAnyClass(c, bookChromeClasses) || isFootnoteBackLink(c)) {
				n.RemoveChild(c)
			} else {
				prune(c)
			}
			c = next
		}
	}
	prune(n)
	if len(skip) == 0 {
		return nil
	}
	sel := goquery.NewDocumentFromNode(n)
	for _, s := range skip {
		m, err := cascadia.Compile(s)
		if err != nil {
			return apperr.Wrap(err, apperr.InvalidArgument, "fix the skip selectors in the source spec", "bad skip selector %q", s)
		}
		sel.FindMatcher(m).Remove()
	}
	return nil
}

func hasAnyClass(n *html.Node, classes []string) bool {
	cl := attr(n, "class")
	if cl == "" {
		return false
	}
	for _, c := range strings.Fields(cl) {
		if slices.Contains(classes, c) {
			return true
		}
	}
	return false
}

// mdBookSlug is the id mdBook gives a heading with this text: letters,
// digits, '_' and '-' kept (ASCII lowered), each white space a '-', the rest
// dropped. "What *The Reference* is not" → "what-the-reference-is-not".
func mdBookSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(text) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || r == '_' || r == '-':
			if r < unicode.MaxASCII {
				r = unicode.ToLower(r)
			}
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte('-')
		}
	}
	return b.String()
}

// testLinkRE matches the links the Reference's rules carry to the tests in
// rust-lang/rust, at the git ref the book was built from: a release tag
// ("1.95.0") for the Reference shipped with a stable toolchain, "main" or a
// commit for nightly.
var testLinkRE = regexp.MustCompile(`^https://github\.com/rust-lang/rust/blob/(\d+\.\d+\.\d+)/tests/`)

// mdBookVersion is the Rust release the Reference in n was built for, read
// from its rules' test links (div.tests-popup), or "" when they name no
// release or disagree. mdBook books state no version of their own.
func mdBookVersion(n *html.Node) string {
	found := ""
	agree := true
	var visit func(n *html.Node, inTests bool)
	visit = func(n *html.Node, inTests bool) {
		if !agree {
			return
		}
		if n.Type == html.ElementNode {
			if !inTests && hasAnyClass(n, []string{"tests-popup"}) {
				inTests = true
			}
			if inTests && n.Data == "a" {
				if m := testLinkRE.FindStringSubmatch(attr(n, "href")); m != nil {
					if found != "" && found != m[1] {
						agree = false
						return
					}
					found = m[1]
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, inTests)
		}
	}
	visit(n, false)
	if !agree {
		return ""
	}
	return found
}

// relTo is p (relative to the document's folder) relative to dir, the
// entry's folder, which is what canonical URLs are built on.
func relTo(dir, p string) string {
	if dir == "." || dir == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
		return rest
	}
	return p
}
