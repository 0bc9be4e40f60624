// Package rank is the one ranking engine for specs and manuals. A query runs
// through several channels at once — words over weighted fields, the title
// and path alone, the words others use to link to a section, neighbouring
// words near each other, typo corrections from the corpus's own vocabulary,
// literal code, and code shapes — and their lists are fused by weighted
// reciprocal rank (Cormack, Clarke and Büttcher 2009), so no channel can
// hide another the way a "first strategy that finds anything" chain did.
// Every hit says which channels found it.
//
// The engine does not know where text is stored: a Source runs a channel's
// expression against its indexes (internal/db implements it for spec
// sections).
package rank

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// Source runs channel expressions against one corpus in one scope. Scores
// are the index's own (higher is better), compared only within a channel.
type Source interface {
	// Words runs e against the word index (stemmed, folded) over all
	// fields, with bm25 weights per column in Fields().Columns order.
	Words(ctx context.Context, e ftsquery.Expr, weights []float64, limit int) ([]db.Posting, error)
	// Literal runs e against the trigram index of the text as written.
	Literal(ctx context.Context, e ftsquery.Expr, limit int) ([]db.Posting, error)
	// Shapes runs e against the trigram index of the text's shapes;
	// ScanShapes finds shapes too short for it.
	Shapes(ctx context.Context, e ftsquery.Expr, limit int) ([]db.Posting, error)
	ScanShapes(ctx context.Context, needles []string, limit int) ([]db.Posting, error)
	// Vocabulary is every folded word of the corpus with its document
	// frequency.
	Vocabulary(ctx context.Context) (map[string]int, error)
	// Fields names the word index's columns by role.
	Fields() Fields
}

// Fields names the columns of a Source's word index that the title and
// anchor channels restrict themselves to.
type Fields struct {
	Columns []string // every column of the word index, in order
	Title   []string // the title and the headings above it (a manual's file name too)
	Anchors []string // link texts pointing here; nil when the corpus has none
}

// Channel names, as hits report them in Matched. A typo correction reports
// as "typo:" and the corrected word.
const (
	ChannelWords   = "words"
	ChannelTitle   = "title"
	ChannelAnchors = "anchors"
	ChannelPhrase  = "phrase"
	ChannelTypo    = "typo"
	ChannelLiteral = "literal"
	ChannelSymbol  = "symbol"
	// ChannelRelated searches the query's words with the words specs use
	// for them (related.go).
	ChannelRelated = "related"
	// ChannelTerm runs each query word (and each CJK run, as a substring)
	// alone, so a rare word's sections are scored even when common words
	// fill the other lists; a hit reports "term:" and the word.
	ChannelTerm = "term"
)

// Weights are a channel's weight in the fusion; K is the reciprocal-rank
// constant: score = Σ weight / (K + rank).
type Weights struct {
	// Fusion is FuseScore (each channel's scores divided by its best, then
	// weighted and summed) or FuseRank (weighted reciprocal rank).
	Fusion   string
	K        float64
	Channels map[string]float64
	Depth    map[string]int // candidates each channel contributes
	// Fields are bm25 weights by word-index column; a column not named
	// weighs 1.
	Fields map[string]float64
}

// Fusion methods.
const (
	FuseScore = "score"
	FuseRank  = "rank"
)

// DefaultWeights are tuned on the tune part of the gold sets
// (fixtures/gold; `langspec eval search`), never on the held-out part.
func DefaultWeights() Weights {
	return Weights{
		Fusion: FuseScore,
		K:      20,
		Channels: map[string]float64{
			ChannelWords: 1.0, ChannelRelated: 1.0, ChannelLiteral: 1.0, ChannelSymbol: 1.0,
		},
		Fields: map[string]float64{
			db.ColumnTitle: 10, db.ColumnPath: 4, db.ColumnBody: 1, db.ColumnAnchors: 6,
		},
		Depth: map[string]int{
			ChannelWords: 50, ChannelTitle: 20, ChannelAnchors: 20, ChannelPhrase: 20,
			ChannelTypo: 20, ChannelLiteral: 20, ChannelSymbol: 20,
		},
	}
}

// ManualWeights are the weights for manuals (internal/manual/find): the file
// name weighs as much as a heading, each term also runs alone (the Japanese
// terms of a question are few and each decisive), and there are no code
// shapes or related spec words.
func ManualWeights() Weights {
	return Weights{
		Fusion: FuseScore,
		K:      20,
		Channels: map[string]float64{
			ChannelWords: 1.0, ChannelLiteral: 1.0,
		},
		Fields: map[string]float64{
			db.ManualColumnTitle: 5, db.ManualColumnBody: 1, db.ManualColumnFileName: 5,
		},
		Depth: map[string]int{ChannelWords: 200, ChannelLiteral: 200, ChannelTerm: 100},
	}
}

// Hit is one ranked section.
type Hit struct {
	ID      int64
	Score   float64  // fused; comparable within one answer
	Matched []string // channels that found it, strongest contribution first
}

// Result is a ranked answer with what the engine made of the query.
type Result struct {
	Query       Query
	Corrections []Correction
	Channels    []string // channels run, in order
	Hits        []Hit
}

// Engine ranks queries with one set of weights.
type Engine struct{ w Weights }

// New returns an engine with w.
func New(w Weights) *Engine { return &Engine{w: w} }

// defaultDepth is how many candidates a channel without a Depth of its own
// contributes.
const defaultDepth = 30

// maxShapeWords is the longest query whose code is matched by shape: in a
// sentence, code words are few and their shapes (x.x, x()) are everywhere.
const maxShapeWords = 4

// nearSpan is how close, in tokens, neighbouring query words must be for
// the phrase channel.
const nearSpan = 6

// Search ranks src for q and returns the best limit hits. Alternatives
// (other phrasings of the same question) run through the same channels and
// their lists are fused with q's.
func (e *Engine) Search(ctx context.Context, src Source, q ftsquery.Query, limit int, alternatives ...ftsquery.Query) (Result, error) {
	res := Result{Query: Analyze(q)}
	lists, err := e.channels(ctx, src, res.Query, &res)
	if err != nil {
		return Result{}, err
	}
	for _, alt := range alternatives {
		more, err := e.channels(ctx, src, Analyze(alt), &res)
		if err != nil {
			return Result{}, err
		}
		lists = append(lists, more...)
	}
	res.Hits = e.fuse(lists, limit)
	return res, nil
}

// ranked is one channel's list.
type ranked struct {
	channel string // name in Matched
	weight  string // key into Weights
	ids     []db.Posting
}

func (e *Engine) channels(ctx context.Context, src Source, a Query, res *Result) ([]ranked, error) {
	var lists []ranked
	run := func(name, weight string, f func(limit int) ([]db.Posting, error)) error {
		ps, err := f(cmp.Or(e.w.Depth[weight], defaultDepth))
		if err != nil {
			return err
		}
		if !slices.Contains(res.Channels, weight) {
			res.Channels = append(res.Channels, weight)
		}
		if len(ps) > 0 {
			lists = append(lists, ranked{channel: name, weight: weight, ids: ps})
		}
		return nil
	}
	words := a.Content
	if len(words) > 0 {
		vocab, err := src.Vocabulary(ctx)
		if err != nil {
			return nil, err
		}
		fixes := corrections(words, vocab)
		res.Corrections = append(res.Corrections, fixes...)
		all := slices.Clone(words)
		for _, c := range fixes {
			all = append(all, ftsquery.Word{Text: c.To})
		}
		any := ftsquery.AnyWord(all)
		fields := src.Fields()
		weights := make([]float64, len(fields.Columns))
		for i, c := range fields.Columns {
			weights[i] = cmp.Or(e.w.Fields[c], 1)
		}
		var relatedExpr ftsquery.Expr
		if rel := relatedWords(all); len(rel) > 0 {
			relatedExpr = ftsquery.AnyWord(append(slices.Clone(all), rel...))
		}
		steps := []struct {
			name string
			e    ftsquery.Expr
		}{
			{ChannelWords, any},
			{ChannelRelated, relatedExpr},
			{ChannelTitle, ftsquery.InColumns(fields.Title, any)},
			{ChannelPhrase, ftsquery.NearPairs(words, nearSpan)},
		}
		if len(fields.Anchors) > 0 {
			steps = append(steps, struct {
				name string
				e    ftsquery.Expr
			}{ChannelAnchors, ftsquery.InColumns(fields.Anchors, any)})
		}
		for _, s := range steps {
			if s.e.IsZero() || e.w.Channels[s.name] == 0 {
				continue
			}
			if err := run(s.name, s.name, func(n int) ([]db.Posting, error) { return src.Words(ctx, s.e, weights, n) }); err != nil {
				return nil, err
			}
		}
		if e.w.Channels[ChannelTerm] > 0 && len(words) > 1 {
			for _, w := range words {
				ex := ftsquery.AnyWord([]ftsquery.Word{w})
				if err := run(ChannelTerm+":"+w.Text, ChannelTerm, func(n int) ([]db.Posting, error) { return src.Words(ctx, ex, weights, n) }); err != nil {
					return nil, err
				}
			}
		}
		for _, c := range fixes {
			ex := ftsquery.AnyWord([]ftsquery.Word{{Text: c.To}})
			if err := run(ChannelTypo+":"+c.To, ChannelTypo, func(n int) ([]db.Posting, error) { return src.Words(ctx, ex, weights, n) }); err != nil {
				return nil, err
			}
		}
	}
	if lit := ftsquery.AnyText(append(slices.Clone(a.Code), a.Runs...)); !lit.IsZero() {
		if err := run(ChannelLiteral, ChannelLiteral, func(n int) ([]db.Posting, error) { return src.Literal(ctx, lit, n) }); err != nil {
			return nil, err
		}
	}
	if e.w.Channels[ChannelTerm] > 0 && len(a.Runs) > 1 {
		for _, r := range a.Runs {
			ex := ftsquery.AnyText([]string{r})
			if err := run(ChannelTerm+":"+r, ChannelTerm, func(n int) ([]db.Posting, error) { return src.Literal(ctx, ex, n) }); err != nil {
				return nil, err
			}
		}
	}
	var long, short []string
	shapes := a.Shapes
	if len(strings.Fields(a.Raw)) > maxShapeWords {
		shapes = nil
	}
	for _, s := range shapes {
		if len([]rune(s)) >= ftsquery.MinSubstringRunes {
			long = append(long, s)
		} else {
			short = append(short, s)
		}
	}
	if ex := ftsquery.AnyText(long); !ex.IsZero() {
		if err := run(ChannelSymbol, ChannelSymbol, func(n int) ([]db.Posting, error) { return src.Shapes(ctx, ex, n) }); err != nil {
			return nil, err
		}
	}
	for _, s := range short {
		if err := run(ChannelSymbol, ChannelSymbol, func(n int) ([]db.Posting, error) { return src.ScanShapes(ctx, []string{s}, n) }); err != nil {
			return nil, err
		}
	}
	return lists, nil
}

// fuse merges the lists by weighted reciprocal rank. Ties go to the hit the
// word channel ranked higher, then to the lower row id, so answers are
// deterministic.
func (e *Engine) fuse(lists []ranked, limit int) []Hit {
	type acc struct {
		hit      Hit
		parts    map[string]float64
		wordRank int
	}
	byID := map[int64]*acc{}
	var order []*acc
	// Channels of weight 0 are tags: they add their name to hits the others
	// found and find nothing themselves.
	slices.SortStableFunc(lists, func(x, y ranked) int {
		return cmp.Compare(boolInt(e.w.Channels[x.weight] == 0), boolInt(e.w.Channels[y.weight] == 0))
	})
	for _, l := range lists {
		w := e.w.Channels[l.weight]
		best := 0.0
		for _, p := range l.ids {
			best = max(best, p.Score)
		}
		for i, p := range l.ids {
			a := byID[p.ID]
			if a == nil && w == 0 {
				continue
			}
			if a == nil {
				a = &acc{hit: Hit{ID: p.ID}, parts: map[string]float64{}, wordRank: 1 << 30}
				byID[p.ID] = a
				order = append(order, a)
			}
			var s float64
			if e.w.Fusion == FuseRank || best <= 0 {
				s = w / (e.w.K + float64(i+1))
			} else {
				s = w * p.Score / best
			}
			a.hit.Score += s
			a.parts[l.channel] = max(a.parts[l.channel], s)
			if l.channel == ChannelWords {
				a.wordRank = min(a.wordRank, i)
			}
		}
	}
	slices.SortStableFunc(order, func(x, y *acc) int {
		if c := cmp.Compare(y.hit.Score, x.hit.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(x.wordRank, y.wordRank); c != 0 {
			return c
		}
		return cmp.Compare(x.hit.ID, y.hit.ID)
	})
	if len(order) > limit {
		order = order[:limit]
	}
	hits := make([]Hit, len(order))
	for i, a := range order {
		names := make([]string, 0, len(a.parts))
		for n := range a.parts {
			names = append(names, n)
		}
		slices.SortFunc(names, func(x, y string) int {
			if c := cmp.Compare(a.parts[y], a.parts[x]); c != 0 {
				return c
			}
			return strings.Compare(x, y)
		})
		a.hit.Matched = names
		hits[i] = a.hit
	}
	return hits
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
