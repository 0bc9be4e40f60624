package manual

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/langspec/langspec/internal/apperr"

	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/text/normalize"
)

// ExceptionTerms returns the exception vocabulary: words that introduce what
// a rule does not cover. "Collect everything about X" misses these most
// often, because the exception rarely repeats X's name. Matching is on the
// normalised text (full/half width, case).
func ExceptionTerms() []string {
	return []string{
		// Japanese
		"注意", "除外", "除く", "除き", "対象外", "ただし", "但し", "例外", "免責",
		"支払わない", "支払いません", "適用しない", "適用されません", "該当しない", "含みません", "認められません",
		// English
		"except", "unless", "not applicable", "excluded", "exclusion", "does not apply",
		"do not apply", "not covered", "shall not", "notwithstanding", "warning", "caution",
	}
}

// ExceptionHit is one line holding an exception term.
type ExceptionHit struct {
	Path   string   `json:"path" jsonschema:"file relative to the manual's folder"`
	NodeID string   `json:"node_id" jsonschema:"the deepest section holding the line; pass to manual_read or bridge_copy_section"`
	Title  string   `json:"title" jsonschema:"that section's heading"`
	Line   int      `json:"line" jsonschema:"line number, from 1"`
	Terms  []string `json:"terms" jsonschema:"the exception terms found on the line"`
	Text   string   `json:"text" jsonschema:"the line, cut to 200 characters"`
}

// ExceptionResult is the answer of Exceptions.
type ExceptionResult struct {
	ManualID     string         `json:"manual_id" jsonschema:"the manual scanned"`
	Hits         []ExceptionHit `json:"hits" jsonschema:"lines with exception terms, in file and line order"`
	FilesScanned int            `json:"files_scanned" jsonschema:"files read"`
	Truncated    bool           `json:"truncated" jsonschema:"true when max_hits stopped the scan"`
	Warnings     []string       `json:"warnings,omitempty" jsonschema:"files read in part or not at all, and why"`
}

// exceptionsCheckEvery is how many lines Exceptions scans between looks at
// its context: a few hundred microseconds of work, so a cancelled call
// stops at once without paying for the look on every line.
const exceptionsCheckEvery = 256

// Exceptions finds the lines of a manual that hold exception vocabulary, in
// the given files (all of the manual's files when paths is empty). With a
// query, only sections whose text also contains the query (normalised) are
// scanned, so "exceptions about X" stays about X. JSON files are scanned as
// text, one node; a .json file that is not valid JSON is still scanned as
// text, and a file over the read limit is skipped, each with a warning
// naming it, so one bad file never hides the rest of the manual.
//
// The time is linear in the text: each line is normalised once, each line's
// sections are found in one pass over the nodes' line ranges, and a
// top-level section is searched for the query once, in its lines' normal
// forms, not once for each of its lines. Errors: those of Files, of Read
// for a path that does not name a readable file, and ctx.Err() once ctx
// ends (checked per file and every exceptionsCheckEvery lines).
func (l *Library) Exceptions(ctx context.Context, manualID string, paths []string, query string, maxHits int) (ExceptionResult, error) {
	res := ExceptionResult{ManualID: manualID, Hits: []ExceptionHit{}}
	if len(paths) == 0 {
		var err error
		if paths, err = l.Files(manualID); err != nil {
			return res, err
		}
	}
	vocabulary := ExceptionTerms()
	terms := make([]string, len(vocabulary))
	for i, t := range vocabulary {
		terms[i] = normalize.Normal(t)
	}
	q := normalize.Normal(query)
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		f, err := l.read(manualID, p)
		if apperr.CodeOf(err) == apperr.FileTooLarge {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s skipped: %s", p, err))
			continue
		}
		if err != nil {
			return res, err
		}
		// Reading, splitting and parsing a file cannot stop half way (an
		// 8 MB file: some 100 ms for each): the context is looked at
		// between them.
		if err := ctx.Err(); err != nil {
			return res, err
		}
		src := manualfile.NewSource(f.Text)
		lines := strings.Split(src.Text(), "\n")
		if err := ctx.Err(); err != nil {
			return res, err
		}
		nodes, err := manualfile.ParseSource(f.Path, src)
		if err != nil {
			// Only the parse failed (the file was just read): a .json file
			// that is not valid JSON. Its lines still say what they say.
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s scanned as plain text: %s", p, err))
			nodes = []manualfile.Node{{Kind: manualfile.KindFile, NodeID: manualfile.FileID, Path: p, Title: path.Base(p), LineStart: 1, LineEnd: len(lines)}}
		}
		res.FilesScanned++
		scope := newLineScope(nodes, lines, q)
		for i, line := range lines {
			if i%exceptionsCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return res, err
				}
			}
			if scope.deep[i] < 0 {
				continue // a line of no section
			}
			// The whole top-level section counts: an exception in a
			// subsection rarely repeats the topic its parent names.
			if q != "" {
				in, err := scope.inScope(ctx, i)
				if err != nil {
					return res, err
				}
				if !in {
					continue
				}
			}
			norm := scope.normal(i)
			var found []string
			for j, t := range terms {
				if strings.Contains(norm, t) {
					found = append(found, vocabulary[j])
				}
			}
			if len(found) == 0 {
				continue
			}
			if len(res.Hits) == maxHits {
				res.Truncated = true
				return res, nil
			}
			if r := []rune(line); len(r) > 200 {
				line = string(r[:200]) + "…"
			}
			n := scope.deepest(i)
			res.Hits = append(res.Hits, ExceptionHit{Path: p, NodeID: n.NodeID, Title: n.Title, Line: i + 1, Terms: found, Text: line})
		}
	}
	return res, nil
}

// lineScope knows, for each line of a file, the most specific and the
// outermost node holding it, and whether that outermost node's text holds
// the query; it normalises each line once, when first asked.
type lineScope struct {
	nodes []manualfile.Node
	lines []string
	query string
	// deep and outer are indexes into nodes by line index, -1 for a line
	// no node holds: the link definitions and blank lines after a file's
	// last section (manualfile.parseMarkdown), the empty "line" after a
	// final newline. No hit is reported there: it would name no section.
	deep, outer []int32
	// has is whether nodes[i]'s text holds the query: 0 not looked at
	// yet, 1 yes, 2 no. A top-level section is looked at once, however
	// many lines it has.
	has []int8
	// norms are the lines' normal forms, where normed is set.
	norms  []string
	normed []bool
}

// newLineScope maps every line to its nodes. Each node marks its own lines,
// in node order, with the choice a scan of all nodes makes for one line:
// the last node of the highest level is the most specific, the first of
// the lowest level the outermost. A line lies in at most one node of each
// level (sections nest), so the work is the lines times the depth of the
// headings, at most seven, instead of the lines times the nodes.
func newLineScope(nodes []manualfile.Node, lines []string, query string) *lineScope {
	s := &lineScope{nodes: nodes, lines: lines, query: query,
		deep: make([]int32, len(lines)), outer: make([]int32, len(lines)), has: make([]int8, len(nodes)),
		norms: make([]string, len(lines)), normed: make([]bool, len(lines))}
	for i := range lines {
		s.deep[i], s.outer[i] = -1, -1
	}
	for j, n := range nodes {
		for i := max(n.LineStart, 1) - 1; i < min(n.LineEnd, len(lines)); i++ {
			if d := s.deep[i]; d < 0 || n.Level >= nodes[d].Level {
				s.deep[i] = int32(j)
			}
			if o := s.outer[i]; o < 0 || n.Level < nodes[o].Level {
				s.outer[i] = int32(j)
			}
		}
	}
	return s
}

// normal is line i's normal form (0-based).
func (s *lineScope) normal(i int) string {
	if !s.normed[i] {
		s.norms[i], s.normed[i] = normalize.Normal(s.lines[i]), true
	}
	return s.norms[i]
}

// deepest is the most specific node holding line i (0-based), or the zero
// Node when none does.
func (s *lineScope) deepest(i int) manualfile.Node {
	if d := s.deep[i]; d >= 0 {
		return s.nodes[d]
	}
	return manualfile.Node{}
}

// inScope reports whether the outermost node holding line i (0-based)
// contains the normalised query; a line outside every node is out of
// scope. The node's text in normal form is its lines' normal forms, the
// empty ones left out, joined by spaces: what normalize.Normal makes of
// the lines joined by "\n" (normalize's TestNormalOfLines), built a line
// at a time so that a cancelled call stops inside a long section too.
// Errors: ctx.Err() once ctx ends.
func (s *lineScope) inScope(ctx context.Context, i int) (bool, error) {
	o := s.outer[i]
	if o < 0 {
		return false, nil
	}
	if s.has[o] == 0 {
		n := s.nodes[o]
		var text strings.Builder
		for k := n.LineStart - 1; k < min(n.LineEnd, len(s.lines)); k++ {
			if (k-n.LineStart+1)%exceptionsCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			if norm := s.normal(k); norm != "" {
				if text.Len() > 0 {
					text.WriteByte(' ')
				}
				text.WriteString(norm)
			}
		}
		s.has[o] = 2
		if strings.Contains(text.String(), s.query) {
			s.has[o] = 1
		}
	}
	return s.has[o] == 1, nil
}
