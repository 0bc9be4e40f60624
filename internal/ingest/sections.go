package ingest

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/db"
)

// sectionBuilder turns a walk over an HTML tree into sections: a heading opens
// a section, and text up to the next heading is its body.
//
// Kinds share it: the Go spec uses it as it is; other kinds set levels,
// anchor, derive and link, open sections themselves (openSection), walk documents
// whose sections are nested elements (walkNested), or walk several pages
// into one builder.
type sectionBuilder struct {
	policy string
	// levels maps heading elements to section levels; default h2–h4.
	levels map[string]int
	// anchor finds a heading's own anchor; default headingAnchor.
	anchor func(*html.Node) string
	// derive makes an id from the title of a heading without an anchor;
	// default idFromTitle.
	derive func(title string) string
	// link is the citation URL for an anchor on the page being walked
	// ("" when the heading has none); set it again for each page.
	link func(anchor string) string
	// blocks adds a kind's own block elements to blockBreak (ecmarkup's
	// <emu-note>; h2 when headings do not open sections).
	blocks map[string]string
	// render, when set, turns the elements it recognises into text itself,
	// kept as a block with its line breaks: ecmarkup's algorithm steps
	// keep their numbers, which the generic list walk would lose.
	render   func(*html.Node) (string, bool)
	sections []db.Section
	// bodies holds the text of each section not yet sealed; a byte slice,
	// not a strings.Builder, so the trailing blanks before a paragraph
	// break are cut in place instead of copying the whole body.
	bodies [][]byte
	sealed int // sections[:sealed] have their Text; their bodies are released
	// spare holds the emptied bodies of sealed sections, for sections still
	// to open: a body grows as its text comes, and growing a new one for
	// each section was 15 % of what reading a big Markdown document
	// allocated (BenchmarkReadMarkdownFolder).
	spare   [][]byte
	anchors []string // per section: its own id when the source had one
	open    []int    // indexes of the enclosing headings, outermost first
	cur     int      // index of the section text goes to; walkNested moves it back to a parent
	ids     map[string]bool
	pending string // a paragraph or line break owed before the next text
	bullet  bool   // a list item's "- " was written and no text yet

	// In-links: page is the rel path of the page being walked ("" for a
	// single page; set it with link), owner maps "page#id" of every element
	// id met inside a section to that section, and links are the <a href>s
	// met, resolved at finish into the anchors field of their targets.
	page  string
	owner map[string]int
	links []inLink

	// texts, when set, takes each sealed section's text and may keep it
	// in a file instead of the section (textspill.go).
	texts *textSpill
	// placeholderIDs says the anchors given to openSection are stand-ins,
	// unique by construction, that the reader replaces once the document is
	// read (markdownDoc.finish): they are neither recorded as taken nor
	// claimed for links, which for a million sections were two maps of a
	// million entries nothing read.
	placeholderIDs bool
}

// inLink is one link met in the text of section from.
type inLink struct {
	from       int
	page, href string
	text       string
}

func newSectionBuilder(baseURL, policy string) *sectionBuilder {
	return &sectionBuilder{
		policy: policy,
		levels: headingLevel,
		anchor: headingAnchor,
		derive: idFromTitle,
		link:   func(anchor string) string { return withAnchor(baseURL, anchor) },
		ids:    map[string]bool{},
		owner:  map[string]int{},
	}
}

func withAnchor(u, anchor string) string {
	if anchor == "" {
		return u
	}
	return u + "#" + anchor
}

var headingLevel = map[string]int{"h2": 2, "h3": 3, "h4": 4}

// blockBreak is the break a block element puts between its text and the text
// around it.
var blockBreak = map[string]string{
	"p": "\n\n", "div": "\n\n", "pre": "\n\n", "ul": "\n\n", "ol": "\n\n", "table": "\n\n",
	"blockquote": "\n\n", "dl": "\n\n", "h1": "\n\n", "h5": "\n\n", "h6": "\n\n",
	"li": "\n", "tr": "\n", "dt": "\n", "dd": "\n",
}

// skipped elements hold no specification text: page chrome on go.dev.
var skipped = map[string]bool{"head": true, "script": true, "style": true, "nav": true, "header": true, "footer": true}

func (b *sectionBuilder) walk(n *html.Node, inPre bool) {
	switch n.Type {
	case html.TextNode:
		b.text(n.Data, inPre)
		return
	case html.ElementNode:
		if skipped[n.Data] {
			return
		}
		if lvl, ok := b.levels[n.Data]; ok {
			b.heading(n, lvl)
			b.own(attr(n, "id"))
			return
		}
		if len(b.sections) > 0 {
			b.own(attr(n, "id"))
			if n.Data == "a" {
				b.own(attr(n, "name"))
				if href := attr(n, "href"); href != "" {
					b.links = append(b.links, inLink{from: b.cur, page: b.page, href: href,
						text: strings.TrimSpace(collapseSpace(goquery.NewDocumentFromNode(n).Text()))})
				}
			}
		}
		if b.render != nil {
			if s, ok := b.render(n); ok {
				b.breakBefore("\n\n")
				b.text(s, true)
				b.breakBefore("\n\n")
				return
			}
		}
		if n.Data == "br" {
			b.breakBefore("\n")
			return
		}
		brk, ok := blockBreak[n.Data]
		if !ok {
			brk, ok = b.blocks[n.Data]
		}
		if ok {
			b.breakBefore(brk)
			if n.Data == "li" {
				b.bullet = false
				b.text("- ", true)
				// A paragraph that opens the item (the JLS wraps every item
				// in <p>) goes on the bullet's line, not below it.
				b.bullet = true
				defer func() { b.bullet = false }()
			}
			defer b.breakBefore(brk)
		}
		inPre = inPre || n.Data == "pre"
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.walk(c, inPre)
	}
}

// breakBefore owes brk before the next text unless a bigger break is owed
// already: more line breaks win, and a tab (between table cells, for kinds
// that set one in blocks) wins only over nothing.
func (b *sectionBuilder) breakBefore(brk string) {
	if b.pending == "" || strings.Count(brk, "\n") > strings.Count(b.pending, "\n") {
		b.pending = brk
	}
}

func (b *sectionBuilder) text(s string, inPre bool) {
	if len(b.sections) == 0 {
		return // text before the first heading is page chrome, not spec
	}
	body := &b.bodies[b.cur]
	if !inPre {
		s = collapseSpace(s)
		if len(*body) == 0 || b.pending != "" || (*body)[len(*body)-1] == ' ' {
			s = strings.TrimLeft(s, " ")
		}
	}
	if s == "" {
		return
	}
	if b.bullet {
		b.pending = ""
		b.bullet = false
	}
	if b.pending != "" && len(*body) > 0 {
		*body = append(bytes.TrimRight(*body, " \t"), b.pending...)
	}
	b.pending = ""
	*body = append(*body, s...)
}

// collapseSpace turns every run of white space in s into one space.
func collapseSpace(s string) string {
	if !needsCollapse(s) {
		return s
	}
	var out strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			out.WriteByte(' ')
			space = false
		}
		out.WriteRune(r)
	}
	if space {
		out.WriteByte(' ')
	}
	return out.String()
}

// needsCollapse reports whether collapseSpace would change s: most text
// nodes are ASCII words with single spaces, and returning them as they are
// saves an allocation per node.
func needsCollapse(s string) bool {
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\v', c == '\f', c == '\r':
			// Non-ASCII may be Unicode space (U+00A0, U+2003…) or
			// invalid UTF-8, which the rune loop turns into U+FFFD.
			return true
		case c == ' ':
			if prevSpace {
				return true
			}
			prevSpace = true
		default:
			prevSpace = false
		}
	}
	return false
}

func (b *sectionBuilder) heading(n *html.Node, level int) {
	title := strings.TrimSpace(collapseSpace(goquery.NewDocumentFromNode(n).Text()))
	b.openSection(level, title, b.anchor(n))
}

// openSection starts a section at level with title; anchor is the source's
// own id for it, "" when it has none (an id is then made from the title).
// The section's text is what the walk meets until the next section opens.
func (b *sectionBuilder) openSection(level int, title, anchor string) {
	for len(b.open) > 0 && b.sections[b.open[len(b.open)-1]].Level >= level {
		b.open = b.open[:len(b.open)-1]
	}
	id := anchor
	if !b.placeholderIDs {
		if id == "" || b.ids[id] {
			id = b.uniqueID(b.derive(title))
		}
		b.ids[id] = true
	}
	defer func() {
		if !b.placeholderIDs {
			b.own(anchor)
		}
		// A link to the page itself, without a fragment, points at its
		// first section.
		if _, ok := b.owner[b.page+"#"]; !ok {
			b.owner[b.page+"#"] = b.cur
		}
	}()
	s := db.Section{SectionID: id, Level: level, Title: title, Path: title, SourcePolicy: b.policy}
	// Headings without an anchor of their own link to the nearest enclosing
	// one, which is where a browser can actually scroll to.
	link := anchor
	if len(b.open) > 0 {
		parent := b.open[len(b.open)-1]
		s.ParentID = b.sections[parent].SectionID
		s.Path = b.sections[parent].Path + " > " + title
		if link == "" {
			link = b.anchors[parent]
		}
	}
	s.URL = b.link(link)
	b.sections = append(b.sections, s)
	var body []byte
	if n := len(b.spare); n > 0 {
		body, b.spare = b.spare[n-1], b.spare[:n-1]
	}
	b.bodies = append(b.bodies, body)
	b.anchors = append(b.anchors, link)
	b.open = append(b.open, len(b.sections)-1)
	b.cur = len(b.sections) - 1
	b.pending = ""
}

// headingAnchor is the heading's id, or the name or id of an <a> inside it
// (the JLS puts its anchors there).
func headingAnchor(n *html.Node) string {
	if id := attr(n, "id"); id != "" {
		return id
	}
	var found string
	goquery.NewDocumentFromNode(n).Find("a[name], a[id]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		found = s.AttrOr("name", s.AttrOr("id", ""))
		return found == ""
	})
	return found
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return strings.TrimSpace(a.Val)
		}
	}
	return ""
}

// idFromTitle follows the spec's own convention: "Full slice expressions"
// becomes "Full_slice_expressions".
func idFromTitle(title string) string {
	var b strings.Builder
	for _, r := range title {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-':
			b.WriteRune(r)
		case unicode.IsSpace(r) || r == '_':
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	id := strings.TrimRight(b.String(), "_")
	if id == "" {
		id = "section"
	}
	return id
}

func (b *sectionBuilder) uniqueID(id string) string {
	if !b.ids[id] {
		return id
	}
	for i := 2; ; i++ {
		if c := id + "_" + strconv.Itoa(i); !b.ids[c] {
			return c
		}
	}
}

// own records that the element id on the page being walked is in the
// current section, so links to it count for that section. The first owner
// of an id keeps it, as a browser scrolls to the first element with an id.
func (b *sectionBuilder) own(id string) {
	if id == "" || len(b.sections) == 0 {
		return
	}
	key := b.page + "#" + id
	if _, ok := b.owner[key]; !ok {
		b.owner[key] = b.cur
	}
}

// maxAnchorTexts bounds the distinct link texts kept per section: the Go
// spec links "type" hundreds of times, and a few dozen wordings already say
// what others call a section.
const maxAnchorTexts = 48

// seal gives every section opened so far its final Text and releases its
// body. The caller promises that no more text goes to them, and that no
// section opens under them: a reader of several pages seals each page's
// sections before the next page opens its own at the top level, so the raw
// bodies of the whole document are never held at once, and with b.texts
// their paths and texts go to its file.
func (b *sectionBuilder) seal() {
	for i := b.sealed; i < len(b.sections); i++ {
		text := tidy(b.bodies[i])
		if b.texts != nil {
			b.sections[i].Path, text = b.texts.keep(b.sections[i].Path, text)
		}
		b.sections[i].Text = text
		if body := b.bodies[i]; cap(body) <= maxSpareBody {
			b.spare = append(b.spare, body[:0])
		}
		b.bodies[i] = nil
	}
	b.sealed = len(b.sections)
}

// maxSpareBody is the largest body kept for another section (spare): one
// section's huge body is not held for the rest of the document. The spare
// bodies never take more than the bodies of the sections just sealed took
// before the seal, one page's at most.
const maxSpareBody = 64 << 10

// finish returns the sections with their texts and in-link anchors; it is
// the builder's last call.
func (b *sectionBuilder) finish() []db.Section {
	b.seal()
	out := b.sections
	b.sections, b.bodies, b.spare = nil, nil, nil
	// kept counts the texts each section's Anchors holds; a new text is
	// compared with those, not looked up in a map per section linked to,
	// which at a million sections were made while the heap was fullest.
	kept := make([]uint8, len(out))
	for _, l := range b.links {
		target, ok := b.linkTarget(l)
		if !ok || target == l.from || l.text == "" {
			continue
		}
		if kept[target] >= maxAnchorTexts || holdsLinkText(out[target].Anchors, l.text) {
			continue
		}
		kept[target]++
		if out[target].Anchors != "" {
			out[target].Anchors += "\n"
		}
		out[target].Anchors += l.text
	}
	return out
}

// holdsLinkText reports whether anchors, link texts one per line, holds
// text in other letter case.
func holdsLinkText(anchors, text string) bool {
	if anchors == "" {
		return false
	}
	key := strings.ToLower(text)
	for line := range strings.SplitSeq(anchors, "\n") {
		// Equal in lower case implies equal under folding: the cheap test
		// first.
		if strings.EqualFold(line, text) && strings.ToLower(line) == key {
			return true
		}
	}
	return false
}

// linkTarget is the section a link points to, when it points into the
// document at an id the walk met.
func (b *sectionBuilder) linkTarget(l inLink) (int, bool) {
	ref, frag, _ := strings.Cut(l.href, "#")
	if ref == "" && frag == "" {
		return 0, false
	}
	page := l.page
	if ref != "" {
		rel, ok := resolveRel(l.page, ref)
		if !ok {
			return 0, false
		}
		page = rel
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	t, ok := b.owner[page+"#"+frag]
	return t, ok
}

// tidy trims trailing blanks from lines and keeps at most one empty line in a
// row, so stored text reads well and counts honestly. It works in place:
// body is overwritten, and is garbage afterwards.
//
// It replaces, left to right, each run of blanks followed by a line break
// with the line break, and each run of three or more line breaks with two:
// what the regexp `[ \t]+\n|\n{3,}` did, which took a third of the time of
// reading a large Markdown document. As with the regexp, blanks before a
// run of line breaks absorb its first one, so " \n\n\n" becomes "\n\n\n".
func tidy(body []byte) string {
	// Every replacement is shorter than what it replaces, so the output
	// (body[:w]) never overtakes the input (body[i:]).
	w := 0
	for i := 0; i < len(body); {
		j := i + 1
		switch body[i] {
		case ' ', '\t':
			for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
				j++
			}
			if j < len(body) && body[j] == '\n' {
				body[w] = '\n'
				w++
				i = j + 1
				continue
			}
		case '\n':
			for j < len(body) && body[j] == '\n' {
				j++
			}
			if j-i >= 3 {
				w += copy(body[w:], "\n\n")
				i = j
				continue
			}
		default:
			for j < len(body) && body[j] != ' ' && body[j] != '\t' && body[j] != '\n' {
				j++
			}
		}
		w += copy(body[w:], body[i:j])
		i = j
	}
	return string(bytes.TrimSpace(body[:w]))
}
