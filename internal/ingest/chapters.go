package ingest

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
)

// jlsChrome is what DocBook puts around a chapter's text on every page: the
// Prev/Next bars, their rules, and the chapter's own table of contents, which
// would repeat every section title in the chapter's first section.
const jlsChrome = "div.navheader, div.navfooter, hr, div.toc"

// jlsEditionRE finds the edition on the index page's title page
// ("Java SE 21 Edition").
var jlsEditionRE = regexp.MustCompile(`\bJava SE (\d+(?:\.\d+)?) Edition\b`)

// readHTMLChapters reads an index page and the chapter pages it links to, as
// DocBook renders the Java Language Specification: each chapter is a
// div.chapter holding nested div.section elements, and each title carries
// its anchor as <a name="jls-4.1"> inside the heading. Section ids are those
// anchors, so citations keep working against docs.oracle.com.
//
// Chapters are the links on the index whose href (without its #fragment)
// matches src.ChapterPattern, in index order, each read once. A chapter that
// cannot be read is reported in Document.Failed and the others are still
// parsed. Errors: apperr.InvalidArgument for a missing or bad
// chapter_pattern or an index that links to no chapter; the index page's own
// read error; ctx.Err() when ctx ends.
func readHTMLChapters(ctx context.Context, src SourceSpec, r PageReader) (Document, error) {
	if src.ChapterPattern == "" {
		return Document{}, apperr.New(apperr.InvalidArgument, `set chapter_pattern, e.g. "^jls-\\d+\\.html$"`,
			"%s %s: kind %s needs a chapter_pattern", src.Language, src.Doc, KindHTMLChapters)
	}
	pattern, err := regexp.Compile(src.ChapterPattern)
	if err != nil {
		return Document{}, apperr.Wrap(err, apperr.InvalidArgument, "fix chapter_pattern (Go regular expression syntax)",
			"%s %s: bad chapter_pattern %q", src.Language, src.Doc, src.ChapterPattern)
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	entry, err := r.Read(ctx, src.Entry)
	if err != nil {
		return Document{}, fmt.Errorf("read index %s: %w", src.Entry, err)
	}
	index, err := goquery.NewDocumentFromReader(bytes.NewReader(entry.Body))
	if err != nil {
		return Document{}, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s as HTML", entry.Location)
	}
	entryRel := entry.Rel
	if entryRel == "" {
		entryRel, _, _ = strings.Cut(src.Entry, "#")
	}
	chapters := chapterLinks(index, entryRel, pattern)
	if len(chapters) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "check chapter_pattern against the links on the index page",
			"no link on %s matches chapter_pattern %q", entry.Location, src.ChapterPattern)
	}

	doc := Document{Version: jlsVersion(index)}
	b := newSectionBuilder("", src.SourcePolicy)
	// Levels come from how div.section elements nest, not from heading tags,
	// so no heading opens a section by itself; one outside a title page is a
	// block of text.
	b.levels = map[string]int{}
	b.blocks = map[string]string{"h2": "\n\n", "h3": "\n\n", "h4": "\n\n", "td": "\t", "th": "\t"}
	b.render = renderJLSProduction
	for _, rel := range chapters {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		page, err := r.Read(ctx, rel)
		if err != nil {
			if ctx.Err() != nil {
				return Document{}, ctx.Err() // a cancelled read is not a missing chapter
			}
			doc.Failed = append(doc.Failed, PageFailure{Rel: rel, Err: err})
			continue
		}
		chapter, err := goquery.NewDocumentFromReader(bytes.NewReader(page.Body))
		if err != nil {
			doc.Failed = append(doc.Failed, PageFailure{Rel: rel,
				Err: apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s as HTML", page.Location)})
			continue
		}
		removeChrome(chapter, jlsChrome, src.Skip)
		b.link = func(anchor string) string { return canonical(src, rel, anchor) }
		b.page = rel
		for _, n := range chapter.Nodes {
			b.walkNested(n, jlsSection)
		}
	}
	doc.Sections = b.finish()
	return doc, nil
}

// chapterLinks lists the pages the index links to whose href, without its
// #fragment, matches pattern: relative to the document's folder, in index
// order, each once (the index links to a chapter and then to each of its
// sections).
func chapterLinks(index *goquery.Document, entryRel string, pattern *regexp.Regexp) []string {
	var rels []string
	seen := map[string]bool{}
	index.Find("a[href]").Each(func(_ int, a *goquery.Selection) {
		href := strings.TrimSpace(a.AttrOr("href", ""))
		target, _, _ := strings.Cut(href, "#")
		if !pattern.MatchString(target) {
			return
		}
		rel, ok := resolveRel(entryRel, href)
		if !ok || seen[rel] {
			return
		}
		seen[rel] = true
		rels = append(rels, rel)
	})
	return rels
}

// jlsSection recognises a DocBook chapter, appendix or section: a div whose
// title page holds a heading. Its anchor is the <a name> in the heading
// (headingAnchor), else the div's id, which newer DocBook stylesheets use.
func jlsSection(n *html.Node) (sectionElement, bool) {
	if !isElement(n, "div") || !(hasClass(n, "chapter") || hasClass(n, "section") || hasClass(n, "appendix")) {
		return sectionElement{}, false
	}
	var titlePage *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if isElement(c, "div") && hasClass(c, "titlepage") {
			titlePage = c
			break
		}
	}
	if titlePage == nil {
		return sectionElement{}, false
	}
	h := firstElement(titlePage, "h1", "h2", "h3", "h4", "h5", "h6")
	if h == nil {
		return sectionElement{}, false
	}
	heading := nodeText(h, nil)
	if heading == "" {
		return sectionElement{}, false
	}
	anchor := headingAnchor(h)
	if anchor == "" {
		anchor = attr(n, "id")
	}
	return sectionElement{title: titlePage, heading: heading, anchor: anchor}, true
}

// renderJLSProduction writes a grammar production (div.production, with
// div.lhs and div.rhs) as the JLS lays it out: the left-hand side, then each
// alternative (the rhs puts <br> between them) indented on a line of its own.
func renderJLSProduction(n *html.Node) (string, bool) {
	if !isElement(n, "div") || !hasClass(n, "production") {
		return "", false
	}
	var lhs string
	var alts []string
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch {
		case hasClass(c, "lhs"):
			lhs = nodeText(c, nil)
		case hasClass(c, "rhs"):
			// NUL cannot occur in parsed HTML text, so it marks the <br>s.
			rhs := nodeText(c, func(e *html.Node) (string, bool) { return "\x00", isElement(e, "br") })
			for _, alt := range strings.Split(rhs, "\x00") {
				if alt = strings.TrimSpace(alt); alt != "" {
					alts = append(alts, alt)
				}
			}
		}
	}
	if lhs == "" {
		return "", false
	}
	return strings.Join(append([]string{lhs}, alts...), "\n  "), true
}

// jlsVersion reads "Java SE 21 Edition" from the index page's title page or
// title as "se21"; "" when the page does not say.
func jlsVersion(index *goquery.Document) string {
	var version string
	index.Find("title, h1, h2, h3, .subtitle").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if m := jlsEditionRE.FindStringSubmatch(collapseSpace(s.Text())); m != nil {
			version = "se" + m[1]
		}
		return version == ""
	})
	return version
}

// removeChrome takes out of doc the elements that hold no document text: a
// kind's own list (selectors) and the source's Skip selectors. A Skip
// selector that does not parse matches nothing (goquery's Find), rather than
// failing the whole document.
func removeChrome(doc *goquery.Document, selectors string, skip []string) {
	doc.Find(selectors).Remove()
	for _, sel := range skip {
		doc.Find(sel).Remove()
	}
}

// firstElement is the first element under n, in document order, with one of
// tags; nil when there is none.
func firstElement(n *html.Node, tags ...string) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if isElement(c, tags...) {
			return c
		}
		if f := firstElement(c, tags...); f != nil {
			return f
		}
	}
	return nil
}
