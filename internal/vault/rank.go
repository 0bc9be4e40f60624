package vault

import (
	"cmp"
	"context"
	"strings"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// The vault's files are ranked by the engine that ranks specifications and
// manuals (internal/rank), with the manuals' weights: a note is a manual
// page the model wrote. Find's stages say which lines match; the ranking
// only orders the files holding them, and so ranks those files alone, with
// their own statistics: each of them holds the query or a phrasing by
// construction, so the files without a match would change the words'
// weights little, and reading them in would cost a build of postings as
// large as the vault after every write. A file is one section: its first
// heading its title, its path the path field (weighed as a heading, as a
// manual's file name is), its text the body, and its normal form what the
// literal channel reads (Japanese runs).

// scopeFile is a file holding a match: its path, its text and its normal
// form (normalize.Normal).
type scopeFile struct{ path, text, normal string }

// rankFiles ranks files for query and its other phrasings and returns
// each path's place, 0 the best; a file the engine did not find comes
// after every one it found, in path order. A query the engine cannot read
// (longer than a search query may be) leaves the files in path order.
func rankFiles(ctx context.Context, files []scopeFile, query string, also []string) (map[string]int, error) {
	order := make(map[string]int, len(files))
	for i, f := range files {
		order[f.path] = len(files) + i
	}
	q, err := ftsquery.Parse(query)
	if err != nil {
		return order, nil
	}
	var alts []ftsquery.Query
	for _, a := range also {
		if aq, err := ftsquery.Parse(a); err == nil {
			alts = append(alts, aq)
		}
	}
	secs := make([]rank.MemorySection, len(files))
	for i, f := range files {
		secs[i] = rank.MemorySection{ID: int64(i + 1), Title: firstHeading(f.text), Path: f.path, Body: f.text, Literal: f.normal}
	}
	src, err := rank.NewMemorySource(secs)
	if err != nil {
		return nil, err
	}
	res, err := rank.New(rank.ManualWeights()).Search(ctx, src, q, len(files), alts...)
	if err != nil {
		return nil, err
	}
	for place, h := range res.Hits {
		order[files[h.ID-1].path] = place
	}
	return order, nil
}

// firstHeading is a Markdown file's first ATX heading, "" without one.
func firstHeading(text string) string {
	for line := range strings.Lines(text) {
		t := strings.TrimLeft(line, " ")
		if h := strings.TrimLeft(t, "#"); len(h) < len(t) && len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
			return strings.TrimSpace(h)
		}
	}
	return ""
}

// byPlace orders lines by their file's place, then as they were.
func byPlace(order map[string]int) func(a, b Candidate) int {
	return func(a, b Candidate) int { return cmp.Compare(order[a.Path], order[b.Path]) }
}
