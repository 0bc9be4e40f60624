package webui

import (
	"bytes"
	"html/template"
	"net/url"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// sectionHTML renders a section's stored text as HTML: paragraphs, lists
// and code blocks.
//
// The stored text is what ingest kept of a document's HTML (see
// internal/ingest's sectionBuilder): each paragraph on one line, blocks
// separated by blank lines, each list item a "- " line, and preformatted
// code as it was, line by line, often indented. Its blocks are Markdown;
// its characters are not: a "*", "_", "[" or "\" in it is the document's
// own (*T, **kwargs, a[i], '\\'), and read as Markdown a fifth of the Go
// specification's sections came out with characters missing. So the text
// becomes Markdown with every inline ASCII punctuation character escaped
// and every code block fenced (markdownOf), and goldmark renders that.
func sectionHTML(stored string) template.HTML {
	return renderMarkdown(markdownOf(stored))
}

// markdownOf turns stored section text into Markdown that renders as the
// text reads: a one-line block is a paragraph, a block of "- " lines a
// list, and any other block of several lines, or a line that starts with
// white space, is preformatted code (adjacent code blocks are one block,
// blank lines kept, as a <pre> with blank lines in it was stored).
func markdownOf(stored string) []byte {
	stored = strings.ReplaceAll(strings.ReplaceAll(stored, "\r\n", "\n"), "\r", "\n")
	type block struct {
		lines []string
		blank int // blank lines before it
		code  bool
	}
	var blocks []block
	blank := 0
	for _, line := range strings.Split(stored, "\n") {
		if strings.TrimSpace(line) == "" {
			blank++
			continue
		}
		if blank > 0 || len(blocks) == 0 {
			blocks = append(blocks, block{blank: blank})
			blank = 0
		}
		b := &blocks[len(blocks)-1]
		b.lines = append(b.lines, strings.TrimRight(line, " \t"))
	}
	for i := range blocks {
		b := &blocks[i]
		b.code = !isList(b.lines) && (len(b.lines) > 1 || startsWithSpace(b.lines[0]))
	}
	var md bytes.Buffer
	for i := 0; i < len(blocks); i++ {
		b := blocks[i]
		switch {
		case b.code:
			// The block and the code blocks right after it, as one.
			code := strings.Join(b.lines, "\n")
			for i+1 < len(blocks) && blocks[i+1].code {
				i++
				code += strings.Repeat("\n", blocks[i].blank+1) + strings.Join(blocks[i].lines, "\n")
			}
			// A fence longer than any run of backticks in the code: no
			// line of it can close the block.
			fence := strings.Repeat("`", max(3, longestRun(code, '`')+1))
			md.WriteString(fence + "\n" + code + "\n" + fence + "\n\n")
		case isList(b.lines):
			for _, l := range b.lines {
				md.WriteString("- " + escapeInline(strings.TrimPrefix(l, "- ")) + "\n")
			}
			md.WriteString("\n")
		default:
			md.WriteString(escapeInline(b.lines[0]) + "\n\n")
		}
	}
	return md.Bytes()
}

// isList says whether every line is a list item.
func isList(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, "- ") {
			return false
		}
	}
	return true
}

func startsWithSpace(s string) bool { return s != "" && (s[0] == ' ' || s[0] == '\t') }

func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// escapeInline backslash-escapes every ASCII punctuation character, which
// CommonMark allows for each of them: the text then holds no emphasis,
// link, code span, raw HTML, entity or block marker, only its characters.
func escapeInline(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x80 && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// markdown is the page's goldmark: CommonMark without raw HTML (goldmark
// leaves it out unless html.WithUnsafe, which the page never sets) and
// with safeLinks. Its HTML has no style attribute or script, as the page's
// Content-Security-Policy wants.
var markdown = goldmark.New(goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(safeLinks{}, 100))))

// renderMarkdown renders Markdown as HTML for a page.
func renderMarkdown(src []byte) template.HTML {
	var b bytes.Buffer
	if err := markdown.Convert(src, &b); err != nil {
		// goldmark's HTML renderer fails only when its writer does, which
		// a bytes.Buffer never does; show the text as text all the same.
		return template.HTML("<pre>" + template.HTMLEscapeString(string(src)) + "</pre>")
	}
	return template.HTML(b.String())
}

// safeLinks keeps links whose destination is relative or http(s) and turns
// every other link (javascript:, data:, mailto:…) into its text; images
// become their text too (the page loads no image but its own).
type safeLinks struct{}

func (safeLinks) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	var unwrap []ast.Node
	var autolinks []*ast.AutoLink
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			if !allowedURL(string(n.Destination)) {
				unwrap = append(unwrap, n)
			}
		case *ast.Image:
			unwrap = append(unwrap, n)
		case *ast.AutoLink:
			if n.AutoLinkType != ast.AutoLinkURL || !allowedURL(string(n.URL(reader.Source()))) {
				autolinks = append(autolinks, n)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, n := range unwrap {
		parent := n.Parent()
		for c := n.FirstChild(); c != nil; {
			next := c.NextSibling()
			parent.InsertBefore(parent, n, c)
			c = next
		}
		parent.RemoveChild(parent, n)
	}
	for _, n := range autolinks {
		parent := n.Parent()
		parent.ReplaceChild(parent, n, ast.NewString(n.Label(reader.Source())))
	}
}

// allowedURL: a relative URL, or an absolute http or https one. The
// destination is read as the renderer writes it: with its backslash
// escapes and character references resolved (&#106;avascript: is
// javascript:).
func allowedURL(s string) bool {
	b := util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations([]byte(s))))
	u, err := url.Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "", "http", "https":
		return true
	}
	return false
}
