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
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
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

// readMdBookPrint reads print.html, which holds every chapter in table of
// contents order, each after the first preceded by an empty
// <div style="break-before: page; page-break-before: always;">: mdBook's
// print renderer writes exactly one such div between chapters, and chapter
// text does not use that style. The n-th stretch of <main> between those
// divs is therefore the n-th chapter linked from the table of contents, which
// recent mdBook leaves out of print.html: it is read from toc.html beside it
// (or toc.js; older mdBook put it in every page's sidebar). Chapter ids in
// print.html cannot replace it: a chapter's h1 id comes from its title, not
// its file ("extern-crate-declarations" is items/extern-crates.html).
//
// Heading ids in print.html are unique across the whole book, so a repeated
// heading gets a suffix ("examples-3") that its chapter page does not have.
// Each heading's id is mapped back to the id its own page gives it (see
// printIDs); when the table of contents cannot be matched with the stretches,
// sections are cited on print.html itself, whose ids are then the real ones.
func readMdBookPrint(ctx context.Context, src SourceSpec, entry string, r PageReader) (Document, error) {
	e, err := readBookEntry(ctx, r, entry)
	if err != nil {
		return Document{}, err
	}
	doc, chapters := Document{Failed: e.failed}, e.chapters
	content := bookContent(e.root)
	doc.Version = mdBookVersion(content)
	if err := pruneBookChrome(content, src.Skip); err != nil {
		return Document{}, err
	}
	stretches := splitPrintChapters(content)

	bb := newBookBuilder(src)
	if len(chapters) != len(stretches) {
		// Without a table of contents to match, cite print.html: its ids are
		// real there, and sections still nest by heading level.
		bb.startChapter(bookChapter{read: entry, page: relTo(path.Dir(entry), entry)}, false)
		for _, s := range stretches {
			bb.walkAll(s)
		}
	} else {
		ids := &printIDs{}
		bb.localID = ids.local
		for i, s := range stretches {
			ids.reset()
			bb.startChapter(chapters[i], true)
			bb.walkAll(s)
		}
	}
	doc.Sections = bb.b.finish()
	return doc, nil
}

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

// readMdBookChapters reads the chapter pages the table of contents links to,
// in its order. A page that cannot be read is recorded in Document.Failed and
// the others are still read; only the entry page itself, a missing table of
// contents or a cancelled ctx stop the whole document.
func readMdBookChapters(ctx context.Context, src SourceSpec, entry string, r PageReader) (Document, error) {
	e, err := readBookEntry(ctx, r, entry)
	if err != nil {
		return Document{}, err
	}
	doc, chapters := Document{Failed: e.failed}, e.chapters
	if len(chapters) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "use entry print.html, or SUMMARY.md for the sources",
			"no table of contents found in or beside %s", entry)
	}
	bb := newBookBuilder(src)
	versions := map[string]int{}
	for _, ch := range chapters {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		body := e.page.Body
		if ch.read != path.Clean(entry) {
			p, err := r.Read(ctx, ch.read)
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return Document{}, ctxErr
				}
				doc.Failed = append(doc.Failed, PageFailure{Rel: ch.read, Err: err})
				continue
			}
			body = p.Body
		}
		proot, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			doc.Failed = append(doc.Failed, PageFailure{Rel: ch.read, Err: err})
			continue
		}
		content := bookContent(proot)
		if v := mdBookVersion(content); v != "" {
			versions[v]++
		}
		if err := pruneBookChrome(content, src.Skip); err != nil {
			return Document{}, err
		}
		bb.startChapter(ch, true)
		bb.walkAll(content)
	}
	// Pages name a version only through their rules' test links; take it
	// when the pages that name one agree.
	if len(versions) == 1 {
		for v := range versions {
			doc.Version = v
		}
	}
	doc.Sections = bb.b.finish()
	return doc, nil
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
var bookChromeClasses = []string{"rule", "test-link", "tests-popup", "popup-hidden", "grammar-railroad", "boring"}

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
			if c.Type == html.ElementNode && (bookChromeTags[c.Data] || hasAnyClass(c, bookChromeClasses)) {
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

// splitPrintChapters cuts print.html's <main> at the page breaks mdBook puts
// between chapters, returning one detached container per chapter.
func splitPrintChapters(main *html.Node) []*html.Node {
	var breaks []*html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if isChapterBreak(c) {
				breaks = append(breaks, c)
			} else if c.Type == html.ElementNode {
				find(c)
			}
		}
	}
	find(main)
	for _, b := range breaks {
		hoist(b, main)
	}
	cur := &html.Node{Type: html.ElementNode, Data: "div"}
	out := []*html.Node{cur}
	for c := main.FirstChild; c != nil; {
		next := c.NextSibling
		main.RemoveChild(c)
		if isChapterBreak(c) {
			cur = &html.Node{Type: html.ElementNode, Data: "div"}
			out = append(out, cur)
		} else {
			cur.AppendChild(c)
		}
		c = next
	}
	return out
}

// hoist moves n up to be a child of top. A chapter that leaves an element
// open (raw HTML in its Markdown) makes the HTML parser nest the next page
// break, and the chapters after it, inside that element; each enclosing
// element is split in two at n, the part after n going into a copy of it
// placed after n, so the chapters keep their text and only lose that
// stray nesting.
func hoist(n, top *html.Node) {
	for n.Parent != nil && n.Parent != top {
		p := n.Parent
		rest := &html.Node{Type: p.Type, DataAtom: p.DataAtom, Data: p.Data, Namespace: p.Namespace, Attr: slices.Clone(p.Attr)}
		for c := n.NextSibling; c != nil; {
			next := c.NextSibling
			p.RemoveChild(c)
			rest.AppendChild(c)
			c = next
		}
		p.RemoveChild(n)
		p.Parent.InsertBefore(n, p.NextSibling)
		if rest.FirstChild != nil {
			n.Parent.InsertBefore(rest, n.NextSibling)
		}
	}
}

func isChapterBreak(n *html.Node) bool {
	if n.Type != html.ElementNode || n.Data != "div" || n.FirstChild != nil {
		return false
	}
	style := attr(n, "style")
	return strings.Contains(style, "break-before: page") || strings.Contains(style, "page-break-before: always")
}

// printIDs maps the ids of one chapter's headings in print.html back to the
// ids they have on the chapter's own page. mdBook derives a heading's id
// from its text (mdBookSlug) and makes it unique by appending "-1", "-2"…:
// on a chapter page among that page's ids, in print.html among the whole
// book's. So a print id that is the slug, or the slug with such a suffix, is
// the slug made unique within the chapter again; any other id was written
// by the author ({#id}) and is the same on both pages.
type printIDs struct {
	used map[string]bool
}

func (p *printIDs) reset() { p.used = map[string]bool{} }

func (p *printIDs) local(n *html.Node) string {
	id := attr(n, "id")
	if id == "" {
		return ""
	}
	slug := mdBookSlug(rawText(n))
	if slug != "" && (id == slug || isNumberedSlug(id, slug)) {
		id = slug
		for i := 1; p.used[id]; i++ {
			id = slug + "-" + strconv.Itoa(i)
		}
	}
	p.used[id] = true
	return id
}

func isNumberedSlug(id, slug string) bool {
	rest, ok := strings.CutPrefix(id, slug+"-")
	if !ok || rest == "" {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
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

// rawText is n's text exactly as written: mdBook derives ids from it
// before any white space is collapsed.
func rawText(n *html.Node) string {
	var b strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
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

// bookTOC finds the table of contents of the book whose page at rel was
// parsed into root, in the first place mdBook versions put it: the sidebar
// inside every page (older mdBook, and toc.html itself); toc.html beside the
// page (recent mdBook's sidebar without JavaScript); the toc.js the page
// loads, which holds the same list in a string. Chapters come in order, with
// their nesting; draft chapters (no link) are not in it. A toc.html that
// cannot be read is reported as a failure only when nothing else is found.
func bookTOC(ctx context.Context, r PageReader, rel string, root *html.Node) ([]bookChapter, []PageFailure, error) {
	dir := path.Dir(rel)
	if list := findTOCList(root); list != nil {
		return tocChapters(list, rel, dir), nil, nil
	}
	var failed []PageFailure
	tocRel := path.Join(dir, "toc.html")
	if p, err := r.Read(ctx, tocRel); err == nil {
		if troot, err := html.Parse(bytes.NewReader(p.Body)); err == nil {
			if list := findTOCList(troot); list != nil {
				return tocChapters(list, tocRel, dir), nil, nil
			}
		}
	} else if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, nil, ctxErr
	} else {
		failed = append(failed, PageFailure{Rel: tocRel, Err: err})
	}
	for _, js := range tocScripts(root, rel) {
		p, err := r.Read(ctx, js)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, nil, ctxErr
			}
			continue
		}
		if list := findTOCList(tocFromScript(p.Body)); list != nil {
			return tocChapters(list, js, dir), nil, nil
		}
	}
	return nil, failed, nil
}

// findTOCList is mdBook's chapter list, <ol class="chapter">.
func findTOCList(n *html.Node) *html.Node {
	if n == nil {
		return nil
	}
	if n.Type == html.ElementNode && n.Data == "ol" && hasAnyClass(n, []string{"chapter"}) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if l := findTOCList(c); l != nil {
			return l
		}
	}
	return nil
}

// tocChapters lists the chapter links under list, found on the page at from;
// depth is how many lists enclose a link inside the outermost one.
func tocChapters(list *html.Node, from, entryDir string) []bookChapter {
	var out []bookChapter
	seen := map[string]bool{}
	var visit func(n *html.Node, depth int)
	visit = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "ol", "ul":
				if n != list {
					depth++
				}
			case "a":
				href := attr(n, "href")
				rel, ok := resolveRel(from, href)
				if !ok || href == "" || seen[rel] || !strings.HasSuffix(rel, ".html") {
					return
				}
				seen[rel] = true
				out = append(out, bookChapter{read: rel, page: relTo(entryDir, rel), title: tocTitle(n), depth: depth})
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, depth)
		}
	}
	visit(list, 0)
	return out
}

// tocTitle is a link's text without the section number mdBook puts in
// <strong> ("2.1.").
func tocTitle(a *html.Node) string {
	var b strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "strong" {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(a)
	return strings.TrimSpace(collapseSpace(b.String()))
}

var tocScriptRE = regexp.MustCompile(`^toc(-[0-9a-f]+)?\.js$`)

// tocScripts are the toc.js scripts (toc-<hash>.js) the page at rel loads.
func tocScripts(root *html.Node, rel string) []string {
	var out []string
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "script" {
			src := attr(n, "src")
			if p, ok := resolveRel(rel, src); ok && tocScriptRE.MatchString(path.Base(p)) {
				out = append(out, p)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	return out
}

var innerHTMLRE = regexp.MustCompile(`innerHTML\s*=\s*'`)

// tocFromScript parses the HTML that toc.js assigns to the sidebar
// (this.innerHTML = '<ol class="chapter">…'), a single-quoted JavaScript
// string; nil when there is none.
func tocFromScript(js []byte) *html.Node {
	loc := innerHTMLRE.FindIndex(js)
	if loc == nil {
		return nil
	}
	var b strings.Builder
	s := string(js[loc[1]:])
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			root, err := html.Parse(strings.NewReader(b.String()))
			if err != nil {
				return nil
			}
			return root
		case '\\':
			if i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return nil
}

// readMdBookSources reads a book from its Markdown sources: the chapters
// SUMMARY.md links to, in its order and nesting, each turned into HTML by
// goldmark and walked like a rendered page. Headings get the ids mdBook
// would give them (mdBookSlug, made unique within the chapter), so sections
// carry the same ids and URLs as when read from the rendered book.
func readMdBookSources(ctx context.Context, src SourceSpec, entry string, r PageReader) (Document, error) {
	summary, err := r.Read(ctx, entry)
	if err != nil {
		return Document{}, fmt.Errorf("read %s: %w", entry, err)
	}
	md := newBookMarkdown()
	chapters := summaryChapters(md, summary.Body, entry)
	if len(chapters) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "point entry at the book's src/SUMMARY.md",
			"no chapters linked from %s", entry)
	}
	var doc Document
	bb := newBookBuilder(src)
	for _, ch := range chapters {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		p, err := r.Read(ctx, ch.read)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return Document{}, ctxErr
			}
			doc.Failed = append(doc.Failed, PageFailure{Rel: ch.read, Err: err})
			continue
		}
		root, err := renderBookMarkdown(md, p.Body)
		if err != nil {
			doc.Failed = append(doc.Failed, PageFailure{Rel: ch.read, Err: err})
			continue
		}
		content := bookContent(root)
		if err := pruneBookChrome(content, src.Skip); err != nil {
			return Document{}, err
		}
		bb.startChapter(ch, true)
		bb.walkAll(content)
	}
	doc.Sections = bb.b.finish()
	return doc, nil
}

// newBookMarkdown parses Markdown as mdBook's pulldown-cmark setup does:
// tables, footnotes, strikethrough, task lists, {#id} heading attributes,
// and raw HTML passed through (it is parsed again, never served).
func newBookMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Footnote, extension.TaskList),
		goldmark.WithParserOptions(parser.WithAttribute()),
		goldmark.WithRendererOptions(gmhtml.WithUnsafe()),
	)
}

// summaryChapters lists the chapters SUMMARY.md links to. Depth is the list
// nesting; prefix and suffix chapters (links outside lists) and top-level
// list items are at depth 0. Draft chapters (empty links) and links that
// leave the book are left out.
func summaryChapters(md goldmark.Markdown, body []byte, entry string) []bookChapter {
	root := md.Parser().Parse(text.NewReader(body))
	dir := path.Dir(entry)
	var out []bookChapter
	seen := map[string]bool{}
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		link, ok := n.(*ast.Link)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		rel, ok := resolveRel(entry, string(link.Destination))
		if !ok || len(link.Destination) == 0 || seen[rel] || !strings.EqualFold(path.Ext(rel), ".md") {
			return ast.WalkSkipChildren, nil
		}
		seen[rel] = true
		depth := -1
		for p := n.Parent(); p != nil; p = p.Parent() {
			if p.Kind() == ast.KindList {
				depth++
			}
		}
		out = append(out, bookChapter{
			read:  rel,
			page:  mdBookPage(relTo(dir, rel)),
			title: strings.TrimSpace(collapseSpace(inlineText(link, body))),
			depth: max(depth, 0),
		})
		return ast.WalkSkipChildren, nil
	})
	return out
}

// mdBookPage is the page mdBook renders a chapter file to: x.md becomes
// x.html, and README.md becomes index.html.
func mdBookPage(rel string) string {
	base := strings.TrimSuffix(rel, path.Ext(rel))
	if strings.EqualFold(path.Base(base), "README") {
		base = path.Join(path.Dir(base), "index")
	}
	return base + ".html"
}

// renderBookMarkdown turns one chapter's Markdown into an HTML tree, with
// the Reference's preprocessing (preprocessBookMarkdown) and mdBook's
// heading ids.
func renderBookMarkdown(md goldmark.Markdown, body []byte) (*html.Node, error) {
	src := preprocessBookMarkdown(body)
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(stdLinkContext(src)))
	used := map[string]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if v, ok := h.AttributeString("id"); ok {
			if id := attrValue(v); id != "" {
				used[id] = true
				return ast.WalkSkipChildren, nil
			}
		}
		slug := mdBookSlug(inlineText(h, src))
		id := slug
		for i := 1; used[id]; i++ {
			id = slug + "-" + strconv.Itoa(i)
		}
		if id != "" {
			used[id] = true
			h.SetAttributeString("id", []byte(id))
		}
		return ast.WalkSkipChildren, nil
	})
	var out bytes.Buffer
	if err := md.Renderer().Render(&out, src, doc); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot render Markdown")
	}
	return html.Parse(&out)
}

// stdLabelRE finds link labels: [label] in [text][label], [label][] and
// [label].
var stdLabelRE = regexp.MustCompile(`\[([^\[\]\n]+)\]`)

// stdLinkContext defines the link references the Reference leaves for its
// build to resolve: labels naming standard library items ([`Copy`],
// [std::ptr#provenance]) have no definition in the chapter, so goldmark
// would print them as written, brackets and all. Defining them makes them
// links, whose text is all that is kept; where the chapter does define
// one, the destination differs, which does not matter here.
func stdLinkContext(src []byte) parser.Context {
	pc := parser.NewContext()
	for _, m := range stdLabelRE.FindAllSubmatch(src, -1) {
		label := m[1]
		if bytes.Contains(label, []byte("::")) || len(label) > 2 && label[0] == '`' && label[len(label)-1] == '`' {
			pc.AddReference(parser.NewReference(label, []byte("#"), nil))
		}
	}
	return pc
}

func attrValue(v any) string {
	switch v := v.(type) {
	case []byte:
		return string(v)
	case string:
		return v
	}
	return ""
}

// inlineText is the text of n's inline content as it renders, without
// markup: what mdBook makes heading ids from.
func inlineText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.RawHTML, *ast.AutoLink:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

var (
	// ruleLineRE is a rule marker line as the Reference's mdbook-spec
	// preprocessor finds it: r[expr.method.intro] alone on a line.
	ruleLineRE = regexp.MustCompile(`^r\[[^\]]+\]\s*$`)
	// admonitionRE is a GitHub-style alert opener, "> [!NOTE]".
	admonitionRE = regexp.MustCompile(`^(\s*>\s*)\[!([A-Za-z]+)(?:-(\d+))?\]\s*$`)
	// fenceRE opens or closes a fenced code block, maybe inside block quotes.
	fenceRE = regexp.MustCompile("^(\\s*(?:>\\s?)*)\\s*(`{3,}|~{3,})\\s*([^`]*)$")
)

// preprocessBookMarkdown does to a Reference chapter what its build does
// before and around Markdown rendering, line by line and outside code
// fences unless said otherwise:
//   - rule marker lines (r[...]) are dropped: they are rendered as links,
//     not text;
//   - "> [!NOTE]" alert openers become a "Note" title paragraph, as mdBook
//     renders them ("[!EDITION-2018]" becomes "2018 Edition differences");
//   - inside Rust code fences, lines hidden from readers ("# use x;", "#")
//     are dropped, and "##" unescapes to "#", as mdBook shows the code.
func preprocessBookMarkdown(src []byte) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	var out strings.Builder
	out.Grow(len(src))
	fence, rust := "", false
	for _, line := range lines {
		content := strings.TrimRight(line, "\r\n")
		if m := fenceRE.FindStringSubmatch(content); m != nil {
			switch {
			case fence == "":
				fence = m[2]
				info := strings.FieldsFunc(m[3], func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
				rust = len(info) > 0 && info[0] == "rust"
			case m[2][0] == fence[0] && len(m[2]) >= len(fence) && strings.TrimSpace(m[3]) == "":
				fence, rust = "", false
			}
			out.WriteString(line)
			continue
		}
		if fence != "" {
			if rust {
				code := strings.TrimLeft(stripQuotes(content), " \t")
				switch {
				case code == "#" || strings.HasPrefix(code, "# "):
					continue
				case strings.HasPrefix(code, "##"):
					line = strings.Replace(line, "##", "#", 1)
				}
			}
			out.WriteString(line)
			continue
		}
		if ruleLineRE.MatchString(content) {
			continue
		}
		if m := admonitionRE.FindStringSubmatch(content); m != nil {
			out.WriteString(m[1] + admonitionTitle(m[2], m[3]) + "\n" + strings.TrimRight(m[1], " \t") + "\n")
			continue
		}
		out.WriteString(line)
	}
	return []byte(out.String())
}

// stripQuotes drops the block quote markers a line starts with.
func stripQuotes(line string) string {
	for {
		t := strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(t, ">") {
			return line
		}
		line = strings.TrimPrefix(t[1:], " ")
	}
}

func admonitionTitle(kind, edition string) string {
	if strings.EqualFold(kind, "EDITION") && edition != "" {
		return edition + " Edition differences"
	}
	k := strings.ToLower(kind)
	return strings.ToUpper(k[:1]) + k[1:]
}
