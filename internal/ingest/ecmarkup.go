package ingest

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
)

// ecmarkupChrome is what ecmarkup's output holds besides the specification:
// the side menu with its search box, pins and table of contents, the menu
// button, the keyboard-shortcut help, and a source document's biblio
// imports should one survive.
const ecmarkupChrome = "#menu, #menu-toggle, #menu-spacer, #shortcuts-help, #toc, emu-biblio"

// ecmarkupBlocks are the block elements of ecmarkup's output that the generic
// walk does not know. Table cells are separated by tabs: its rows are lines
// already, and "cell cell" would run two cells together.
var ecmarkupBlocks = map[string]string{
	"emu-note": "\n\n", "emu-example": "\n\n", "emu-grammar": "\n\n", "emu-table": "\n\n",
	"emu-figure": "\n\n", "figure": "\n\n", "figcaption": "\n",
	"h2": "\n\n", "h3": "\n\n", "h4": "\n\n",
	"td": "\t", "th": "\t",
}

// readEcmarkup reads a specification built by ecmarkup (ECMA-262 and the
// other TC39 documents): one page whose sections are nested <emu-clause>,
// <emu-annex> and <emu-intro> elements, each with an id and an <h1> that
// starts with the clause number (<span class="secnum">7.1.2</span>).
//
// A section's id is its clause's id, its level the clause's depth, its title
// the number and the heading ("7.1.4 ToNumber ( argument )"), and its text
// the clause's content outside its subclauses, with algorithm steps numbered
// as the specification numbers them (1., a., i.) and grammar productions one
// right-hand side a line. Errors: the page's own read error; ctx.Err() when
// ctx ends; apperr.InvalidArgument when the page holds no clause.
func readEcmarkup(ctx context.Context, src SourceSpec, r PageReader) (Document, error) {
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	page, err := r.Read(ctx, src.Entry)
	if err != nil {
		return Document{}, fmt.Errorf("read %s: %w", src.Entry, err)
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page.Body))
	if err != nil {
		return Document{}, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s as HTML", page.Location)
	}
	version := ecmarkupVersion(
		collapseSpace(doc.Find("h1.version").First().Text()),
		collapseSpace(firstNonEmpty(doc.Find("h1.title").First().Text(), doc.Find("title").First().Text())))
	removeChrome(doc, ecmarkupChrome, src.Skip)

	b := newSectionBuilder("", src.SourcePolicy)
	// Every clause title is an <h1>, whatever its depth, so headings open no
	// section: the clause elements do (walkNested). An <h2> inside a clause
	// ("Syntax") is a block of its text.
	b.levels = map[string]int{}
	b.blocks = ecmarkupBlocks
	b.render = renderEcmarkup
	// Every clause is on the single-page edition, so clauses cite it even when
	// read from a page of the multipage one.
	b.link = func(anchor string) string { return canonical(src, "", anchor) }
	for _, n := range doc.Nodes {
		b.walkNested(n, ecmarkupClause)
	}
	sections := b.finish()
	if len(sections) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "pass a specification built by ecmarkup, such as https://tc39.es/ecma262/",
			"no <emu-clause> with an <h1> in %s", page.Location)
	}
	return Document{Version: version, Sections: sections}, nil
}

// firstNonEmpty returns the first string that is not blank.
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// ecmarkupClause recognises a clause, annex or introduction by its <h1>.
func ecmarkupClause(n *html.Node) (sectionElement, bool) {
	if !isElement(n, "emu-clause", "emu-annex", "emu-intro") {
		return sectionElement{}, false
	}
	var h *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if isElement(c, "h1") {
			h = c
			break
		}
	}
	if h == nil {
		return sectionElement{}, false
	}
	var secnum string
	name := nodeText(h, func(e *html.Node) (string, bool) {
		if isElement(e, "span") && hasClass(e, "secnum") {
			secnum = nodeText(e, nil)
			return " ", true
		}
		return "", false
	})
	heading := strings.TrimSpace(secnum + " " + name)
	if heading == "" {
		return sectionElement{}, false
	}
	return sectionElement{title: h, heading: heading, anchor: attr(n, "id")}, true
}

// renderEcmarkup writes algorithms and grammar productions as the
// specification's readers cite them: steps by their numbers, productions one
// alternative a line.
func renderEcmarkup(n *html.Node) (string, bool) {
	switch {
	case isElement(n, "emu-alg"):
		var sb strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if isElement(c, "ol") {
				writeSteps(&sb, c, 0)
			}
		}
		return strings.TrimRight(sb.String(), "\n"), true
	case isElement(n, "emu-production"):
		return productionText(n), true
	}
	return "", false
}

// writeSteps writes the steps of ol, depth lists deep, numbered as ecmarkup's
// style sheet shows them: 1., a., i., then again 1. and so on.
func writeSteps(sb *strings.Builder, ol *html.Node, depth int) {
	i := 0
	for li := ol.FirstChild; li != nil; li = li.NextSibling {
		if !isElement(li, "li") {
			continue
		}
		i++
		line := nodeText(li, grammarText(func(e *html.Node) bool { return isElement(e, "ol") }))
		sb.WriteString(strings.Repeat("  ", depth))
		sb.WriteString(stepNumber(i, depth))
		sb.WriteString(". ")
		sb.WriteString(line)
		sb.WriteByte('\n')
		for c := li.FirstChild; c != nil; c = c.NextSibling {
			if isElement(c, "ol") {
				writeSteps(sb, c, depth+1)
			}
		}
	}
}

// stepNumber is the marker of step i (from 1) in a list depth lists deep.
func stepNumber(i, depth int) string {
	switch depth % 3 {
	case 1:
		return alphaNumber(i)
	case 2:
		return romanNumber(i)
	}
	return strconv.Itoa(i)
}

// alphaNumber counts as CSS lower-alpha does: a…z, aa, ab…
func alphaNumber(i int) string {
	var s []byte
	for ; i > 0; i = (i - 1) / 26 {
		s = append([]byte{byte('a' + (i-1)%26)}, s...)
	}
	return string(s)
}

// romanNumber counts as CSS lower-roman does.
func romanNumber(i int) string {
	if i <= 0 || i >= 4000 {
		return strconv.Itoa(i)
	}
	values := []int{1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1}
	numerals := []string{"m", "cm", "d", "cd", "c", "xc", "l", "xl", "x", "ix", "v", "iv", "i"}
	var sb strings.Builder
	for k, v := range values {
		for ; i >= v; i -= v {
			sb.WriteString(numerals[k])
		}
	}
	return sb.String()
}

// productionText writes "Lhs :: rhs" for a production shown on one line
// (ecmarkup's collapsed), else the left-hand side and each alternative
// indented on a line of its own, as the specification lays them out.
func productionText(p *html.Node) string {
	var lhs strings.Builder
	var alts []string
	for c := p.FirstChild; c != nil; c = c.NextSibling {
		if isElement(c, "emu-rhs") {
			alts = append(alts, nodeText(c, grammarText(nil)))
			continue
		}
		lhs.WriteString(" ")
		lhs.WriteString(nodeText(c, grammarText(nil)))
	}
	head := strings.TrimSpace(collapseSpace(lhs.String()))
	if len(alts) == 1 && hasAttr(p, "collapsed") {
		return head + " " + alts[0]
	}
	return head + "\n  " + strings.Join(alts, "\n  ")
}

// grammarText shows grammar symbols as the specification's source writes
// them: an optional symbol as "Symbol?" (ecmarkup renders a subscript
// "opt", which would otherwise read "Symbolopt"). leave, when set, drops
// the elements it recognises.
func grammarText(leave func(*html.Node) bool) func(*html.Node) (string, bool) {
	return func(e *html.Node) (string, bool) {
		switch {
		case leave != nil && leave(e):
			return "", true
		case isElement(e, "emu-opt"):
			return "?", true
		}
		return "", false
	}
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

var (
	// ecmaDraftDateRE finds the date of a draft: "Draft ECMA-262 / November 20, 2026".
	ecmaDraftDateRE = regexp.MustCompile(`\b(January|February|March|April|May|June|July|August|September|October|November|December) (\d{1,2}), (\d{4})\b`)
	// ecmaTitleYearRE finds the edition's year in "ECMAScript® 2025 Language Specification".
	ecmaTitleYearRE = regexp.MustCompile(`\bECMAScript\S*\s+(\d{4})\b`)
	// ecmaEditionRE finds "ECMA-262, 16th edition / June 2025".
	ecmaEditionRE = regexp.MustCompile(`(?i)\b(\d+)(?:st|nd|rd|th)\s+edition\b`)
)

// ecmarkupVersion names the version that the version line (the text of
// <h1 class="version">) and the title state.
//
// The choice: a draft is "draft-YYYY-MM-DD", the date on its version line,
// because the living draft at tc39.es changes with every merged pull request
// and its title already names the next, unpublished edition ("ECMAScript®
// 2027" in a 2026 draft), so a draft must never pass for that edition. A
// published edition is "es" and its year ("es2025"): the name people use,
// read from the title, else from the edition number (the 6th edition was
// ES2015, one a year since). A draft without a date, and a document that
// states neither, get "" (the caller then labels it by fetch date).
func ecmarkupVersion(versionLine, title string) string {
	if strings.Contains(strings.ToLower(versionLine), "draft") {
		if m := ecmaDraftDateRE.FindString(versionLine); m != "" {
			if d, err := time.Parse("January 2, 2006", m); err == nil {
				return "draft-" + d.Format("2006-01-02")
			}
		}
		return ""
	}
	if m := ecmaTitleYearRE.FindStringSubmatch(title); m != nil {
		return "es" + m[1]
	}
	if m := ecmaEditionRE.FindStringSubmatch(versionLine); m != nil {
		n, err := strconv.Atoi(m[1])
		switch {
		case err != nil:
		case n >= 6:
			return "es" + strconv.Itoa(2009+n)
		default:
			return "es" + m[1]
		}
	}
	return ""
}
