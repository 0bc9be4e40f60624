// Package rank is the one ranking engine for specs and manuals. A query is
// analysed (content words, intent words, code, the shapes of code, names for
// operators and numbers), its misspelt words are corrected against the
// corpus's own vocabulary, and it runs through several channels at once —
// words over weighted fields (title, path, body, the text of links into a
// section, a manual's file name), the same with the words specs use for the
// asker's, literal code and CJK runs, and code shapes. Their lists are
// fused by normalised score, so no channel can hide another the way a "first
// strategy that finds anything" chain did, and every hit says which channels
// found it.
//
// The engine is the only place that scores, and Fuse the only fusion:
// specs, manuals and the vault's files are ranked here. It does not know
// where text is stored: it declares what it reads (source.go); internal/db
// implements that for the spec sections of a scope, and MemorySource for a
// manual's nodes or the vault's files, built in memory. Sections are scored
// from what a source keeps — bm25 over the word postings (words.go),
// phrases (phrase.go), titles (title.go), literals and shapes
// (occurrences.go) — and a manual_find's stages add what they saw of a
// section as lists of their own channels (manual.go), fused with these.
package rank

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// Channel names, as hits report them in Matched.
const (
	// ChannelSemantic is the sections nearest to the query by the cosine of
	// their embeddings (optional; see SemanticSource).
	ChannelSemantic = "semantic"
	// ChannelWords is bm25 over every field of the word index (weighted by
	// Weights.Fields) for the query's words and their typo corrections.
	ChannelWords = "words"
	// ChannelRelated searches the same with the words specs use for them
	// added (related.go).
	ChannelRelated = "related"
	// ChannelLiteral matches code words, and CJK runs, as substrings of
	// the text as written.
	ChannelLiteral = "literal"
	// ChannelSymbol matches the shapes of a short code query (text/shape).
	ChannelSymbol = "symbol"
	// ChannelTypo is not a list of its own: a hit whose text holds a
	// corrected word says "typo:" and the word (explain.go).
	ChannelTypo = "typo"
	// ChannelHeading is the sections whose title is the query, or holds
	// it as written (title.go).
	ChannelHeading = "heading"
	// ChannelPhrase is the sections holding two words of the query next
	// to each other, as in the query (phrase.go).
	ChannelPhrase = "phrase"
)

// Weights are how much each channel and each field counts. Fusion divides
// each channel's scores by its best one, weights them, and sums them per
// hit (CombSUM). Reciprocal rank fusion (k = 20 and k = 60) was measured
// against it on the gold sets and lost: a weak channel's first hit weighs as
// much there as the word channel's.
type Weights struct {
	Channels map[string]float64
	Depth    map[string]int // candidates each channel contributes
	// Fields are the weights of the indexes' fields: bm25's column
	// weights, and what an occurrence of a literal counts in each field
	// (occurrences.go). A field not named weighs 1.
	Fields map[Field]float64
	// LiteralBM25 scores the literal channel as bm25 scores a phrase:
	// each needle's occurrences (weighed by field) saturate, count less in
	// a long section, and count more the fewer sections hold the needle.
	// Without it a section scores its weighed occurrences, summed.
	LiteralBM25 bool
}

// DefaultWeights are chosen on the tune part of the gold sets
// (fixtures/gold; `langspec eval search`); a change is kept only when the
// held-out part does not get worse.
func DefaultWeights() Weights {
	return Weights{
		Channels: map[string]float64{
			ChannelWords: 1.0, ChannelRelated: 1.0, ChannelLiteral: 1.0, ChannelSymbol: 1.0, ChannelHeading: 2.0, ChannelPhrase: 1.0,
			// Chosen on the tune parts of the spec gold sets with the one
			// model that runs offline here (Universal Sentence Encoder
			// lite, .ci/embeddings): at 0.5 it cost held-out hit@5 (Python
			// 0.889 → 0.667); at 0.125 held-out hit@5 is at least where
			// it is without the channel in every language (docs/search.md).
			// A stronger model may earn more: eval search shows both side
			// by side.
			ChannelSemantic: 0.125,
		},
		Fields: map[Field]float64{
			FieldTitle: 10, FieldPath: 4, FieldBody: 1, FieldAnchors: 6,
		},
		Depth: map[string]int{ChannelWords: 50, ChannelRelated: 50, ChannelLiteral: 20, ChannelSymbol: 20, ChannelSemantic: 50, ChannelHeading: 10, ChannelPhrase: 30},
	}
}

// ManualWeights are the weights for manuals (internal/manual/find) and the
// vault's files (internal/vault). The file name (a node's path field,
// MemorySection.Path) weighs as much as a heading, CJK runs match as
// substrings of the normalised text beside the words, and there are no
// code shapes or related spec words. Running each term alone as a channel
// of its own was tried and left out: it changed nothing on the manual gold
// sets and cost time; so did the heading (2) and phrase (1) channels, which
// manuals can have since they run on postings (docs/evaluation.md).
//
// A manual_find fuses the engine's lists with those of its stages
// (ChannelTerms, ChannelNamed, ChannelAsked). What the stages saw of the
// terms decides most; the engine's words and literals, a heading naming
// the terms and the kind of section asked for each count a third of it or
// less. Chosen on the tune parts of the manual gold sets (`langspec eval
// manual-find`; docs/evaluation.md), the middle of a plateau. The heading channel weighs 0: the
// stages' own heading list (ExactTitles) only says which sections the
// query names, which come first.
func ManualWeights() Weights {
	return Weights{
		Channels: map[string]float64{
			ChannelWords: 0.3, ChannelLiteral: 0.3,
			ChannelTerms: 1, ChannelNamed: 0.3, ChannelAsked: 0.2,
		},
		Fields: map[Field]float64{
			FieldTitle: 5, FieldBody: 1, FieldPath: 5,
		},
		Depth: map[string]int{ChannelWords: 200, ChannelLiteral: 200},
		// A Japanese question is mostly runs of kanji and kana the
		// literal channel finds: a run in every section must weigh less
		// than a rare one, and a long section's many occurrences must not
		// outweigh a short section about it (docs/evaluation.md).
		LiteralBM25: true,
	}
}

// Hit is one ranked section.
type Hit struct {
	ID    int64
	Score float64 // fused; comparable within one answer
	// Matched are the channels that found it, strongest contribution
	// first, and what the word index says of it (explain.go): "title"
	// before them when its title or path holds a query word, "typo:W"
	// after them for a correction its text holds, "also:N" when the N-th
	// other phrasing found it.
	Matched []string
	// Phrasings are the phrasings that found it, in order: 0 is the query,
	// i the i-th alternative.
	Phrasings []int
	// Evidence is how much of what the query asks about the section holds,
	// in its own document's statistics, from 0 (none of its words) to 1
	// (every one in its title or headings): unlike Score it can be compared
	// across queries and documents, and says whether the section is about
	// the query at all (Fits; evidence.go). It changes no order.
	Evidence float64
}

// Result is a ranked answer with what the engine made of the query.
type Result struct {
	Query Query
	// Alternatives are the other phrasings, as the engine read them.
	Alternatives []Query
	Corrections  []Correction
	// Terms are the words a hit is said to match, and what a reader would
	// see marked in it: the content words of the query and of each other
	// phrasing, then the corrections.
	Terms    []Term
	Channels []string // channels run, in order
	Hits     []Hit
	// Evidence is the most Evidence any of the best evidenceDepth hits
	// has, whatever the limit: whether the scope has a section about the
	// query at all (Fits). 0 when nothing matched, and for sources that
	// are not spec sections.
	Evidence float64
}

// Engine ranks queries with one set of weights. Safe for concurrent use.
type Engine struct {
	w Weights
	// everyPosting turns the impact heads off (EveryPosting).
	everyPosting bool
	// rankings counts the word rankings of a document, byHeads those the
	// impact heads answered (Rankings).
	rankings, byHeads atomic.Int64
}

// New returns an engine with w.
func New(w Weights) *Engine { return &Engine{w: w} }

// EveryPosting makes e's word rankings score every posting of a query's
// lists instead of answering from their impact heads when those settle the
// top k (wordindex.Impacts), and returns e; call it before e searches. The
// answers are the same: the scale benchmark and the tests compare the two.
func (e *Engine) EveryPosting() *Engine {
	e.everyPosting = true
	return e
}

// Rankings returns how many word rankings of one document e has run and
// how many of them the impact heads answered without scoring every
// posting: what the scale benchmark reports beside its times.
func (e *Engine) Rankings() (all, byHeads int64) { return e.rankings.Load(), e.byHeads.Load() }

// defaultDepth is how many candidates a channel without a Depth of its own
// contributes.
const defaultDepth = 30

// maxPhraseWords is the most topic words a query may have for its pairs to
// be matched as phrases: in a term ("object safety") words next to each
// other are one name; in a question they are next to each other by chance.
const maxPhraseWords = 3

// maxShapeWords is the longest query whose code is matched by shape: in a
// sentence, code words are few and their shapes (x.x, x()) are everywhere.
const maxShapeWords = 4

// MatchedShapes are the shapes the symbol channel matches: the query's,
// when it is short enough to be code as a whole.
func (a Query) MatchedShapes() []string {
	if len(strings.Fields(a.Raw)) > maxShapeWords {
		return nil
	}
	return a.Shapes
}

// Search ranks src for q and returns the best limit hits. Alternatives
// (other phrasings of the same question) run through the same channels and
// their lists are fused with q's.
func (e *Engine) Search(ctx context.Context, src SectionSource, q ftsquery.Query, limit int, alternatives ...ftsquery.Query) (Result, error) {
	res, lists, err := e.Lists(ctx, src, q, alternatives...)
	if err != nil {
		return Result{}, err
	}
	// The evidence is read over the best evidenceDepth hits whatever the
	// limit, so that what it says of a document does not depend on how
	// many hits were asked for; fusion's order is total, so the first
	// limit of them are the hits a smaller list would have held.
	res.Hits = e.Fuse(lists, max(limit, evidenceDepth))
	if err := evidence(ctx, src, &res); err != nil {
		return Result{}, err
	}
	res.Hits = res.Hits[:min(limit, len(res.Hits))]
	res.Terms = matchTerms(&res)
	if err := explain(ctx, src, &res); err != nil {
		return Result{}, err
	}
	return res, nil
}

// Lists runs q and its alternatives through the channels and returns their
// lists unfused, with what the engine made of the query (Result without
// hits): for a caller that fuses them with lists of its own in one Fuse
// (manual_find's stages, internal/manual/find).
func (e *Engine) Lists(ctx context.Context, src SectionSource, q ftsquery.Query, alternatives ...ftsquery.Query) (Result, []List, error) {
	res := Result{Query: Analyze(q)}
	lists, err := e.channels(ctx, src, res.Query, &res)
	if err != nil {
		return Result{}, nil, err
	}
	// Every phrasing runs through the same channels; a list keeps whose
	// it is, so that a hit can say which phrasings found it. A phrasing
	// that matches nothing adds no list, and so changes nothing.
	for i, alt := range alternatives {
		a := Analyze(alt)
		res.Alternatives = append(res.Alternatives, a)
		more, err := e.channels(ctx, src, a, &res)
		if err != nil {
			return Result{}, nil, err
		}
		for j := range more {
			more[j].Phrasing = i + 1
		}
		lists = append(lists, more...)
	}
	return res, lists, nil
}

// Words ranks src for terms by the word channel alone, plain bm25 over the
// fields with e's weights and no other channel, correction or fusion: the
// baseline the manual search is measured against (internal/manual/find).
func (e *Engine) Words(ctx context.Context, src SectionSource, terms []Term, limit int) ([]Posting, error) {
	return e.rankWords(ctx, src, wordList(terms), e.fieldWeights(), limit)
}

// fieldWeights are the weights' fields by SectionFields column, 1 for a
// field they do not name.
func (e *Engine) fieldWeights() [wordindex.Columns]float64 {
	var fields [wordindex.Columns]float64
	for i, f := range SectionFields() {
		fields[i] = cmp.Or(e.w.Fields[f], 1)
	}
	return fields
}

// List is one channel's ranked list for one phrasing (0 the query), best
// first.
type List struct {
	Channel  string
	Phrasing int
	Postings []Posting
}

func (e *Engine) channels(ctx context.Context, src SectionSource, a Query, res *Result) ([]List, error) {
	var jobs []job
	add := func(channel string, f func(limit int) ([]Posting, error)) {
		if e.w.Channels[channel] > 0 {
			jobs = append(jobs, job{channel: channel, run: f})
		}
	}
	// Every corpus is scored here from its word postings and texts: the
	// store's for spec sections, a MemorySource's for a manual.
	fields := e.fieldWeights()
	wordsJob := func(terms []Term) func(limit int) ([]Posting, error) {
		terms = wordList(terms)
		return func(n int) ([]Posting, error) { return e.rankWords(ctx, src, terms, fields, n) }
	}
	words := a.Content
	var related []Term // the related channel's words, when it has any the words channel lacks
	parallel := true
	if len(words) > 0 {
		texts := make([]string, len(words))
		for i, w := range words {
			texts[i] = w.Text
		}
		counts, err := src.Counts(ctx, texts)
		if err != nil {
			return nil, err
		}
		parallel = counts.Sections >= parallelSections
		words = dropCommon(words, counts)
		var fixes []Correction
		if mayCorrect(words, counts) {
			vocab, err := src.Vocabulary(ctx)
			if err != nil {
				return nil, err
			}
			fixes = corrections(words, vocab)
		}
		res.Corrections = append(res.Corrections, fixes...)
		all := slices.Clone(words)
		for _, c := range fixes {
			all = append(all, NewTerm(c.To, false))
		}
		shortCode := len(a.Named) > 0 && len(a.Code) > 0 && len(strings.Fields(a.Raw)) <= maxShapeWords && e.w.Channels[ChannelRelated] > 0
		if rel := relatedWords(all); len(rel) > 0 || len(a.Named) > 0 {
			related = append(slices.Clone(all), rel...)
		}
		if shortCode {
			// A short code query whose operators are named ("i++",
			// "r#match") runs once, in the related channel with the names,
			// and without the words inside its code, which the literal
			// channel matches as written: the names are common words, and
			// more lists or words of them would only cost time.
			related = slices.DeleteFunc(related, func(w Term) bool { return a.InCode[w.Text] })
		} else {
			add(ChannelWords, wordsJob(all))
		}
	}
	for _, n := range a.Named {
		related = append(related, NewTerm(n, false))
	}
	if len(related) > 0 {
		add(ChannelRelated, wordsJob(related))
	}
	if lit := substringNeedles(append(slices.Clone(a.Code), a.Runs...)); len(lit) > 0 {
		add(ChannelLiteral, func(n int) ([]Posting, error) { return substrings(ctx, src, lit, e.w, n) })
	}
	var long []string
	for _, s := range a.MatchedShapes() {
		if len([]rune(s)) >= ftsquery.MinSubstringRunes {
			long = append(long, s)
		} else {
			add(ChannelSymbol, func(n int) ([]Posting, error) { return scanShapes(ctx, src, []string{s}, n) })
		}
	}
	if len(long) > 0 {
		add(ChannelSymbol, func(n int) ([]Posting, error) { return shapes(ctx, src, long, n) })
	}
	if len(a.Pairs) > 0 && len(a.Content) <= maxPhraseWords {
		add(ChannelPhrase, func(n int) ([]Posting, error) { return phrases(ctx, src, a.Pairs, n) })
	}
	if strings.TrimSpace(a.Raw) != "" {
		// A title holding one plain word says little ("type" is in
		// dozens); a title that is the query, or holds code or several
		// words of it as written, says much.
		onlyEqual := len(a.Code) == 0 && len(strings.Fields(a.Raw)) < 2
		add(ChannelHeading, func(n int) ([]Posting, error) {
			ps, err := titleMatches(ctx, src, a, n)
			if onlyEqual {
				ps = slices.DeleteFunc(ps, func(p Posting) bool { return p.Score < TitleEquals })
			}
			return ps, err
		})
	}
	if sem, ok := src.(SemanticSource); ok && strings.TrimSpace(a.Raw) != "" {
		add(ChannelSemantic, func(n int) ([]Posting, error) { return semantic(ctx, sem, a.Raw, n) })
	}
	for _, j := range jobs {
		if !slices.Contains(res.Channels, j.channel) {
			res.Channels = append(res.Channels, j.channel)
		}
	}
	return e.runJobs(jobs, parallel)
}

// wordList is terms as one list of the word channels: each term once (by
// text, and prefix), without those the word index sees nothing in ("..."),
// in order.
func wordList(terms []Term) []Term {
	type key struct {
		text   string
		prefix bool
	}
	seen := map[key]bool{}
	var out []Term
	for _, t := range terms {
		k := key{t.Text, t.Prefix}
		if len(t.Tokens) > 0 && !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// substringNeedles are the texts of texts long enough for a substring
// index, each once.
func substringNeedles(texts []string) []string {
	var out []string
	for _, t := range texts {
		if utf8.RuneCountInString(t) >= ftsquery.MinSubstringRunes && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// job is one channel's query.
type job struct {
	channel string
	run     func(limit int) ([]Posting, error)
}

// parallelSections is the scope below which the channels run one after
// the other: over a few thousand sections each channel takes microseconds,
// less than handing it to another goroutine costs (measured over stdio on
// the Go spec, docs/performance.md).
const parallelSections = 5000

// runJobs runs the channels' queries, with parallel at once — they are
// independent reads, and on a machine with cores to spare a query costs the
// slowest channel rather than the sum — and returns their lists in job
// order, so fusion sees them the same way every time.
func (e *Engine) runJobs(jobs []job, parallel bool) ([]List, error) {
	out := make([]List, len(jobs))
	errs := make([]error, len(jobs))
	do := func(i int) {
		j := jobs[i]
		ps, err := j.run(cmp.Or(e.w.Depth[j.channel], defaultDepth))
		out[i], errs[i] = List{Channel: j.channel, Postings: ps}, err
	}
	var wg sync.WaitGroup
	for i := 1; i < len(jobs); i++ {
		if parallel {
			wg.Go(func() { do(i) })
		} else {
			do(i)
		}
	}
	if len(jobs) > 0 {
		do(0)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	lists := out[:0]
	for _, l := range out {
		if len(l.Postings) > 0 {
			lists = append(lists, l)
		}
	}
	return lists, nil
}

// boosts are the channels that raise what the others found and find
// nothing of their own: two words next to each other say which of the
// sections holding them is about the term, but in a section found for no
// other reason they are a coincidence (measured: as a list of its own, the
// phrase channel lowered the tune part's hit@5 at every weight tried).
var boosts = map[string]bool{ChannelPhrase: true}

// Fuse merges lists into one ranking, the only fusion there is: each
// list's scores are divided by its best one (ShareOf) and weighted by its
// channel, and a hit's score is their sum (CombSUM), so that lists whose
// scores do not compare — channels, phrasings, one manual's and another's —
// count as shares. A section whose title is the query (the heading
// channel's TitleEquals, for the query's own phrasing) comes before the
// rest. Ties go to the hit the word channel ranked higher, then to the
// lower id, so answers are deterministic. A list of a channel the weights
// give 0 adds nothing to a score, yet its hits are hits: the heading list
// a caller makes to say which sections the query names.
func (e *Engine) Fuse(lists []List, limit int) []Hit {
	// The channels in the order they come, each once: a hit's parts are
	// kept by channel, as its best score from any list of that channel.
	var names []string
	chanOf := make([]int, len(lists))
	for i, l := range lists {
		c := slices.Index(names, l.Channel)
		if c < 0 {
			c = len(names)
			names = append(names, l.Channel)
		}
		chanOf[i] = c
	}
	// Hits are kept as values, their parts by channel in one slice beside
	// them: a manual_find fuses thousands.
	type acc struct {
		id        int64
		score     float64
		at        int    // its parts: parts[at*len(names):][:len(names)]
		phrasings uint64 // bit i: phrasing i found it
		wordRank  int
		exact     bool // its title is the query (ExactTitle)
	}
	longest := 0
	for _, l := range lists {
		longest = max(longest, len(l.Postings))
	}
	accs := make([]acc, 0, longest)
	parts := make([]float64, 0, longest*len(names)) // by hit, then by channel: its best share there
	has := make([]bool, 0, longest*len(names))      // by hit, then by channel: the channel found it
	none, never := make([]float64, len(names)), make([]bool, len(names))
	byID := make(map[int64]int, longest) // index in accs
	// Boosting lists go last, and add only to what other lists found
	// (boosts).
	order := make([]int, 0, len(lists))
	for li, l := range lists {
		if !boosts[l.Channel] {
			order = append(order, li)
		}
	}
	for li, l := range lists {
		if boosts[l.Channel] {
			order = append(order, li)
		}
	}
	for _, li := range order {
		l := lists[li]
		w := e.w.Channels[l.Channel]
		c := chanOf[li]
		best := 0.0
		for _, p := range l.Postings {
			best = max(best, p.Score)
		}
		for i, p := range l.Postings {
			k, ok := byID[p.ID]
			if !ok && boosts[l.Channel] {
				continue
			}
			if !ok {
				k = len(accs)
				accs = append(accs, acc{id: p.ID, at: k, wordRank: 1 << 30})
				parts, has = append(parts, none...), append(has, never...)
				byID[p.ID] = k
			}
			a := &accs[k]
			s := w * ShareOf(p.Score, best, len(l.Postings))
			a.score += s
			// A part starts at 0, as a map's missing entry did: a
			// negative weight's part stays 0 and still names its channel.
			j := k*len(names) + c
			parts[j] = max(parts[j], s)
			has[j] = true
			a.phrasings |= 1 << l.Phrasing
			if l.Channel == ChannelWords {
				a.wordRank = min(a.wordRank, i)
			}
			if l.Channel == ChannelHeading && l.Phrasing == 0 && p.Score >= TitleEquals {
				a.exact = true
			}
		}
	}
	// The order is total (ids are distinct): no stable sort is needed.
	slices.SortFunc(accs, func(x, y acc) int {
		// A section the query names comes first, whatever the other
		// channels say of the rest (issue 47: exact first).
		if x.exact != y.exact {
			if x.exact {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		if c := cmp.Compare(x.wordRank, y.wordRank); c != 0 {
			return c
		}
		return cmp.Compare(x.id, y.id)
	})
	if len(accs) > limit {
		accs = accs[:limit]
	}
	// Every hit's Matched and Phrasings are cut from one slice each (full
	// slice expressions: an append to one never writes into the next).
	hits := make([]Hit, len(accs))
	matched := make([]string, 0, len(accs)*len(names))
	phrasings := make([]int, 0, len(accs))
	found := make([]int, 0, len(names))
	for i, a := range accs {
		part := parts[a.at*len(names):][:len(names)]
		found = found[:0]
		for c := range names {
			if has[a.at*len(names)+c] {
				found = append(found, c)
			}
		}
		slices.SortFunc(found, func(x, y int) int {
			if c := cmp.Compare(part[y], part[x]); c != 0 {
				return c
			}
			return strings.Compare(names[x], names[y])
		})
		from := len(matched)
		for _, c := range found {
			matched = append(matched, names[c])
		}
		hits[i] = Hit{ID: a.id, Score: a.score, Matched: matched[from:len(matched):len(matched)]}
		from = len(phrasings)
		for p := range 64 {
			if a.phrasings&(1<<p) != 0 {
				phrasings = append(phrasings, p)
			}
		}
		hits[i].Phrasings = phrasings[from:len(phrasings):len(phrasings)]
	}
	return hits
}

// commonShare is the share of sections above which a word says nothing
// about which section answers: bm25 gives it next to no weight, yet every
// section holding it must be scored.
const commonShare = 0.5

// dropCommon leaves out words most sections hold ("type" in the Go spec),
// unless nothing else would be left.
func dropCommon(words []Term, counts WordCounts) []Term {
	n := counts.Sections
	if n == 0 || len(words) < 2 {
		return words
	}
	var kept []Term
	for _, w := range words {
		if float64(counts.DF[w.Text]) <= commonShare*float64(n) {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		return words
	}
	return kept
}
