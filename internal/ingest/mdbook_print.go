package ingest

// This file reads an mdBook's print.html: the whole book in one page,
// cut back into its chapters.

import (
	"context"
	"path"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

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
