package ingest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// readMarkdown reads a document written as Markdown files with front matter,
// such as the TypeScript handbook. src.Entry is either one .md file, which is
// then the whole document, or a manifest: a text file that lists the .md
// files in reading order, one path a line relative to the manifest's folder,
// with blank lines and lines starting with '#' ignored:
//
//	# TypeScript handbook, in the order of the site's navigation
//	handbook-v2/The Handbook.md
//	handbook-v2/Basics.md
//	handbook-v2/Type Manipulation/Generics.md
//
// A caller that can list folders itself calls readMarkdownFiles with that
// listing instead. Errors: the entry's read error; apperr.InvalidArgument for
// a missing entry or a bad manifest line; see readMarkdownFiles.
func readMarkdown(ctx context.Context, src SourceSpec, r PageReader) (Document, error) {
	// The source's own file list comes first; then, for a local folder
	// given without an entry, every .md file below it.
	if len(src.Files) > 0 {
		return readMarkdownFiles(ctx, src, r, src.Files)
	}
	if l, ok := r.(Lister); ok && strings.TrimSpace(src.Entry) == "" {
		rels, err := l.List(ctx, ".md")
		if err != nil {
			return Document{}, err
		}
		if len(rels) == 0 {
			return Document{}, apperr.New(apperr.InvalidArgument, "point --from at a folder of Markdown files", "no .md files found")
		}
		return readMarkdownFiles(ctx, src, r, rels)
	}
	if strings.TrimSpace(src.Entry) == "" {
		return Document{}, apperr.New(apperr.InvalidArgument,
			"set entry to a .md file or to a manifest listing the .md files",
			"%s %s: a markdown document needs an entry", src.Language, src.Doc)
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	if strings.EqualFold(path.Ext(src.Entry), ".md") {
		return readMarkdownFiles(ctx, src, r, []string{src.Entry})
	}
	m, err := r.Read(ctx, src.Entry)
	if err != nil {
		return Document{}, fmt.Errorf("read manifest %q: %w", src.Entry, err)
	}
	rels, err := parseMarkdownManifest(pageRel(m, src.Entry), m.Body)
	if err != nil {
		return Document{}, err
	}
	return readMarkdownFiles(ctx, src, r, rels)
}

// parseMarkdownManifest returns the .md paths a manifest lists, resolved
// against the manifest's own folder, each once, in order.
func parseMarkdownManifest(manifestRel string, body []byte) ([]string, error) {
	var rels []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// resolveRel parses a URL reference, so a name's spaces, '#' and '?'
		// must be escaped to survive it as a path.
		rel, ok := resolveRel(manifestRel, (&url.URL{Path: line}).EscapedPath())
		if !ok || !strings.EqualFold(path.Ext(rel), ".md") {
			return nil, apperr.New(apperr.InvalidArgument,
				"list .md files by paths relative to the manifest's folder, one a line",
				"%s line %d: %q is not a .md file inside the document's folder", manifestRel, n, line)
		}
		if !seen[rel] {
			seen[rel] = true
			rels = append(rels, rel)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot read manifest %s", manifestRel)
	}
	if len(rels) == 0 {
		return nil, apperr.New(apperr.InvalidArgument, "list the .md files, one a line",
			"manifest %s lists no .md files", manifestRel)
	}
	return rels, nil
}

// readMarkdownFiles reads the Markdown files at rels, in that order, as one
// document. The caller owns the listing: it must pass every file the document
// has, subfolders included, in reading order. (The reader this replaces
// listed one folder level itself and silently lost every page in a
// subfolder, such as the handbook's Type Manipulation chapters.)
//
// Each file is one top-level section, titled by its front matter's title,
// else by a leading "# heading", else by its file name; its headings nest
// below it. A file that cannot be read is reported in Document.Failed.
// Errors: apperr.InvalidArgument for an empty rels; when no file can be read,
// the read error of the only file, or apperr.Unavailable for several.
//
// Files are read in order and parsed a few ahead of the walk, on every core
// (parseMarkdownPages); each is walked into sections and dropped, so only the
// sections stay, never the Markdown, HTML or trees of the whole document
// (which took 1 GB for 80 MB of Markdown).
func readMarkdownFiles(ctx context.Context, src SourceSpec, r PageReader, rels []string) (Document, error) {
	if len(rels) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "pass at least one .md file", "no Markdown files to read")
	}
	ctx, cancel := context.WithCancel(ctx)
	parsed, wait := parseMarkdownPages(ctx, src, r, rels)
	defer wait()
	defer cancel()
	d := newMarkdownDoc(src)
	texts := d.b.texts
	defer func() {
		if texts != nil {
			texts.Close() // not handed on: the document failed
		}
	}()
	var failed []PageFailure
	for p := range parsed {
		res := <-p
		if res.err == nil {
			d.addParsed(res.page, res.tree)
			continue
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Document{}, ctxErr
		}
		failed = append(failed, PageFailure{Rel: res.rel, Err: res.err})
	}
	if err := ctx.Err(); err != nil {
		return Document{}, err
	}
	switch {
	case len(d.pages) > 0:
	case len(rels) == 1:
		return Document{}, fmt.Errorf("read %q: %w", rels[0], failed[0].Err)
	default:
		return Document{Failed: failed}, apperr.Wrap(failed[0].Err, apperr.Unavailable, "check the paths and the reader's folder",
			"none of the %d Markdown files could be read; the first: %s: %v", len(rels), failed[0].Rel, failed[0].Err)
	}
	sections := d.finish()
	if texts != nil {
		if err := texts.finish(sections); err != nil {
			return Document{}, err
		}
	}
	doc := Document{Version: src.Version, Sections: sections, Failed: failed, texts: texts}
	texts = nil
	return doc, nil
}

// parsedPage is one page converted and parsed, or why it could not be.
type parsedPage struct {
	rel  string // as the caller asked for it
	page mdPage
	tree mdTree
	err  error
}

// markdownPagesAhead bounds the pages read and parsed ahead of the walk, per
// worker: enough to keep every worker busy while the walk takes its turn,
// few enough that only a handful of trees are ever held.
const markdownPagesAhead = 4

// parseMarkdownPages reads the pages of rels in order (the document's hash is
// of its bytes as read) and converts and parses them on every core. It
// returns, in the order of rels, one channel per page that yields its
// result; wait returns once every goroutine it started has ended, after
// the caller has cancelled ctx or taken every page.
//
// Converting and parsing was two thirds of reading a big document, and a
// page's parse needs nothing from the others; walking the trees into
// sections does (ids count over the whole document), so it stays in order
// on the caller's goroutine.
func parseMarkdownPages(ctx context.Context, src SourceSpec, r PageReader, rels []string) (<-chan chan parsedPage, func()) {
	type job struct {
		asked, rel string // as rels has it; as the reader found it (pageRel)
		raw        []byte
		done       chan parsedPage
	}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job)
	order := make(chan chan parsedPage, workers*markdownPagesAhead)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			md := newMarkdownConverter()
			var buf bytes.Buffer
			for j := range jobs {
				p, t, err := parseMarkdownPage(md, &buf, src, j.rel, j.raw)
				j.done <- parsedPage{rel: j.asked, page: p, tree: t, err: err}
			}
		})
	}
	wg.Go(func() {
		defer close(jobs)
		defer close(order)
		for _, rel := range rels {
			done := make(chan parsedPage, 1)
			select {
			case order <- done:
			case <-ctx.Done():
				return
			}
			p, err := r.Read(ctx, rel)
			if err != nil {
				done <- parsedPage{rel: rel, err: err}
				continue
			}
			select {
			case jobs <- job{asked: rel, rel: pageRel(p, rel), raw: p.Body, done: done}:
			case <-ctx.Done():
				done <- parsedPage{rel: rel, err: ctx.Err()}
				return
			}
		}
	})
	return order, wg.Wait
}

// mdPage is what is kept of one Markdown file once it is walked.
type mdPage struct {
	rel     string
	url     string // canonical URL of the page, no fragment
	slug    string // "everyday-types": from the permalink, else the file name
	title   string
	oneline string
	anchors []string // per heading: its anchor on the published page
}

// mdTree is a page's HTML tree, held only while the page is walked.
type mdTree struct {
	root     *html.Node
	headings []*html.Node // in order, one per anchor of the page
}

// markdownConverter is one goroutine's goldmark. It also tells whether the
// page it converted last had raw HTML, which only html.Parse may read
// (goldmarkTree).
type markdownConverter struct {
	md      goldmark.Markdown
	rawHTML bool
}

func newMarkdownConverter() *markdownConverter {
	c := &markdownConverter{}
	// Raw HTML (the handbook's comparison tables) is text we want; the
	// output is never served, only read for text.
	unsafe := gmhtml.WithUnsafe()
	c.md = goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(
			unsafe,
			renderer.WithNodeRenderers(
				util.Prioritized(twoslashRenderer{}, 100),
				util.Prioritized(rawHTMLSpotter{c: c, plain: gmhtml.NewRenderer(unsafe)}, 100),
			),
		),
	)
	return c
}

// convert renders Markdown body as HTML into buf.
func (c *markdownConverter) convert(body []byte, buf *bytes.Buffer) error {
	c.rawHTML = false
	return c.md.Convert(body, buf)
}

// rawHTMLSpotter renders raw HTML as goldmark's HTML renderer does, and
// marks the page as having some.
type rawHTMLSpotter struct {
	c     *markdownConverter
	plain renderer.NodeRenderer // goldmark's own HTML renderer
}

func (s rawHTMLSpotter) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	defaults := rendererFuncs{}
	s.plain.RegisterFuncs(defaults)
	for _, kind := range []ast.NodeKind{ast.KindHTMLBlock, ast.KindRawHTML} {
		render := defaults[kind]
		reg.Register(kind, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
			s.c.rawHTML = true
			return render(w, source, n, entering)
		})
	}
}

// rendererFuncs collects what a NodeRenderer registers.
type rendererFuncs map[ast.NodeKind]renderer.NodeRendererFunc

func (f rendererFuncs) Register(kind ast.NodeKind, render renderer.NodeRendererFunc) {
	f[kind] = render
}

// parseMarkdownPage converts raw to HTML in buf, which it resets first, and
// reads that back into a tree: goldmarkTree's, or html.Parse's for a page
// with raw HTML or anything else goldmarkTree refuses. The tree does not
// refer to buf or raw, so the caller may reuse buf for the next page.
func parseMarkdownPage(md *markdownConverter, buf *bytes.Buffer, src SourceSpec, rel string, raw []byte) (mdPage, mdTree, error) {
	fm, body := splitFrontMatter(raw)
	buf.Reset()
	if err := md.convert(body, buf); err != nil {
		return mdPage{}, mdTree{}, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot convert %s from Markdown", rel)
	}
	root, ok := (*html.Node)(nil), false
	if !md.rawHTML {
		root, ok = goldmarkTree(buf.Bytes())
	}
	if !ok {
		var err error
		if root, err = html.Parse(bytes.NewReader(buf.Bytes())); err != nil {
			return mdPage{}, mdTree{}, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s", rel)
		}
	}
	p := mdPage{rel: rel, url: markdownPageURL(src, rel, fm["permalink"]), title: fm["title"], oneline: fm["oneline"]}
	p.slug = markdownPageSlug(rel, fm["permalink"])
	t := mdTree{root: root}

	// The page's title is the front matter's; a leading "# Title" is the same
	// title written in the body (or the only one there is), not a section of
	// its own.
	slugs := newHeadingSlugger()
	if first := firstBodyElement(root); first != nil && first.Data == "h1" {
		h1 := nodeText(first, nil)
		if p.title == "" || strings.EqualFold(h1, p.title) {
			if p.title == "" {
				p.title = h1
			}
			slugs.slug(h1) // the site still gives it an id, so later ones count on
			first.Parent.RemoveChild(first)
		}
	}
	if p.title == "" {
		p.title = strings.TrimSuffix(path.Base(rel), path.Ext(rel))
	}

	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type == html.ElementNode && headingTags[c.Data] {
				text := nodeText(c, nil)
				if text == "" {
					// Nothing to title a section with: its text joins the
					// section before.
					n.RemoveChild(c)
				} else {
					t.headings = append(t.headings, c)
					p.anchors = append(p.anchors, slugs.slug(text))
				}
			} else {
				visit(c)
			}
			c = next
		}
	}
	visit(root)
	unwrapListParagraphs(root)
	return p, t, nil
}

func firstBodyElement(root *html.Node) *html.Node {
	var body *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil && body == nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == "body" {
				body = c
				return
			}
			find(c)
		}
	}
	find(root)
	if body == nil {
		return nil
	}
	for c := body.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			return c
		}
	}
	return nil
}

// markdownPageURL is where a page is published: the front matter's permalink
// resolved against src.CanonicalURL ("/docs/handbook/2/generics.html" on
// "https://www.typescriptlang.org"), else the file's own path with .html for
// .md below CanonicalURL. The permalink is a path on the site, not below the
// document's folder, so it replaces CanonicalURL's path rather than being
// appended to it.
func markdownPageURL(src SourceSpec, rel, permalink string) string {
	if permalink != "" {
		base, err1 := url.Parse(src.CanonicalURL)
		ref, err2 := url.Parse(permalink)
		if err1 == nil && err2 == nil {
			u := base.ResolveReference(ref)
			u.Fragment = ""
			return u.String()
		}
	}
	htmlRel := strings.TrimSuffix(rel, path.Ext(rel)) + ".html"
	return canonical(src, (&url.URL{Path: htmlRel}).EscapedPath(), "")
}

// markdownPageSlug names a page in section ids: the permalink's file name
// ("everyday-types" for /docs/handbook/2/everyday-types.html), else the
// slug of the file's name ("Everyday Types.md" → "everyday-types").
func markdownPageSlug(rel, permalink string) string {
	name := path.Base(strings.TrimSuffix(rel, path.Ext(rel)))
	if u, err := url.Parse(permalink); permalink != "" && err == nil {
		if b := path.Base(strings.TrimSuffix(u.Path, path.Ext(u.Path))); b != "/" && b != "." && b != "" {
			name = b
		}
	}
	if s := githubSlug(name); s != "" {
		return s
	}
	return "page"
}

// markdownDoc builds the sections of a Markdown document a page at a time.
//
// Ids: a page's section has the page's slug; a heading's section has its
// anchor on the published page ("examples", or "examples-1" for the second
// "Examples" on one page, as the site numbers them) when nothing else in the
// whole document has that id, and "<page-slug>#<anchor>" for every section
// whose anchor repeats across pages or matches a page's slug
// ("generics#examples", "classes#examples"). The predecessor gave five
// "Examples" sections one id, so each overwrote the last. Qualifying every
// holder of a repeated anchor, not just the later ones, keeps a section's id
// independent of reading order. URLs always carry the real anchor.
//
// So an id is known only once every page is read, while a page's tree is
// dropped as soon as it is walked. Meanwhile each section has a placeholder
// id (mdPlaceholder); finish puts in the real ids, parents and URLs, and
// moves the placeholders' entries in the builder's in-link table to the real
// anchors, before the links are resolved: the result is what walking all
// trees with the final ids would give.
type markdownDoc struct {
	src   SourceSpec
	b     *sectionBuilder
	pages []mdPage
	secs  []mdSectionRef // per section of b, where its id comes from
	// count counts page slugs and heading anchors over the whole document;
	// pageSlugs, page slugs alone.
	count, pageSlugs map[string]int
}

// mdSectionRef says which page, and which heading of it, a section is.
type mdSectionRef struct {
	page    int
	heading int // index in the page's anchors, or mdPageSection, or mdNoHeading
}

const (
	mdPageSection = -1 // the page's own section
	mdNoHeading   = -2 // a heading the page's list lacks: no anchor (never met in practice)
)

func newMarkdownDoc(src SourceSpec) *markdownDoc {
	b := newSectionBuilder("", src.SourcePolicy)
	b.texts = newTextSpill(src.spill)
	b.placeholderIDs = true
	// "## Heading" is the first level below the page's title; a "#" that
	// did not become the title is a sibling of the "##"s.
	b.levels = map[string]int{"h1": 2, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
	b.link = func(string) string { return "" } // finish sets the URLs
	return &markdownDoc{src: src, b: b, count: map[string]int{}, pageSlugs: map[string]int{}}
}

// addParsed walks one parsed page into sections.
func (d *markdownDoc) addParsed(p mdPage, t mdTree) {
	pi := len(d.pages)
	d.pages = append(d.pages, p)
	d.count[p.slug]++
	d.pageSlugs[p.slug]++
	for _, a := range p.anchors {
		d.count[a]++
	}
	heading := make(map[*html.Node]int, len(t.headings))
	for i, n := range t.headings {
		heading[n] = i
	}
	b := d.b
	b.page = p.rel
	b.anchor = func(n *html.Node) string {
		i, ok := heading[n]
		if !ok {
			i = mdNoHeading
		}
		return d.placeholder(pi, i)
	}
	b.openSection(1, p.title, d.placeholder(pi, mdPageSection))
	if p.oneline != "" {
		b.text(p.oneline, false)
		b.breakBefore("\n\n")
	}
	b.walk(t.root, false)
	// The closure holds the page's headings, and so its whole tree: let it
	// go before the next page is walked.
	b.anchor = nil
	// The next page opens a section of its own before any text, so this
	// page's sections are complete.
	b.seal()
}

// placeholder records where the section about to open takes its id from
// and returns its placeholder id.
func (d *markdownDoc) placeholder(page, heading int) string {
	d.secs = append(d.secs, mdSectionRef{page: page, heading: heading})
	return mdPlaceholder(len(d.secs) - 1)
}

// mdPlaceholder is the id of section i until finish: never empty, so the
// builder keeps it, and with a NUL, which no id parsed from HTML has.
func mdPlaceholder(i int) string { return "\x00" + strconv.Itoa(i) }

func mdPlaceholderIndex(id string) int {
	i, err := strconv.Atoi(strings.TrimPrefix(id, "\x00"))
	if err != nil || !strings.HasPrefix(id, "\x00") {
		panic("markdown: not a placeholder id: " + strconv.Quote(id))
	}
	return i
}

// pageID is the id of page i's own section.
func (d *markdownDoc) pageID(i int) string {
	p := &d.pages[i]
	if d.pageSlugs[p.slug] > 1 {
		// Two files publish under one name (handbook-v1/Generics.md and
		// Type Manipulation/Generics.md): their paths tell them apart.
		return githubSlug(strings.ReplaceAll(strings.TrimSuffix(p.rel, path.Ext(p.rel)), "/", " "))
	}
	return p.slug
}

// headingID is the id of a heading with anchor a on the page with pageID.
func (d *markdownDoc) headingID(pageID, a string) string {
	if d.count[a] > 1 {
		return pageID + "#" + a
	}
	return a
}

// finish gives every section its real id, parent and URL, and returns the
// sections with their in-link anchors.
func (d *markdownDoc) finish() []db.Section {
	b := d.b
	if len(d.secs) != len(b.sections) {
		panic("markdown: a section opened without a placeholder id")
	}
	// Every section is sealed and none opens any more: what the walk kept
	// per section for the next one goes before this adds its own, at the
	// end of reading, when the heap is fullest (docs/performance.md).
	b.seal()
	b.bodies, b.spare, b.anchors, b.open = nil, nil, nil, nil
	// anchors[i] is the anchor section i asks the builder for: its id,
	// unless that is empty or taken.
	anchors := make([]string, len(b.sections))
	pageIDs := make([]string, len(d.pages))
	for i := range d.pages {
		pageIDs[i] = d.pageID(i)
	}
	for i, ref := range d.secs {
		switch {
		case ref.heading == mdPageSection:
			anchors[i] = pageIDs[ref.page]
		case ref.heading >= 0:
			anchors[i] = d.headingID(pageIDs[ref.page], d.pages[ref.page].anchors[ref.heading])
		}
	}

	// What openSection does with an anchor, now that it is known.
	b.ids = make(map[string]bool, len(b.sections))
	links := make([]string, len(b.sections)) // the anchor each section's URL uses
	var anchorOf map[string]string           // id → anchor on the page, for the page at hand
	page := -1
	for i := range b.sections {
		s := &b.sections[i]
		if ref := d.secs[i]; ref.page != page {
			page = ref.page
			anchorOf = map[string]string{pageIDs[page]: ""}
			for _, a := range d.pages[page].anchors {
				anchorOf[d.headingID(pageIDs[page], a)] = a
			}
		}
		id := anchors[i]
		if id == "" || b.ids[id] {
			id = b.uniqueID(b.derive(s.Title))
		}
		b.ids[id] = true
		s.SectionID = id
		// Headings without an anchor link to the nearest enclosing one.
		link := anchors[i]
		if s.ParentID != "" {
			parent := mdPlaceholderIndex(s.ParentID)
			s.ParentID = b.sections[parent].SectionID
			if link == "" {
				link = links[parent]
			}
		}
		links[i] = link
		s.URL = withAnchor(d.pages[page].url, anchorOf[link])
	}

	// Each section claims its anchor for links as it would have when it
	// opened, had its id been known (placeholderIDs). The first claim of an
	// id wins. Claims record the section the walk was in, which only moves
	// forward here, so a section's claim comes after every claim made from
	// an earlier section and before every other claim made from it or a
	// later one: it takes an id claimed already (by an element's id, or by a
	// page read twice) only from a later section.
	for i := range b.sections {
		rel := d.pages[d.secs[i].page].rel
		if anchors[i] == "" {
			continue
		}
		key := rel + "#" + anchors[i]
		if cur, ok := b.owner[key]; !ok || i < cur {
			b.owner[key] = i
		}
	}
	return b.finish()
}

// headingSlugger gives headings the anchors GitHub and the TypeScript site
// (github-slugger) give them: the slug, then slug-1, slug-2 for repeats on
// the same page.
type headingSlugger map[string]bool

func newHeadingSlugger() headingSlugger { return headingSlugger{} }

func (s headingSlugger) slug(title string) string {
	base := githubSlug(title)
	id := base
	for i := 1; s[id]; i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	s[id] = true
	return id
}

// githubSlug lowercases title, turns each space into '-' and drops every
// other character that is not a letter, digit, mark, '-' or '_':
// "The primitives: string, number, and boolean" becomes
// "the-primitives-string-number-and-boolean".
func githubSlug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// splitFrontMatter separates the YAML front matter between "---" lines at the
// very top of a file from the Markdown after it. Only flat "key: value" lines
// are read, which is all the handbook uses (title, layout, permalink,
// oneline); nested or list values are skipped rather than pulling in a YAML
// parser. Without a closing "---" there is no front matter.
func splitFrontMatter(src []byte) (map[string]string, []byte) {
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	fm := map[string]string{}
	first, rest, ok := bytes.Cut(src, []byte("\n"))
	if !ok || strings.TrimRight(string(first), " \t\r") != "---" {
		return fm, src
	}
	var lines []string
	for {
		line, after, more := bytes.Cut(rest, []byte("\n"))
		l := strings.TrimRight(string(line), " \t\r")
		if l == "---" || l == "..." {
			for _, kv := range lines {
				if k, v, ok := frontMatterLine(kv); ok {
					fm[k] = v
				}
			}
			return fm, after
		}
		if !more {
			return map[string]string{}, src
		}
		lines = append(lines, l)
		rest = after
	}
}

func frontMatterLine(line string) (key, value string, ok bool) {
	if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-' {
		return "", "", false
	}
	key, value, ok = strings.Cut(line, ":")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.ContainsAny(key, " \t") {
		return "", "", false
	}
	return key, yamlScalar(strings.TrimSpace(value)), true
}

// yamlScalar reads a one-line YAML scalar: "double-quoted" with escapes,
// 'single-quoted', where two quotes stand for one, or plain, where " #"
// starts a comment.
func yamlScalar(v string) string {
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		if s, err := strconv.Unquote(v); err == nil {
			return s
		}
		return v[1 : len(v)-1]
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v
}

// twoslashRenderer renders fenced code blocks, leaving out the Twoslash
// markup of blocks marked "twoslash" (```ts twoslash), which the TypeScript
// site consumes and never shows: compiler-flag lines (// @errors: 2345,
// // @noErrors, // @strict: false, // @filename: a.ts), query lines (// ^?)
// and the setup above a // ---cut--- line. Blocks without the mark are shown
// as written on the site, and so are kept as written.
type twoslashRenderer struct{}

func (twoslashRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, renderTwoslashBlock)
}

func renderTwoslashBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.FencedCodeBlock)
	lines := make([]string, 0, n.Lines().Len())
	for i := 0; i < n.Lines().Len(); i++ {
		seg := n.Lines().At(i)
		lines = append(lines, strings.TrimRight(string(seg.Value(source)), "\r\n"))
	}
	if n.Info != nil && isTwoslash(string(n.Info.Segment.Value(source))) {
		lines = stripTwoslash(lines)
	}
	code := strings.Join(lines, "\n")
	if code != "" {
		code += "\n"
	}
	w.WriteString("<pre><code>")
	w.WriteString(html.EscapeString(code))
	w.WriteString("</code></pre>\n")
	return ast.WalkSkipChildren, nil
}

func isTwoslash(info string) bool {
	for _, f := range strings.Fields(info) {
		if f == "twoslash" {
			return true
		}
	}
	return false
}

var (
	// "// @errors: 2345 2322", "// @noErrors", "// @filename: a.ts". The word
	// must be followed by ':' or the end, so "// @ts-expect-error" stays.
	twoslashFlag  = regexp.MustCompile(`^\s*//\s*@\w+\s*(:.*)?$`)
	twoslashQuery = regexp.MustCompile(`^\s*//\s*\^[?|]\s*$`)
	twoslashCut   = regexp.MustCompile(`^\s*//\s*---cut(-before)?---\s*$`)
	twoslashAfter = regexp.MustCompile(`^\s*//\s*---cut-after---\s*$`)
)

func stripTwoslash(lines []string) []string {
	// Everything up to the last cut is setup for the compiler, not shown.
	for i := len(lines) - 1; i >= 0; i-- {
		if twoslashCut.MatchString(lines[i]) {
			lines = lines[i+1:]
			break
		}
	}
	var out []string
	for _, l := range lines {
		if twoslashAfter.MatchString(l) {
			break
		}
		if twoslashFlag.MatchString(l) || twoslashQuery.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	// Removed lines at the top leave nothing to separate.
	for len(out) > 0 && strings.TrimSpace(out[0]) == "" {
		out = out[1:]
	}
	return out
}
