// Package manualfile reads one manual file (Markdown or JSON) into its nodes:
// the headings of a Markdown file as nested sections with line ranges, a
// JSON file as one node. It is the manuals' reader, as the spec formats'
// readers are in package ingest.
package manualfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Node kinds.
const (
	KindHeading = "heading" // a Markdown section: a heading and everything under it
	KindFile    = "file"    // a whole JSON file, a Markdown preamble, or a Markdown file without headings
)

// Fixed node ids.
const (
	PreambleID = "_preamble" // a Markdown file's text before its first heading
	FileID     = "file"      // a JSON file, or a Markdown file without headings
)

// Node is one addressable part of a manual file. (Path, NodeID) is stable for
// unchanged file content, so a search index can store nodes and a bridge can
// copy them later by id.
type Node struct {
	Kind      string `json:"kind" jsonschema:"heading (a Markdown section) or file (a JSON file, a preamble, a file without headings)"`
	NodeID    string `json:"node_id" jsonschema:"id within the file, the heading slug path; pass to manual_read or bridge_copy_section"`
	Path      string `json:"path" jsonschema:"file relative to the manual's folder"`
	Title     string `json:"title" jsonschema:"heading text; the file name for file nodes"`
	Level     int    `json:"level" jsonschema:"1-6 for headings, 0 for file nodes"`
	ParentID  string `json:"parent_id,omitempty" jsonschema:"the enclosing heading's node_id; absent at the top"`
	LineStart int    `json:"line_start" jsonschema:"first line, from 1 (the heading line)"`
	LineEnd   int    `json:"line_end" jsonschema:"last line; a section includes its subsections"`
}

// Parse splits a manual file's content into nodes; rel decides the format by
// its extension (.md or .json, any case). It is what Library.Nodes uses, for
// callers such as an indexer that already hold the bytes.
func Parse(rel string, b []byte) ([]Node, error) {
	return ParseSource(rel, NewSource(b))
}

// Document is a parsed manual file that keeps its text, for callers that cut
// node texts by line (an indexer storing each section's own text).
type Document struct {
	Nodes []Node
	src   *Source
}

// ParseDocument is Parse keeping the text. Line endings are "\n" and a
// leading BOM is dropped, as everywhere in this package.
func ParseDocument(rel string, b []byte) (*Document, error) {
	src := NewSource(b)
	nodes, err := ParseSource(rel, src)
	if err != nil {
		return nil, err
	}
	return &Document{Nodes: nodes, src: src}, nil
}

// Lines returns lines start..end (1-based, inclusive), "" for a range
// outside the file.
func (d *Document) Lines(start, end int) string { return d.src.Lines(start, end) }

// ParseSource splits a source into nodes; rel decides the format as in
// Parse.
func ParseSource(rel string, src *Source) ([]Node, error) {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md":
		return parseMarkdown(rel, src), nil
	case ".json":
		return parseJSON(rel, src)
	}
	return nil, apperr.New(apperr.InvalidArgument, "manual files are .md (Markdown) and .json only",
		"path %s is not a .md or .json file", apperr.Quote(rel))
}

// Source is a file's text with every line end made "\n" and a leading BOM
// dropped. "\r\n" (Windows) and a lone "\r" (old Mac files) end a line as
// they do in an editor, so line numbers match what a person sees; goldmark
// reads only "\n", so the parse sees the same lines.
type Source struct {
	b      []byte
	starts []int // byte offset of each line's first byte
}

// NewSource makes a Source of decoded text (UTF-8; see internal/text/decode).
func NewSource(b []byte) *Source {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if bytes.IndexByte(b, '\r') >= 0 {
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
		b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	}
	s := &Source{b: b}
	for i := 0; i < len(b); {
		s.starts = append(s.starts, i)
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return s
}

// Text is the whole text, every line ending in "\n" but perhaps the last.
func (s *Source) Text() string { return string(s.b) }

// LineCount is the number of lines; a final "\n" ends the last line rather
// than starting an empty one, and an empty file has none.
func (s *Source) LineCount() int { return len(s.starts) }

// lineOf returns the 1-based line holding byte offset off.
func (s *Source) lineOf(off int) int {
	return sort.Search(len(s.starts), func(i int) bool { return s.starts[i] > off })
}

// Lines returns lines start..end (1-based, inclusive), each with its "\n"
// (the file's last line may have none). Concatenating the sections of a file
// in order gives the file back, but for the link definitions and blank lines
// after its last section's content (parseMarkdown), which are no section's.
func (s *Source) Lines(start, end int) string {
	if start < 1 || end < start || start > len(s.starts) {
		return ""
	}
	stop := len(s.b)
	if end < len(s.starts) {
		stop = s.starts[end]
	}
	return string(s.b[s.starts[start-1]:stop])
}

// frontMatterEnd returns the number of lines of a YAML front matter block
// ("---" on line 1 up to the next "---" or "...") or 0 if there is none.
// Goldmark without an extension would read "---" as a thematic break and
// "title: x\n---" as a setext heading, so the block is blanked before parsing.
func (s *Source) frontMatterEnd() int {
	if s.LineCount() < 2 || strings.TrimRight(s.Lines(1, 1), " \t\n") != "---" {
		return 0
	}
	for i := 2; i <= s.LineCount(); i++ {
		switch strings.TrimRight(s.Lines(i, i), " \t\n") {
		case "---", "...":
			return i
		}
	}
	return 0 // unclosed: not front matter, just Markdown
}

// heading is a top-level Markdown heading found in the AST.
type heading struct {
	level int
	line  int
	title string
}

// parseMarkdown returns the file's nodes in line order: an optional
// preamble, then one node per top-level heading. Only headings that are
// children of the document count: "> # x" inside a quote or a list item is
// not a section of the manual.
func parseMarkdown(rel string, src *Source) []Node {
	n := src.LineCount()
	if n == 0 {
		return nil // nothing to address
	}
	parseSrc := src.b
	if fm := src.frontMatterEnd(); fm > 0 {
		// Blank it in a copy, keeping every "\n", so byte offsets and line
		// numbers stay those of the file.
		stop := len(src.b)
		if fm < n {
			stop = src.starts[fm]
		}
		parseSrc = slices.Clone(src.b)
		for i := range stop {
			if parseSrc[i] != '\n' {
				parseSrc[i] = ' '
			}
		}
	}

	var hs []heading
	definitions := map[int]bool{} // lines starting a link reference definition
	doc := goldmark.New().Parser().Parse(text.NewReader(parseSrc))
	for c := doc.FirstChild(); c != nil; c = c.NextSibling() {
		if d, ok := c.(*ast.LinkReferenceDefinition); ok && d.Pos() >= 0 {
			definitions[src.lineOf(d.Pos())] = true
			continue
		}
		h, ok := c.(*ast.Heading)
		if !ok {
			continue
		}
		pos := h.Pos()
		if pos < 0 && h.Lines().Len() > 0 {
			pos = h.Lines().At(0).Start
		}
		if pos < 0 {
			continue // cannot place it; goldmark sets Pos on every block it parses
		}
		hs = append(hs, heading{level: h.Level, line: src.lineOf(pos), title: headingText(h, parseSrc)})
	}

	base := path.Base(rel)
	if len(hs) == 0 {
		return []Node{{Kind: KindFile, NodeID: FileID, Path: rel, Title: base, LineStart: 1, LineEnd: n}}
	}
	// The sections that run to the end of the file end at its last line of
	// content: the link reference definitions many manuals gather at the
	// end ("[`timeout.refresh()`]: #timeoutrefresh", hundreds of them in
	// Node.js's deprecations page) belong to no section, and would make
	// the last one's lines, as cited, run over all of them. Only what the
	// parser read as a definition: a footnote or a paragraph's line shaped
	// like one ("[^1]: The limit is 42") is text.
	last := n
	for last > hs[len(hs)-1].line && (definitions[last] || strings.TrimSpace(src.Lines(last, last)) == "") {
		last--
	}
	var nodes []Node
	used := map[string]bool{}
	if first := hs[0].line; first > 1 && strings.TrimSpace(src.Lines(1, first-1)) != "" {
		nodes = append(nodes, Node{Kind: KindFile, NodeID: PreambleID, Path: rel, Title: base, LineStart: 1, LineEnd: first - 1})
		used[PreambleID] = true
	}
	var stack []int // indexes into nodes of the open headings, outermost first
	for i, h := range hs {
		for len(stack) > 0 && nodes[stack[len(stack)-1]].Level >= h.level {
			stack = stack[:len(stack)-1]
		}
		end := last
		for _, next := range hs[i+1:] {
			if next.level <= h.level {
				end = next.line - 1
				break
			}
		}
		parent := ""
		if len(stack) > 0 {
			parent = nodes[stack[len(stack)-1]].NodeID
		}
		id := slug(h.title)
		if parent != "" {
			id = parent + "/" + id
		}
		id = unique(id, used)
		nodes = append(nodes, Node{Kind: KindHeading, NodeID: id, Path: rel, Title: h.title, Level: h.level,
			ParentID: parent, LineStart: h.line, LineEnd: end})
		stack = append(stack, len(nodes)-1)
	}
	return nodes
}

// headingText is the heading's plain text: inline markup dropped, code spans
// and link texts kept, line breaks inside a setext heading as spaces.
func headingText(h *ast.Heading, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}

// slug turns a heading into an id segment: letters (any script, so
// "支払いの対象外" stays as it is), marks and digits are kept, ASCII letters
// lower-cased, each space becomes "-", "-" and "_" are kept and all other
// punctuation and symbols (including "/", the path separator) are dropped.
// A heading with nothing left is "section".
func slug(title string) string {
	var b strings.Builder
	for _, r := range title {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		case unicode.IsSpace(r):
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}

// unique returns id, or id-2, id-3… if taken, and marks the result used.
// Headings are numbered in file order, so the same file gives the same ids.
func unique(id string, used map[string]bool) string {
	out := id
	for i := 2; used[out]; i++ {
		out = id + "-" + strconv.Itoa(i)
	}
	used[out] = true
	return out
}

// parseJSON checks the file is JSON and returns its one node. A JSON file is
// addressed whole: its structure is data, not sections a model reads apart.
func parseJSON(rel string, src *Source) ([]Node, error) {
	var v any
	if err := json.Unmarshal(src.b, &v); err != nil {
		msg := err.Error()
		if se, ok := errors.AsType[*json.SyntaxError](err); ok && src.LineCount() > 0 {
			// Offset counts the bytes read, the bad one included.
			off := min(max(int(se.Offset)-1, 0), len(src.b)-1)
			line := src.lineOf(off)
			msg = fmt.Sprintf("line %d, column %d: %v", line, off-src.starts[line-1]+1, se)
		}
		return nil, apperr.Wrap(err, apperr.InvalidArgument, "fix the JSON file; only valid JSON files are manuals",
			"manual file %s is not valid JSON: %s", apperr.Quote(rel), msg)
	}
	return []Node{{Kind: KindFile, NodeID: FileID, Path: rel, Title: path.Base(rel), LineStart: 1, LineEnd: src.LineCount()}}, nil
}

// NearestIDs returns up to k node ids closest to id by edit distance, ties
// in file order, for a not_found hint.
func NearestIDs(id string, nodes []Node, k int) []string {
	type cand struct {
		id   string
		dist int
		i    int
	}
	cs := make([]cand, len(nodes))
	for i, n := range nodes {
		d := tokenize.EditDistance(id, n.NodeID)
		// A typo in the last segment should still find the section even when
		// the caller left out the parents ("対象外" for "保険金の支払い/支払いの対象外").
		if j := strings.LastIndexByte(n.NodeID, '/'); j >= 0 {
			d = min(d, tokenize.EditDistance(id, n.NodeID[j+1:]))
		}
		cs[i] = cand{n.NodeID, d, i}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for _, c := range cs[:min(k, len(cs))] {
		out = append(out, c.id)
	}
	return out
}
