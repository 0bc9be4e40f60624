package ingest

import (
	"strings"

	"golang.org/x/net/html"
)

// sectionElement is an element that is a section in itself, rather than a
// heading that the following text belongs to: the JLS's <div class="section">,
// ECMAScript's <emu-clause>. Such documents say how sections nest by how
// elements nest, which heading tags do not: the JLS puts chapter titles and
// first-level section titles both in <h2> in some editions, and every
// ECMAScript clause title is an <h1>.
type sectionElement struct {
	// title is the element's child that holds the title (a heading, or the
	// JLS's div.titlepage around one); it is left out of the text. May be nil.
	title   *html.Node
	heading string // the title as shown, never ""
	anchor  string // the source's own id; "" makes one from the heading
}

// walkNested adds to b the sections that match finds under root. A section's
// level is its depth among section elements (1 at the top); its text is what
// it holds outside its subsections, so text after a subsection goes back to
// the enclosing section. Text outside every section element is page chrome
// and is dropped.
func (b *sectionBuilder) walkNested(root *html.Node, match func(*html.Node) (sectionElement, bool)) {
	found := map[*html.Node]sectionElement{}
	holds := map[*html.Node]bool{} // elements with a section element inside
	var mark func(n *html.Node)
	mark = func(n *html.Node) {
		if s, ok := match(n); ok {
			found[n] = s
			for p := n.Parent; p != nil && !holds[p]; p = p.Parent {
				holds[p] = true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			mark(c)
		}
	}
	mark(root)

	var visit func(n *html.Node, depth int)
	visit = func(n *html.Node, depth int) {
		if s, ok := found[n]; ok {
			b.openSection(depth+1, s.heading, s.anchor)
			own := b.cur
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c == s.title {
					continue
				}
				visit(c, depth+1)
				if b.cur != own {
					b.cur = own
					b.pending = "\n\n"
				}
			}
			return
		}
		switch {
		case holds[n]:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				visit(c, depth)
			}
		case depth > 0:
			b.walk(n, false)
		}
	}
	visit(root, 0)
}

// nodeText is n's text with runs of white space made one space and trimmed.
// alt, when set, replaces the text of the elements it recognises
// ("" leaves an element out).
func nodeText(n *html.Node, alt func(*html.Node) (string, bool)) string {
	var sb strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			sb.WriteString(n.Data)
			return
		case html.ElementNode:
			if skipped[n.Data] {
				return
			}
			if alt != nil {
				if s, ok := alt(n); ok {
					sb.WriteString(s)
					return
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(n)
	return strings.TrimSpace(collapseSpace(sb.String()))
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}

func isElement(n *html.Node, tags ...string) bool {
	if n == nil || n.Type != html.ElementNode {
		return false
	}
	for _, t := range tags {
		if n.Data == t {
			return true
		}
	}
	return false
}
