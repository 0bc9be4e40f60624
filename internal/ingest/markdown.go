package ingest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
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
func readMarkdownFiles(ctx context.Context, src SourceSpec, r PageReader, rels []string) (Document, error) {
	if len(rels) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "pass at least one .md file", "no Markdown files to read")
	}
	md := newMarkdownConverter()
	var pages []*mdPage
	var failed []PageFailure
	for _, rel := range rels {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		p, err := r.Read(ctx, rel)
		if err == nil {
			var page *mdPage
			if page, err = parseMarkdownPage(md, src, pageRel(p, rel), p.Body); err == nil {
				pages = append(pages, page)
				continue
			}
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Document{}, ctxErr
		}
		failed = append(failed, PageFailure{Rel: rel, Err: err})
	}
	switch {
	case len(pages) > 0:
	case len(rels) == 1:
		return Document{}, fmt.Errorf("read %q: %w", rels[0], failed[0].Err)
	default:
		return Document{Failed: failed}, apperr.Wrap(failed[0].Err, apperr.Unavailable, "check the paths and the reader's folder",
			"none of the %d Markdown files could be read; the first: %s: %v", len(rels), failed[0].Rel, failed[0].Err)
	}
	return Document{Version: src.Version, Sections: markdownSections(src, pages), Failed: failed}, nil
}

// mdPage is one Markdown file, converted to HTML for the section builder.
type mdPage struct {
	rel      string
	url      string // canonical URL of the page, no fragment
	slug     string // "everyday-types": from the permalink, else the file name
	title    string
	oneline  string
	root     *html.Node
	headings []*html.Node // in order
	anchors  []string     // per heading: its anchor on the published page
}

func newMarkdownConverter() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(
			// Raw HTML (the handbook's comparison tables) is text we want;
			// the output is never served, only read for text.
			gmhtml.WithUnsafe(),
			renderer.WithNodeRenderers(util.Prioritized(twoslashRenderer{}, 100)),
		),
	)
}

func parseMarkdownPage(md goldmark.Markdown, src SourceSpec, rel string, raw []byte) (*mdPage, error) {
	fm, body := splitFrontMatter(raw)
	var buf bytes.Buffer
	if err := md.Convert(body, &buf); err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot convert %s from Markdown", rel)
	}
	root, err := html.Parse(&buf)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "", "cannot parse %s", rel)
	}
	p := &mdPage{rel: rel, url: markdownPageURL(src, rel, fm["permalink"]), title: fm["title"], oneline: fm["oneline"], root: root}
	p.slug = markdownPageSlug(rel, fm["permalink"])

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
					p.headings = append(p.headings, c)
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
	return p, nil
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

// markdownSections builds the sections of all pages.
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
func markdownSections(src SourceSpec, pages []*mdPage) []db.Section {
	count := map[string]int{}
	pageSlugs := map[string]int{}
	for _, p := range pages {
		count[p.slug]++
		pageSlugs[p.slug]++
		for _, a := range p.anchors {
			count[a]++
		}
	}
	b := newSectionBuilder("", src.SourcePolicy)
	for _, p := range pages {
		pageID := p.slug
		if pageSlugs[p.slug] > 1 {
			// Two files publish under one name (handbook-v1/Generics.md and
			// Type Manipulation/Generics.md): their paths tell them apart.
			pageID = githubSlug(strings.ReplaceAll(strings.TrimSuffix(p.rel, path.Ext(p.rel)), "/", " "))
		}
		idOf := make(map[*html.Node]string, len(p.headings))
		anchorOf := map[string]string{pageID: ""}
		for i, n := range p.headings {
			a := p.anchors[i]
			id := a
			if count[a] > 1 {
				id = pageID + "#" + a
			}
			idOf[n] = id
			anchorOf[id] = a
		}
		pageURL := p.url
		b.link = func(id string) string { return withAnchor(pageURL, anchorOf[id]) }
		b.page = p.rel
		b.anchor = func(n *html.Node) string { return idOf[n] }
		// "## Heading" is the first level below the page's title; a "#" that
		// did not become the title is a sibling of the "##"s.
		b.levels = map[string]int{"h1": 2, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
		b.openSection(1, p.title, pageID)
		if p.oneline != "" {
			b.text(p.oneline, false)
			b.breakBefore("\n\n")
		}
		b.walk(p.root, false)
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
