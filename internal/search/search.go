// Package search answers queries over the store: it parses the query, runs a
// chain of strategies until one finds something, and cuts snippet windows
// around what matched. The CLI and the MCP tools both call Search.
package search

import (
	"context"
	"slices"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/snippet"
)

// Strategies, in the order they are tried (Trigram goes first for queries
// that lean on punctuation). Each runs only when the ones before it found
// nothing.
const (
	AllTerms  = "all_terms" // word index, every term (stemmed, folded)
	AnyTerm   = "any_term"  // word index, any one word
	Trigram   = "trigram"   // trigram index, every term as a substring
	Fuzzy     = "fuzzy"     // trigram index, words within a typo of a query word
	Substring = "substring" // scan for terms under three characters
)

// Limits on a request.
const (
	DefaultLimit = 10
	MaxLimit     = 50
)

// Request is one search.
type Request struct {
	Query      string
	Language   string // "" searches every language
	Doc        string
	Version    string // "" means each document's latest complete version
	PathPrefix string // keep sections whose section_path starts with this
	Limit      int    // 1..MaxLimit; 0 means DefaultLimit
	Snippet    snippet.Options
}

// Citation is one hit, with everything needed to cite it.
type Citation struct {
	Language    string  `json:"language" jsonschema:"language id"`
	Doc         string  `json:"doc" jsonschema:"document id within the language"`
	Version     string  `json:"version" jsonschema:"version the text comes from"`
	SectionID   string  `json:"section_id" jsonschema:"stable anchor; pass to get_section"`
	Title       string  `json:"title" jsonschema:"the section heading"`
	SectionPath string  `json:"section_path" jsonschema:"headings from the top of the document, joined by ' > '"`
	URL         string  `json:"url" jsonschema:"canonical URL of the section, to cite"`
	Snippet     string  `json:"snippet" jsonschema:"windows of the text around the matched words, marked **like this**, joined by ' … '"`
	Score       float64 `json:"score" jsonschema:"relevance, higher is better; comparable only within one strategy"`
	Strategy    string  `json:"strategy" jsonschema:"how this hit matched: all_terms, any_term, trigram, fuzzy or substring"`
}

// Result is the answer to a Request.
type Result struct {
	Query    string     `json:"query" jsonschema:"the query as understood"`
	Strategy string     `json:"strategy" jsonschema:"the strategy that answered; empty when nothing matched"`
	Tried    []string   `json:"tried" jsonschema:"every strategy run, in order"`
	Hits     []Citation `json:"results" jsonschema:"ranked sections, best first"`
}

// Search runs req. Errors: apperr.InvalidArgument for a bad query or limit,
// apperr.NotFound for an unknown language or version.
func Search(ctx context.Context, store *db.DB, req Request) (Result, error) {
	if err := validate(&req); err != nil {
		return Result{}, err
	}
	q, err := ftsquery.Parse(req.Query)
	if err != nil {
		return Result{}, err
	}
	res := Result{Query: q.Raw, Tried: []string{}, Hits: []Citation{}}
	f := db.Filter{Scope: db.Scope{Language: req.Language, Doc: req.Doc, Version: req.Version}, PathPrefix: req.PathPrefix}
	for _, st := range strategies(q) {
		if st.skip {
			continue
		}
		res.Tried = append(res.Tried, st.name)
		hits, err := st.run(ctx, store, f, req.Limit)
		if err != nil {
			return Result{}, err
		}
		if st.keep != nil {
			hits = st.keep(hits)
		}
		if len(hits) == 0 {
			continue
		}
		res.Strategy = st.name
		for _, h := range hits {
			res.Hits = append(res.Hits, cite(h, st, req.Snippet))
		}
		break
	}
	return res, nil
}

func validate(req *Request) error {
	if req.Limit == 0 {
		req.Limit = DefaultLimit
	}
	if req.Limit < 1 || req.Limit > MaxLimit {
		return apperr.New(apperr.InvalidArgument, "use a limit from 1 to 50", "limit %d is out of range", req.Limit)
	}
	o := &req.Snippet
	if o.Chars == 0 {
		o.Chars = snippet.DefaultChars
	}
	if o.Windows == 0 {
		o.Windows = snippet.DefaultWindows
	}
	if o.Chars < snippet.MinChars || o.Chars > snippet.MaxChars {
		return apperr.New(apperr.InvalidArgument, "", "snippet length %d is out of range; use %d to %d characters",
			o.Chars, snippet.MinChars, snippet.MaxChars)
	}
	if o.Windows < 1 || o.Windows > snippet.MaxWindows {
		return apperr.New(apperr.InvalidArgument, "", "snippets per hit %d is out of range; use 1 to %d",
			o.Windows, snippet.MaxWindows)
	}
	return nil
}

type strategy struct {
	name string
	skip bool
	run  func(ctx context.Context, store *db.DB, f db.Filter, limit int) ([]db.Hit, error)
	keep func([]db.Hit) []db.Hit // drops hits the strategy cannot justify
	m    matcher
}

// strategies lays out the fallback chain for q.
func strategies(q ftsquery.Query) []strategy {
	all, anyTerm, subs, fuzzy := q.AllTerms(), q.AnyTerm(), q.Substrings(), q.Trigrams()
	words := newWordMatcher(q.WordTerms(), false)
	var needles []string
	for _, t := range q.Terms {
		needles = append(needles, t.Text)
	}
	fm := fuzzyMatcher{words: q.FuzzyWords()}
	short := q.ShortNeedles()
	chain := []strategy{
		{name: AllTerms, skip: all.IsZero(), m: words,
			run: func(ctx context.Context, s *db.DB, f db.Filter, n int) ([]db.Hit, error) {
				return s.MatchWords(ctx, f, all, n)
			}},
		{name: AnyTerm, skip: anyTerm.IsZero(), m: newWordMatcher(q.WordTerms(), true),
			run: func(ctx context.Context, s *db.DB, f db.Filter, n int) ([]db.Hit, error) {
				return s.MatchWords(ctx, f, anyTerm, n)
			}},
		{name: Trigram, skip: subs.IsZero(), m: newSubstringMatcher(needles),
			run: func(ctx context.Context, s *db.DB, f db.Filter, n int) ([]db.Hit, error) {
				return s.MatchSubstrings(ctx, f, subs, n)
			}},
		{name: Fuzzy, skip: fuzzy.IsZero(), m: fm,
			// Nearly every long section shares some trigram with any word, so
			// fetch more and keep only sections with a word really close.
			run: func(ctx context.Context, s *db.DB, f db.Filter, n int) ([]db.Hit, error) {
				return s.MatchSubstrings(ctx, f, fuzzy, n*5)
			},
			keep: func(hs []db.Hit) []db.Hit { return keepMatching(hs, fm, len(hs)/5) }},
		{name: Substring, skip: len(short) == 0, m: newSubstringMatcher(short),
			run: func(ctx context.Context, s *db.DB, f db.Filter, n int) ([]db.Hit, error) {
				return s.ScanSubstrings(ctx, f, short, n)
			}},
	}
	if q.Symbolic() {
		// Exact text first: the word index would answer x.(T) with every
		// section that mentions x and T.
		trigram := chain[2]
		chain = append([]strategy{trigram}, slices.Delete(chain, 2, 3)...)
	}
	return chain
}

// keepMatching keeps, in order, up to limit hits where m finds something.
func keepMatching(hs []db.Hit, m matcher, limit int) []db.Hit {
	var out []db.Hit
	for _, h := range hs {
		if len(out) == limit {
			break
		}
		if len(m.spans(h.Title+" "+h.Path+" "+h.Text)) > 0 {
			out = append(out, h)
		}
	}
	return out
}

func cite(h db.Hit, st strategy, opt snippet.Options) Citation {
	return Citation{
		Language:    h.Language,
		Doc:         h.Doc,
		Version:     h.Version,
		SectionID:   h.SectionID,
		Title:       h.Title,
		SectionPath: h.Path,
		URL:         h.URL,
		Snippet:     snippet.Build(h.Text, st.m.spans(h.Text), opt),
		Score:       h.Score,
		Strategy:    st.name,
	}
}
