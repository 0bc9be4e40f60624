package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// sphinxChrome are the parts of a Sphinx page that hold no document text:
// navigation bars, sidebars, the footer, the ¶ permalinks after headings, and
// toctrees, which only repeat the titles of the pages they list.
var sphinxChrome = []string{
	"div.sphinxsidebar", "div.related", "div.footer", "div.mobile-nav",
	"a.headerlink", "div.toctree-wrapper", "script", "style",
}

var headingTags = map[string]bool{"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true}

// readSphinx reads Sphinx HTML output such as the Python Language Reference:
// the entry page (index.html) and, in order, the chapter pages its toctree
// lists. Each <section id> (Sphinx ≥ 4) or <div class="section" id> (older
// Sphinx) is a section: its title is its heading, its level its depth of
// nesting, its text what comes before its first subsection. The entry page's
// own sections (the reference's introduction) come first.
//
// A chapter that cannot be read is reported in Document.Failed and the rest is
// read; only a failed entry page or a cancelled ctx ends the read. Errors:
// the entry's read error; apperr.InvalidArgument when nothing on the pages
// is a Sphinx section.
func readSphinx(ctx context.Context, src SourceSpec, r PageReader) (Document, error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	entry, err := r.Read(ctx, src.Entry)
	if err != nil {
		return Document{}, fmt.Errorf("read entry page %q: %w", src.Entry, err)
	}
	entryRel := pageRel(entry, src.Entry)
	first, err := newSphinxPage(entryRel, entry.Body, src.Skip)
	if err != nil {
		return Document{}, err
	}
	pages := []*sphinxPage{first}
	var failed []PageFailure
	for _, rel := range first.toc {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		p, err := r.Read(ctx, rel)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return Document{}, ctxErr
			}
			failed = append(failed, PageFailure{Rel: rel, Err: err})
			continue
		}
		page, err := newSphinxPage(pageRel(p, rel), p.Body, src.Skip)
		if err == nil && len(page.sections) == 0 {
			err = apperr.New(apperr.InvalidArgument, "check that the toctree links to Sphinx pages",
				"%s has no Sphinx sections", rel)
		}
		if err != nil {
			failed = append(failed, PageFailure{Rel: rel, Err: err})
			continue
		}
		pages = append(pages, page)
	}

	sections := sphinxSections(src, pages)
	if len(sections) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument,
			"pass the folder (or index.html) of the document's Sphinx HTML build, e.g. the Python Language Reference's reference/, or a whole build that holds it",
			"no Sphinx sections (<section id> or <div class=\"section\" id>) in %q or the pages it lists", src.Entry)
	}
	version := src.Version
	for _, p := range pages {
		if version != "" {
			break
		}
		version = sphinxVersion(p.doc)
	}
	return Document{Version: version, Sections: sections, Failed: failed}, nil
}

// pageRel is the rel a page is cited by: what the reader says it read, else
// what was asked for, without a fragment.
func pageRel(p Page, asked string) string {
	rel := p.Rel
	if rel == "" {
		rel = asked
	}
	rel, _, _ = strings.Cut(rel, "#")
	return rel
}

// sphinxPage is one parsed page with its chrome removed.
type sphinxPage struct {
	rel      string
	stem     string // rel without .html: "lexical_analysis"
	doc      *goquery.Document
	main     *html.Node   // the content root: [role=main], div.body or body
	sections []*html.Node // section elements in document order
	toc      []string     // the pages its toctree lists, read before toctrees go as chrome
}

func newSphinxPage(rel string, body []byte, skip []string) (*sphinxPage, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s as HTML", rel)
	}
	p := &sphinxPage{rel: rel, stem: strings.TrimSuffix(rel, path.Ext(rel)), doc: doc, toc: sphinxChapters(doc, rel)}
	// Chrome goes from <body> only: the version is read from <title> and the
	// <script>s in <head>.
	body1 := doc.Find("body")
	body1.Find(strings.Join(sphinxChrome, ", ")).Remove()
	for _, sel := range skip {
		body1.Find(sel).Remove()
	}
	main := doc.Find("[role=main]").First()
	if main.Length() == 0 {
		main = doc.Find("div.body").First()
	}
	if main.Length() == 0 {
		main = body1
	}
	if main.Length() == 0 {
		return p, nil
	}
	p.main = main.Get(0)
	unwrapListParagraphs(p.main)
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if isSphinxSection(n) {
			p.sections = append(p.sections, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(p.main)
	return p, nil
}

// isSphinxSection reports whether n is a section: <section> in HTML5 Sphinx
// output, <div class="section"> in the output of Sphinx before 4.
func isSphinxSection(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	switch n.Data {
	case "section":
		return true
	case "div":
		return hasClass(n, "section")
	}
	return false
}

// sphinxChapters lists the pages the entry page's toctree names, in order,
// each once, without the entry itself and without links that leave the
// document (the reference links to ../library/ and the like).
func sphinxChapters(doc *goquery.Document, entryRel string) []string {
	var rels []string
	seen := map[string]bool{path.Clean(entryRel): true}
	doc.Find("div.toctree-wrapper li.toctree-l1 > a.reference.internal").Each(func(_ int, a *goquery.Selection) {
		rel, ok := resolveRel(entryRel, a.AttrOr("href", ""))
		if !ok || seen[rel] {
			return
		}
		seen[rel] = true
		rels = append(rels, rel)
	})
	return rels
}

// sphinxSections turns the pages' section elements into sections.
//
// Ids: a section's id is its element's id when no other section in the whole
// document has that id, and "<page-stem>#<id>" for every section whose id
// repeats ("lexical_analysis#literals" and "expressions#literals" in the
// Python reference). Plain ids keep the common case short and guessable
// (`langspec section literals`); qualifying every holder of a repeated id,
// not just the later ones, means a section's id does not depend on which page
// happens to be read first. The qualified form reads like the page's own
// address, lexical_analysis.html#literals. URLs always carry the element's
// real id, which is where a browser scrolls to.
func sphinxSections(src SourceSpec, pages []*sphinxPage) []db.Section {
	count := map[string]int{}
	for _, p := range pages {
		for _, s := range p.sections {
			if id := attr(s, "id"); id != "" {
				count[id]++
			}
		}
	}
	b := newSectionBuilder(src.CanonicalURL, src.SourcePolicy)
	// Headings do not open sections here (section elements do), so a stray
	// heading inside a section is just text.
	b.levels = map[string]int{}
	for _, p := range pages {
		if p.main == nil {
			continue
		}
		anchorOf := map[string]string{} // section id → the element id on this page
		rel := p.rel
		b.link = func(id string) string { return canonical(src, rel, anchorOf[id]) }
		b.page = rel
		w := sphinxWalker{b: b, page: p, count: count, anchorOf: anchorOf, holds: map[*html.Node]bool{}}
		for _, s := range p.sections {
			for n := s.Parent; n != nil && !w.holds[n]; n = n.Parent {
				w.holds[n] = true
			}
		}
		w.walk(p.main)
	}
	return b.finish()
}

type sphinxWalker struct {
	b        *sectionBuilder
	page     *sphinxPage
	count    map[string]int
	anchorOf map[string]string
	holds    map[*html.Node]bool // elements with a section somewhere inside
	depth    int
}

// walk hands subtrees without sections to the shared builder and opens a
// section at each section element itself, because the builder's own walk
// opens sections only at headings.
func (w *sphinxWalker) walk(n *html.Node) {
	if isSphinxSection(n) {
		w.depth++
		heading := w.open(n)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c != heading {
				w.walk(c)
			}
		}
		w.depth--
		return
	}
	if w.holds[n] {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c)
		}
		return
	}
	// Text outside every section (before a page's first one) is not part of
	// any section; it would otherwise run on from the previous page.
	if w.depth > 0 {
		w.b.walk(n, false)
	}
}

// open starts the section for element n and returns its title heading, which
// the walk then leaves out of the text.
func (w *sphinxWalker) open(n *html.Node) *html.Node {
	var heading *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && headingTags[c.Data] {
			heading = c
			break
		}
		if c.Type == html.ElementNode && c.Data != "span" && c.Data != "a" {
			break // the title comes first, after any link targets
		}
	}
	anchor := attr(n, "id")
	title := ""
	if heading != nil {
		title = strings.TrimSpace(collapseSpace(goquery.NewDocumentFromNode(heading).Text()))
	}
	if title == "" {
		title = anchor
	}
	if title == "" {
		title = "Untitled section"
	}
	id := anchor
	if w.count[anchor] > 1 {
		id = w.page.stem + "#" + anchor
	}
	w.anchorOf[id] = anchor
	w.b.openSection(w.depth, title, id)
	w.b.own(anchor)
	return heading
}

var (
	// "The Python Language Reference — Python 3.11.2 documentation"
	sphinxTitleVersion = regexp.MustCompile(`(\d+\.\d+)(?:\.\d+)*\S*\s+documentation\s*$`)
	// var DOCUMENTATION_OPTIONS = { VERSION: '3.7.3', … } inline in older builds
	sphinxOptionsVersion = regexp.MustCompile(`VERSION:\s*['"](\d+\.\d+)[^'"]*['"]`)
)

// sphinxVersion reads the documented version from the page's <title>, else
// from an inline DOCUMENTATION_OPTIONS, as major.minor: the reference
// describes the language of 3.11, and 3.11.2 differs from 3.11.9 only in
// documentation fixes. "" when the page states none.
func sphinxVersion(doc *goquery.Document) string {
	if m := sphinxTitleVersion.FindStringSubmatch(strings.TrimSpace(doc.Find("title").First().Text())); m != nil {
		return m[1]
	}
	var version string
	doc.Find("script").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if m := sphinxOptionsVersion.FindStringSubmatch(s.Text()); m != nil {
			version = m[1]
		}
		return version == ""
	})
	return version
}

// unwrapListParagraphs replaces a <p> that opens an <li> by its content, so
// that Sphinx's <li><p>text</p></li> (and a loose Markdown list's) reads
// "- text" rather than a "-" alone on a line above a paragraph.
func unwrapListParagraphs(root *html.Node) {
	var lis []*html.Node
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "li" {
			lis = append(lis, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	for _, li := range lis {
		c := li.FirstChild
		for c != nil && c.Type == html.TextNode && strings.TrimSpace(c.Data) == "" {
			c = c.NextSibling
		}
		if c == nil || c.Type != html.ElementNode || c.Data != "p" {
			continue
		}
		for gc := c.FirstChild; gc != nil; gc = c.FirstChild {
			c.RemoveChild(gc)
			li.InsertBefore(gc, c)
		}
		li.RemoveChild(c)
	}
}
