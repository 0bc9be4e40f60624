package ingest

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// goldmarkTree builds, from the HTML goldmark renders for a page without raw
// HTML, the tree html.Parse builds from it, node for node, or reports false
// when it cannot be sure it would.
//
// Why: html.Parse runs the whole HTML5 tree construction, insertion modes
// and formatting-element bookkeeping, behind a tokenizer that reads a byte
// at a time, to repair markup that goldmark's own output never needs
// repaired: its elements are a known few, always closed in order. It was
// nearly a third of reading Markdown (BenchmarkReadMarkdownFolder). Here a
// scanner that knows the one form goldmark writes a tag in reads the HTML,
// text and attributes are unescaped by html.UnescapeString (the
// tokenizer's own rules), and a plain stack builds the tree. Everything
// html.Parse would treat differently from a stack is refused instead of
// imitated: an element goldmark does not write, a tag in another form, an
// end tag that does not close the current element, a block element opened
// inside a paragraph, a link inside a link, text or an element where a
// table allows neither, a character reference an attribute would decode
// otherwise, NUL. The caller then falls back to html.Parse, and
// TestGoldmarkTreeIsHTMLParse holds the two to the same trees over
// CommonMark's and GFM's examples.
func goldmarkTree(src []byte) (*html.Node, bool) {
	doc := &html.Node{Type: html.DocumentNode}
	root := newElement(atom.Html)
	doc.AppendChild(root)
	root.AppendChild(newElement(atom.Head))
	body := newElement(atom.Body)
	root.AppendChild(body)
	stack := []*html.Node{body}

	for i := 0; i < len(src); {
		cur := stack[len(stack)-1]
		if src[i] != '<' {
			j := bytes.IndexByte(src[i:], '<')
			if j < 0 {
				j = len(src) - i
			}
			text, ok := goldmarkText(src[i : i+j])
			if !ok || !textFits(cur, body, text) {
				return nil, false
			}
			if last := cur.LastChild; last != nil && last.Type == html.TextNode {
				last.Data += text
			} else {
				cur.AppendChild(&html.Node{Type: html.TextNode, Data: text})
			}
			i += j
			continue
		}
		t, n, ok := scanTag(src[i:])
		if !ok {
			return nil, false
		}
		i += n
		a := atom.Lookup(t.name)
		kind, known := goldmarkElements[a]
		if !known {
			return nil, false
		}
		if t.end {
			if len(stack) == 1 || a != cur.DataAtom || kind == voidElement {
				return nil, false
			}
			stack = stack[:len(stack)-1]
			continue
		}
		if !fitsIn(a, kind, stack) {
			return nil, false
		}
		e := newElement(a)
		e.Attr = t.attrs
		cur.AppendChild(e)
		if kind != voidElement {
			stack = append(stack, e)
		}
	}
	// goldmark closes every element it opens.
	return doc, len(stack) == 1
}

// textFits reports whether html.Parse would add text to cur as it is.
func textFits(cur, body *html.Node, text string) bool {
	switch {
	case cur == body && body.FirstChild == nil:
		return false // html.Parse drops leading blanks; goldmark writes none
	case tableParts[cur.DataAtom]:
		return strings.Trim(text, "\t\n\f\r ") == "" // other text is moved out of the table
	case cur.DataAtom == atom.Pre && cur.FirstChild == nil:
		return !strings.HasPrefix(text, "\n") // html.Parse drops a newline opening <pre>
	}
	return true
}

// goldmarkText is the text html's tokenizer makes of raw: line ends made
// "\n", character references replaced. NUL, which html.Parse drops from
// text, is refused.
func goldmarkText(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, 0) >= 0 {
		return "", false
	}
	s := string(raw)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return html.UnescapeString(s), true
}

// goldmarkTag is one tag as goldmark writes it.
type goldmarkTag struct {
	name  []byte
	end   bool
	attrs []html.Attribute
}

// scanTag reads the tag src starts with, in the only form goldmark writes
// one: lower-case names, attribute values in double quotes, "/>" only
// after a void element's attributes. It returns the tag and its length, or
// false for anything else, which html's tokenizer might read otherwise.
func scanTag(src []byte) (goldmarkTag, int, bool) {
	var t goldmarkTag
	i := 1
	if i < len(src) && src[i] == '/' {
		t.end = true
		i++
	}
	name, i := scanName(src, i)
	if len(name) == 0 {
		return t, 0, false
	}
	t.name = name
	for {
		if i >= len(src) {
			return t, 0, false
		}
		switch {
		case src[i] == '>':
			return t, i + 1, true
		case !t.end && src[i] == '/' && i+1 < len(src) && src[i+1] == '>':
			return t, i + 2, true
		case t.end || src[i] != ' ':
			return t, 0, false
		}
		i++
		if src[i-1] == ' ' && i < len(src) && (src[i] == '/' || src[i] == '>') {
			continue // "<br />"
		}
		var key []byte
		if key, i = scanName(src, i); len(key) == 0 {
			return t, 0, false
		}
		val := ""
		if i < len(src) && src[i] == '=' {
			if i+1 >= len(src) || src[i+1] != '"' {
				return t, 0, false
			}
			j := bytes.IndexByte(src[i+2:], '"')
			if j < 0 {
				return t, 0, false
			}
			raw := src[i+2 : i+2+j]
			i += j + 3
			var ok bool
			if val, ok = goldmarkAttr(raw); !ok {
				return t, 0, false
			}
		}
		t.attrs = append(t.attrs, html.Attribute{Key: string(key), Val: val})
	}
}

// scanName reads a lower-case tag or attribute name at src[i:].
func scanName(src []byte, i int) ([]byte, int) {
	j := i
	for j < len(src) && (src[j] >= 'a' && src[j] <= 'z' || j > i && (src[j] >= '0' && src[j] <= '9' || src[j] == '-')) {
		j++
	}
	return src[i:j], j
}

// goldmarkAttr unescapes an attribute value as html's tokenizer does. An
// attribute decodes character references unlike text (no reference
// without its ";"), so only the references goldmark's escaping writes are
// taken; a value with any other is refused.
func goldmarkAttr(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, 0) >= 0 || bytes.IndexByte(raw, '\r') >= 0 {
		return "", false
	}
	for rest := raw; ; {
		amp := bytes.IndexByte(rest, '&')
		if amp < 0 {
			break
		}
		rest = rest[amp:]
		ok := false
		for _, ref := range []string{"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"} {
			if bytes.HasPrefix(rest, []byte(ref)) {
				ok = true
				break
			}
		}
		if !ok {
			return "", false
		}
		rest = rest[1:]
	}
	return html.UnescapeString(string(raw)), true
}

func newElement(a atom.Atom) *html.Node {
	return &html.Node{Type: html.ElementNode, DataAtom: a, Data: a.String()}
}

// The elements goldmark's HTML renderer and its GFM extensions write, by
// how html.Parse places them.
type elementKind int

const (
	inlineElement elementKind = iota // goes wherever text goes
	blockElement                     // closes an open <p> in html.Parse
	voidElement                      // no content, no end tag
	listItem                         // only in <ul> or <ol>
	tableSection                     // <thead>, <tbody>: only in <table>
	tableRow                         // only in <thead> or <tbody>
	tableCell                        // only in <tr>
)

var goldmarkElements = map[atom.Atom]elementKind{
	atom.P: blockElement, atom.H1: blockElement, atom.H2: blockElement, atom.H3: blockElement,
	atom.H4: blockElement, atom.H5: blockElement, atom.H6: blockElement,
	atom.Ul: blockElement, atom.Ol: blockElement, atom.Blockquote: blockElement,
	atom.Pre: blockElement, atom.Table: blockElement, atom.Hr: voidElement,
	atom.Li: listItem, atom.Thead: tableSection, atom.Tbody: tableSection,
	atom.Tr: tableRow, atom.Th: tableCell, atom.Td: tableCell,
	atom.Em: inlineElement, atom.Strong: inlineElement, atom.Code: inlineElement,
	atom.A: inlineElement, atom.Del: inlineElement,
	atom.Br: voidElement, atom.Img: voidElement, atom.Input: voidElement,
}

// tableParts are the elements in which html.Parse moves text and most
// elements out of the table (foster parenting).
var tableParts = map[atom.Atom]bool{atom.Table: true, atom.Thead: true, atom.Tbody: true, atom.Tr: true}

// fitsIn reports whether html.Parse would put element a, of kind, inside
// the current element of stack as it is, without closing or opening any
// other.
func fitsIn(a atom.Atom, kind elementKind, stack []*html.Node) bool {
	cur := stack[len(stack)-1].DataAtom
	switch kind {
	case listItem:
		return cur == atom.Ul || cur == atom.Ol
	case tableSection:
		return cur == atom.Table
	case tableRow:
		return cur == atom.Thead || cur == atom.Tbody
	case tableCell:
		return cur == atom.Tr
	}
	if tableParts[cur] {
		return false
	}
	// Inside a heading html.Parse closes the heading at another heading;
	// inside a <pre>, <code> is all goldmark writes.
	if headingTags[cur.String()] && headingTags[a.String()] {
		return false
	}
	for i := len(stack) - 1; i > 0; i-- {
		switch stack[i].DataAtom {
		case atom.P:
			// A block (or <hr>) closes the paragraph; <br>, <img>,
			// <input> do not.
			if kind == blockElement || a == atom.Hr {
				return false
			}
		case atom.A:
			if a == atom.A {
				return false // html.Parse closes the outer link first
			}
		case atom.Td, atom.Th:
			// A cell is a scope: a paragraph or a link outside the
			// table does not reach into it.
			return true
		}
	}
	return true
}
