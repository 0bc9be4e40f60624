package manual

import (
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

// Exceptions finds the lines of a manual that hold exception vocabulary, in
// the given files (all of the manual's files when paths is empty). With a
// query, only sections whose text also contains the query (normalised) are
// scanned, so "exceptions about X" stays about X. JSON files are scanned as
// text, one node; a .json file that is not valid JSON is still scanned as
// text, and a file over the read limit is skipped, each with a warning
// naming it, so one bad file never hides the rest of the manual. Errors:
// those of Files, and of Read for a path that does not name a readable file.
func (l *Library) Exceptions(manualID string, paths []string, query string, maxHits int) (ExceptionResult, error) {
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
		raw, err := l.Read(manualID, p)
		if apperr.CodeOf(err) == apperr.FileTooLarge {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s skipped: %s", p, err))
			continue
		}
		if err != nil {
			return res, err
		}
		lines := strings.Split(manualfile.NewSource(raw).Text(), "\n")
		nodes, err := l.Nodes(manualID, p)
		if err != nil {
			// Only the parse failed (the file was just read): a .json file
			// that is not valid JSON. Its lines still say what they say.
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s scanned as plain text: %s", p, err))
			nodes = []manualfile.Node{{Kind: manualfile.KindFile, NodeID: manualfile.FileID, Path: p, Title: path.Base(p), LineStart: 1, LineEnd: len(lines)}}
		}
		res.FilesScanned++
		for i, line := range lines {
			n, top := containingNodes(nodes, i+1)
			// The whole top-level section counts: an exception in a
			// subsection rarely repeats the topic its parent names.
			if q != "" && !sectionHas(lines, top, q) {
				continue
			}
			norm := normalize.Normal(line)
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
			res.Hits = append(res.Hits, ExceptionHit{Path: p, NodeID: n.NodeID, Title: n.Title, Line: i + 1, Terms: found, Text: line})
		}
	}
	return res, nil
}

// containingNodes returns the most specific and the outermost node whose
// lines hold line.
func containingNodes(nodes []manualfile.Node, line int) (deepest, outermost manualfile.Node) {
	for _, n := range nodes {
		if n.LineStart > line || line > n.LineEnd {
			continue
		}
		if deepest.NodeID == "" || n.Level >= deepest.Level {
			deepest = n
		}
		if outermost.NodeID == "" || n.Level < outermost.Level {
			outermost = n
		}
	}
	return deepest, outermost
}

// sectionHas reports whether node n's lines contain the normalised query.
func sectionHas(lines []string, n manualfile.Node, q string) bool {
	if n.NodeID == "" {
		return false
	}
	end := min(n.LineEnd, len(lines))
	return strings.Contains(normalize.Normal(strings.Join(lines[n.LineStart-1:end], "\n")), q)
}
