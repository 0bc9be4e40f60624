package ingest

// This file reads an mdBook's Markdown sources, chapters in SUMMARY.md
// order, rendered with goldmark as mdBook renders them.

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
)

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
