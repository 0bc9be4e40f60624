// Package search answers queries over the specs in the store: it parses the
// query, ranks sections with the one ranking engine (internal/rank), and
// cuts snippet windows around what matched. The CLI and the MCP tools both
// call Search.
package search

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/snippet"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Limits on a request.
const (
	DefaultLimit = 10
	MaxLimit     = 50
	// MaxAlso is how many alternative phrasings a request may add.
	MaxAlso = 4
)

// Request is one search.
type Request struct {
	Query      string
	Also       []string // other phrasings of the same question, fused with Query
	Language   string   // "" searches every language
	Doc        string
	Version    string // "" means each document's latest complete version
	PathPrefix string // keep sections whose section_path starts with this
	Limit      int    // 1..MaxLimit; 0 means DefaultLimit
	Snippet    snippet.Options
	// Semantic, when set, adds the semantic channel (internal/embed).
	Semantic Semantic
	// Lexical keeps the semantic channel out even where one is configured
	// (app.App.Search fills Semantic otherwise): eval compares the two.
	Lexical bool
	// Stems, when set, keeps the stems of the words highlighted in hits
	// from one search to the next: a server passes the same one to every
	// search.
	Stems *tokenize.Stems
	// Notes are the context notes in force; the answer carries those
	// covering its hits, once each. nil: none.
	Notes *contextnote.Set
	// Engine ranks; nil is rank.New(rank.DefaultWeights()), the engine of
	// every front end. Tests and benchmarks pass one of their own to
	// compare ways of ranking (rank.Engine.EveryPosting) and count them.
	Engine *rank.Engine
}

// Semantic gives the embeddings of a query and of the sections of a scope
// (internal/embed), which the engine ranks by cosine.
type Semantic interface {
	Embeddings(ctx context.Context, scope *db.Scoped, query string) ([]float32, []rank.Vector, error)
}

// Citation is one hit, with everything needed to cite it.
type Citation struct {
	Language    string   `json:"language" jsonschema:"language id"`
	Doc         string   `json:"doc" jsonschema:"document id within the language"`
	Version     string   `json:"version" jsonschema:"version the text comes from"`
	SectionID   string   `json:"section_id" jsonschema:"stable anchor; pass to get_section"`
	Title       string   `json:"title" jsonschema:"the section heading"`
	SectionPath string   `json:"section_path" jsonschema:"headings from the top of the document, joined by ' > '"`
	URL         string   `json:"url" jsonschema:"canonical URL of the section, to cite"`
	Snippet     string   `json:"snippet,omitempty" jsonschema:"windows of the text around the matched words, marked **like this** (an asterisk of the text itself is written \\*), joined by ' … ' (search results only)"`
	Score       float64  `json:"score,omitempty" jsonschema:"fused relevance, higher is better; comparable within one answer (search results only)"`
	Matched     []string `json:"matched,omitempty" jsonschema:"channels that found it: words, title, anchors (words others link it with), phrase (query words near each other), typo:WORD (a corrected spelling), literal (code as typed), symbol (code of the same shape); also:N when the N-th of also found it"`
}

// Result is the answer to a Request.
type Result struct {
	Query       string                `json:"query" jsonschema:"the query as understood"`
	Corrections []rank.Correction     `json:"corrections,omitempty" jsonschema:"query words the documents do not hold, and the spelling searched as well"`
	Channels    []string              `json:"channels" jsonschema:"ranking channels run"`
	Hits        []Citation            `json:"results" jsonschema:"ranked sections, best first"`
	Notices     []string              `json:"notices,omitempty" jsonschema:"what the answer lacks, e.g. the semantic channel when its endpoint failed"`
	Context     []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's context notes on the documents of the results, each once, with the results it covers"`
	// Evidence is how much of the query the best sections hold, in their
	// documents' own statistics (rank.Result.Evidence): compare reads it
	// to say that a document has no section about a concept.
	Evidence float64 `json:"-"`
}

// Search runs req. Errors: apperr.InvalidArgument for a bad query, limit or
// alternative, apperr.NotFound for an unknown language or version.
func Search(ctx context.Context, store *db.DB, req Request) (Result, error) {
	if err := validate(&req); err != nil {
		return Result{}, err
	}
	q, err := ftsquery.Parse(req.Query)
	if err != nil {
		return Result{}, err
	}
	var alts []ftsquery.Query
	for i, a := range req.Also {
		aq, err := ftsquery.Parse(a)
		if ae, ok := errors.AsType[*apperr.Error](err); ok {
			return Result{}, apperr.Wrap(err, apperr.InvalidArgument, ae.Hint, "also[%d]: %s", i, ae.Message)
		}
		if err != nil {
			return Result{}, err
		}
		alts = append(alts, aq)
	}
	scoped, err := store.Scope(ctx, db.Filter{Scope: db.Scope{Language: req.Language, Doc: req.Doc, Version: req.Version}, PathPrefix: req.PathPrefix})
	if err != nil {
		return Result{}, err
	}
	var src rank.SectionSource = scoped
	var sem *semanticScope
	if req.Semantic != nil && !req.Lexical {
		sem = &semanticScope{Scoped: scoped, sem: req.Semantic}
		src = sem
	}
	engine := req.Engine
	if engine == nil {
		engine = rank.New(rank.DefaultWeights())
	}
	ranked, err := engine.Search(ctx, src, q, req.Limit, alts...)
	if err != nil {
		return Result{}, err
	}
	ids := make([]int64, len(ranked.Hits))
	for i, h := range ranked.Hits {
		ids[i] = h.ID
	}
	rows, err := scoped.Sections(ctx, ids)
	if err != nil {
		return Result{}, err
	}
	res := Result{Query: q.Raw, Corrections: ranked.Corrections, Channels: ranked.Channels, Evidence: ranked.Evidence}
	if sem != nil && sem.failed != nil {
		res.Notices = append(res.Notices, "the semantic channel is off for this answer ("+sem.failed.Error()+"); it comes from the lexical channels")
	}
	res.Hits = citeAll(ranked, rows, req.Snippet, req.Stems, minBytesPerWorker)
	res.Context = coverCitations(req.Notes, res.Hits)
	return res, nil
}

// coverCitations is the notes covering hits, each once.
func coverCitations(notes *contextnote.Set, hits []Citation) []contextnote.Covered {
	targets := make([]contextnote.Target, len(hits))
	for i, h := range hits {
		targets[i] = contextnote.Target{Language: h.Language, Doc: h.Doc}
	}
	return notes.Cover(targets)
}

// semanticScope is a scope with the semantic channel. When the endpoint
// fails or is slow, the channel answers nothing and the failure becomes a
// notice: a search never fails or waits for it.
type semanticScope struct {
	*db.Scoped
	sem Semantic

	mu     sync.Mutex
	failed error
}

func (s *semanticScope) Embeddings(ctx context.Context, query string) ([]float32, []rank.Vector, error) {
	q, rows, err := s.sem.Embeddings(ctx, s.Scoped, query)
	if err != nil {
		s.mu.Lock()
		s.failed = err
		s.mu.Unlock()
		return nil, nil, nil
	}
	return q, rows, nil
}

// citeAll builds the citations of the hits found in rows, in rank order.
// Finding what to highlight means reading each hit's whole text, so when
// the hits hold much text they are shared among the cores, each with a
// highlighter of its own (a highlighter caches stems as it goes). A few
// short sections are cited on the calling goroutine: over stdio, starting
// goroutines cost more than they saved (docs/performance.md).
func citeAll(ranked rank.Result, rows map[int64]db.SectionRow, opt snippet.Options, stems *tokenize.Stems, perWorker int) []Citation {
	hits := slices.DeleteFunc(slices.Clone(ranked.Hits), func(h rank.Hit) bool { _, ok := rows[h.ID]; return !ok })
	out := make([]Citation, len(hits))
	size := 0
	for _, h := range hits {
		size += len(rows[h.ID].Text)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(hits), size/perWorker))
	if workers == 1 {
		hl := newHighlighter(ranked, stems)
		for i, h := range hits {
			out[i] = hl.cite(rows[h.ID], h, opt)
		}
		return out
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			hl := newHighlighter(ranked, stems)
			for i := w; i < len(hits); i += workers {
				out[i] = hl.cite(rows[hits[i].ID], hits[i], opt)
			}
		})
	}
	wg.Wait()
	return out
}

// minBytesPerWorker is how much text a goroutine must have to cite before
// the hits are shared: ten hits of the Go spec (about 20 KB) stay on one.
const minBytesPerWorker = 32 << 10

func validate(req *Request) error {
	if req.Limit == 0 {
		req.Limit = DefaultLimit
	}
	if len(req.Also) > MaxAlso {
		return apperr.New(apperr.InvalidArgument, "keep the best four", "also has %d phrasings; at most %d are allowed", len(req.Also), MaxAlso)
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

// highlighter marks in a snippet what the engine matched: the words of
// the query, of its other phrasings and of its corrections (rank.Result's
// Terms, stemmed as the index stems them), code as typed, and the shapes
// of code.
type highlighter struct{ all multiMatcher }

func newHighlighter(r rank.Result, stems *tokenize.Stems) highlighter {
	var needles, shapes []string
	for _, a := range append([]rank.Query{r.Query}, r.Alternatives...) {
		needles = append(needles, a.Code...)
		shapes = append(shapes, a.MatchedShapes()...)
	}
	return highlighter{multiMatcher{newWordMatcher(r.Terms, stems), newSubstringMatcher(needles), shapeMatcher{shapes}}}
}

// cite builds the citation of r with the snippet of what hit matched.
func (h highlighter) cite(r db.SectionRow, hit rank.Hit, opt snippet.Options) Citation {
	return Citation{
		Language:    r.Language,
		Doc:         r.Doc,
		Version:     r.Version,
		SectionID:   r.SectionID,
		Title:       r.Title,
		SectionPath: r.Path,
		URL:         r.URL,
		Snippet:     snippet.Build(r.Text, h.all.spans(r.Text), opt),
		Score:       hit.Score,
		Matched:     hit.Matched,
	}
}
