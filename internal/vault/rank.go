package vault

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// The vault's files are ranked by the engine that ranks specifications and
// manuals (internal/rank), with the manuals' weights: a note is a manual
// page the model wrote. Find's stages say which lines match; the ranking
// only orders the files holding them. A file is one section: its first
// heading its title, its path the path field (weighed as a heading, as a
// manual's file name is), its text the body, and its normal form what the
// literal channel reads (Japanese runs).
//
// Only the files holding a match are read in: every one of them holds the
// query or a phrasing, so among them the query's words are as common as
// words can be (bm25 gives each the same least weight, FTS5's floor), and
// the order comes from how often and where each file holds them — title,
// path, text — and how long it is. The files without a match would tell
// a rare word of the query from a common one; reading them in would cost
// a build of postings as large as the whole scope at every search (tried
// with BenchmarkVaultFind when this was written: 1.6–2× the scan where few
// files match).

// scopeFile is a file holding a match: its path, its text and its normal
// form (normalize.Normal).
type scopeFile struct{ path, text, normal string }

// rankLines puts found in the order of the files holding them, the best
// first, and returns what the caller should know of that order: why the
// lines stayed in path order, or which phrasing was left out. The ranking
// is part of the search: it starts only with time left in the budget
// (deadline, on the vault's clock), and the build of its index, the part
// that grows with the text, stops when the budget ends; the channels then
// run over memory in milliseconds.
func (v *Vault) rankLines(ctx context.Context, found []Candidate, files []scopeFile, textBytes int, req FindRequest, deadline time.Time, cutoff string) ([]string, error) {
	left := deadline.Sub(v.opts.Now())
	switch {
	case cutoff == CutoffTimeBudget || left <= 0:
		return []string{"not ranked: the time budget ran out; lines are in path order"}, nil
	case textBytes > maxRankedBytes:
		return []string{fmt.Sprintf("not ranked: the files holding a match hold more than %d MB; lines are in path order (narrow the scope to rank them)", maxRankedBytes>>20)}, nil
	}
	rctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	order, warnings, err := rankFiles(rctx, files, req.Query, req.Also)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		return []string{"not ranked: the time budget ran out while ranking; lines are in path order"}, nil
	case err != nil:
		return nil, err
	}
	slices.SortStableFunc(found, func(a, b Candidate) int { return cmp.Compare(order[a.Path], order[b.Path]) })
	return warnings, nil
}

// rankFiles ranks files for query and its other phrasings and returns
// each path's place, 0 the best; a file the engine did not find (none of
// its words in the file's words, as "--" is none) comes after every one
// it found, in path order. A query the engine cannot read leaves the
// files in path order, and a phrasing it cannot read is left out; the
// warnings say which.
func rankFiles(ctx context.Context, files []scopeFile, query string, also []string) (map[string]int, []string, error) {
	order := make(map[string]int, len(files))
	for i, f := range files {
		order[f.path] = len(files) + i
	}
	q, err := ftsquery.Parse(query)
	if err != nil {
		return order, []string{"not ranked: " + refusal(err) + "; lines are in path order"}, nil
	}
	var (
		alts     []ftsquery.Query
		warnings []string
	)
	for i, a := range also {
		aq, err := ftsquery.Parse(a)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("also[%d] left out of the ranking: %s", i, refusal(err)))
			continue
		}
		alts = append(alts, aq)
	}
	secs := make([]rank.MemorySection, len(files))
	for i, f := range files {
		secs[i] = rank.MemorySection{ID: int64(i + 1), Title: firstHeading(f.text), Path: f.path, Body: f.text, Literal: f.normal}
	}
	src, err := rank.NewMemorySource(ctx, secs)
	if err != nil {
		return nil, nil, err
	}
	// Every file holding a match is ranked, however many: the manuals'
	// channel depths stop at 200 sections.
	w := rank.ManualWeights()
	for ch, d := range w.Depth {
		w.Depth[ch] = max(d, len(files))
	}
	res, err := rank.New(w).Search(ctx, src, q, len(files), alts...)
	if err != nil {
		return nil, nil, err
	}
	for place, h := range res.Hits {
		order[files[h.ID-1].path] = place
	}
	return order, warnings, nil
}

// firstHeading is a Markdown file's first ATX heading ("# Title", at most
// three spaces in, closing #s dropped), "" without one. Lines in a fenced
// code block ("# a shell comment") and in front matter (a "---" block the
// file starts with) are none. Setext headings are not read: a title is a
// hint to the ranking, and the path and text weigh too.
func firstHeading(text string) string {
	var fence string // the opening fence's run of ` or ~ while in a block
	frontMatter := false
	for i := 0; text != ""; i++ {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		line = strings.TrimRight(line, "\r")
		if i == 0 && strings.TrimRight(line, " ") == "---" {
			frontMatter = true
			continue
		}
		if frontMatter {
			frontMatter = strings.TrimRight(line, " ") != "---" && strings.TrimRight(line, " ") != "..."
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		if fence != "" {
			// Closed by a run of the same character at least as long,
			// with nothing after it.
			if run := leadingRun(trimmed, fence[0]); len(run) >= len(fence) && strings.TrimSpace(trimmed[len(run):]) == "" {
				fence = ""
			}
			continue
		}
		if run := leadingRun(trimmed, '`'); len(run) >= 3 {
			fence = run
			continue
		}
		if run := leadingRun(trimmed, '~'); len(run) >= 3 {
			fence = run
			continue
		}
		h := strings.TrimLeft(trimmed, "#")
		if n := len(trimmed) - len(h); n == 0 || n > 6 || h != "" && h[0] != ' ' && h[0] != '\t' {
			continue
		}
		h = strings.TrimSpace(h)
		if c := strings.TrimRight(h, "#"); c == "" || strings.HasSuffix(c, " ") || strings.HasSuffix(c, "\t") {
			h = strings.TrimSpace(c) // "## Title ##", not "# C#"
		}
		return h
	}
	return ""
}

// leadingRun is the run of c that s starts with.
func leadingRun(s string, c byte) string {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return s[:n]
}

// refusal is what the query parser said of a query, without its code and
// hint: "query is 1500 characters; at most 1000 are allowed".
func refusal(err error) string {
	if e, ok := errors.AsType[*apperr.Error](err); ok {
		return e.Message
	}
	return err.Error()
}
