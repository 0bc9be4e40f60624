package rank

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/normalize"
	"github.com/langspec/langspec/internal/text/shape"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// A corpus held in memory, ranked by the same channels and the same bm25
// as stored spec sections: a manual (internal/manual/find builds one from
// the nodes of a manual's snapshot). Before it, manuals were ranked by the
// store's full-text index — FTS5's bm25() over every manual of the
// database, so that one project's manuals moved another's scores — and by
// a second set of channels; now a manual is one document with its own
// statistics, like a version of a specification.

// MemorySection is one section of a MemorySource.
type MemorySection struct {
	ID    int64 // its row id: unique within the source
	Title string
	// Path is the path field, weighed as FieldPath: a spec section's
	// headings, a manual node's file name.
	Path string
	Body string
	// Literal is the text the literal channel looks in for the body: a
	// manual's normal form (normalize.Normal: NFKC, folded, white space
	// unified), so that a phrase broken over two lines is still found.
	// Empty: the body, lower case.
	Literal string
}

// MemorySource is a corpus of sections held in memory as the engine reads a
// stored one (SectionSource): one document, its word postings built as the
// store builds them (wordindex.Builder), so a section's bm25 is worked out
// from the corpus's own statistics. Immutable once built; safe for
// concurrent use.
type MemorySource struct {
	secs   []MemorySection // in ordinal order (by ID)
	layout map[int64]*wordindex.Snapshot
	lists  map[string]wordindex.List // by index term
	terms  []string                  // every index term, in byte order
	vocab  *Vocabulary

	lowerOnce              sync.Once
	lowTitle, lowPath, lit []string
	shapeOnce              sync.Once
	shapes                 []string

	phraseMu sync.Mutex
	phrases  map[string][]int // by phrase text (a trailing * for a prefix)
}

// memoryDoc is the one document of a MemorySource.
const memoryDoc = 1

// maxKeptPhrases bounds the phrases a MemorySource keeps the sections of.
const maxKeptPhrases = 4096

// NewMemorySource indexes secs. Their IDs must be unique. It stops with
// ctx's error once ctx ends, looked at before each section: the build is
// the one part of a search over a MemorySource whose time grows with the
// text (BenchmarkVaultFind, docs/performance.md).
func NewMemorySource(ctx context.Context, secs []MemorySection) (*MemorySource, error) {
	secs = slices.Clone(secs)
	slices.SortFunc(secs, func(a, b MemorySection) int { return cmp.Compare(a.ID, b.ID) })
	b := wordindex.NewBuilder()
	ids := make([]int64, len(secs))
	for i, s := range secs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		b.Add([wordindex.Columns]string{s.Title, s.Path, s.Body, ""})
		ids[i] = s.ID
	}
	m := &MemorySource{secs: secs, lists: map[string]wordindex.List{}, phrases: map[string][]int{}}
	if len(secs) > 0 {
		data, err := b.Layout(ids)
		if err != nil {
			return nil, fmt.Errorf("rank: memory source: %w", err)
		}
		snap, err := wordindex.DecodeLayout(data)
		if err != nil {
			return nil, fmt.Errorf("rank: memory source: %w", err)
		}
		m.layout = map[int64]*wordindex.Snapshot{memoryDoc: snap}
	}
	err := b.EachTerm(func(t wordindex.Term) error {
		m.lists[t.Text] = wordindex.List{Postings: bytes.Clone(t.Postings), Skips: bytes.Clone(t.Skips), DF: t.DF}
		m.terms = append(m.terms, t.Text) // EachTerm goes in byte order
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rank: memory source: %w", err)
	}
	m.vocab = NewVocabulary(VocabularyWords(b.Words))
	return m, nil
}

// Counts says how many sections hold each of words (folded, as the
// vocabulary keeps them: a shorter word counts none, as in the store).
func (m *MemorySource) Counts(_ context.Context, words []string) (WordCounts, error) {
	c := WordCounts{DF: make(map[string]int, len(words)), Sections: len(m.secs)}
	for _, w := range words {
		c.DF[w] = m.vocab.DF(w)
	}
	return c, nil
}

// Vocabulary is the source's words of three runes or more, with the
// sections holding each.
func (m *MemorySource) Vocabulary(context.Context) (*Vocabulary, error) { return m.vocab, nil }

// Layouts is the one document's layout.
func (m *MemorySource) Layouts(context.Context) (map[int64]*wordindex.Snapshot, error) {
	return m.layout, nil
}

// Postings returns the lists of terms the source holds.
func (m *MemorySource) Postings(_ context.Context, terms []string) (map[string]map[int64]wordindex.List, error) {
	out := map[string]map[int64]wordindex.List{}
	for _, t := range terms {
		if l, ok := m.lists[t]; ok {
			out[t] = map[int64]wordindex.List{memoryDoc: l}
		}
	}
	return out, nil
}

// PrefixTerms are the index terms starting with prefix, in order.
func (m *MemorySource) PrefixTerms(_ context.Context, prefix string) ([]string, error) {
	i, _ := slices.BinarySearch(m.terms, prefix)
	var out []string
	for ; i < len(m.terms) && strings.HasPrefix(m.terms[i], prefix); i++ {
		out = append(out, m.terms[i])
	}
	return out, nil
}

// Within is nil: the source is kept whole.
func (m *MemorySource) Within(context.Context) (map[int64][]int, error) { return nil, nil }

// Phrase returns the sections holding t's words next to each other, in
// order, in one field (the last word a prefix when t is one: the index
// terms starting with its stem, as FTS5's porter tokenizer stems a prefix
// too), as FTS5 matches a phrase: the candidates are the sections holding
// every word, from the postings, and only they are read again.
func (m *MemorySource) Phrase(_ context.Context, t Term) (map[int64][]int, error) {
	if len(t.Tokens) == 0 || len(m.secs) == 0 {
		return nil, nil
	}
	key := t.Text
	if t.Prefix {
		key += "*"
	}
	m.phraseMu.Lock()
	ords, ok := m.phrases[key]
	m.phraseMu.Unlock()
	if !ok {
		var err error
		if ords, err = m.phrase(t); err != nil {
			return nil, err
		}
		m.phraseMu.Lock()
		if len(m.phrases) >= maxKeptPhrases {
			// A server's queries are endless; what it asks again soon is
			// what the cache is for.
			clear(m.phrases)
		}
		m.phrases[key] = ords
		m.phraseMu.Unlock()
	}
	if len(ords) == 0 {
		return nil, nil
	}
	return map[int64][]int{memoryDoc: ords}, nil
}

func (m *MemorySource) phrase(t Term) ([]int, error) {
	last := len(t.Tokens) - 1
	var cand []int
	for k, tok := range t.Tokens {
		var terms []string
		if k == last && t.Prefix {
			i, _ := slices.BinarySearch(m.terms, tok.Stem)
			for ; i < len(m.terms) && strings.HasPrefix(m.terms[i], tok.Stem); i++ {
				terms = append(terms, m.terms[i])
			}
		} else {
			terms = []string{tok.Stem}
		}
		var held []int
		for _, term := range terms {
			ords, err := wordindex.InColumns(m.lists[term], 1<<wordindex.Columns-1)
			if err != nil {
				return nil, err
			}
			held = append(held, ords...)
		}
		slices.Sort(held)
		held = slices.Compact(held)
		if k == 0 {
			cand = held
		} else {
			cand = slices.DeleteFunc(cand, func(o int) bool { _, ok := slices.BinarySearch(held, o); return !ok })
		}
		if len(cand) == 0 {
			return nil, nil
		}
	}
	var out []int
	var toks []tokenize.Token
	var stems tokenize.Stems
	for _, o := range cand {
		s := m.secs[o]
		for _, text := range [...]string{s.Title, s.Path, s.Body} {
			toks = tokenize.AppendTokens(toks[:0], text)
			if holdsPhrase(toks, t, &stems) {
				out = append(out, o)
				break
			}
		}
	}
	return out, nil
}

// holdsPhrase reports whether toks hold t's tokens one after the other.
func holdsPhrase(toks []tokenize.Token, t Term, stems *tokenize.Stems) bool {
	last := len(t.Tokens) - 1
	for i := 0; i+last < len(toks); i++ {
		j := 0
		for ; j <= last; j++ {
			stem := stems.Stem(toks[i+j].Folded)
			if j == last && t.Prefix {
				if !strings.HasPrefix(stem, t.Tokens[j].Stem) {
					break
				}
			} else if stem != t.Tokens[j].Stem {
				break
			}
		}
		if j > last {
			return true
		}
	}
	return false
}

// Holding returns the sections whose fields of mask hold term.
func (m *MemorySource) Holding(_ context.Context, term string, mask uint8) (map[int64]Bits, error) {
	l, ok := m.lists[term]
	if !ok {
		return map[int64]Bits{}, nil
	}
	ords, err := wordindex.InColumns(l, mask)
	if err != nil || len(ords) == 0 {
		return map[int64]Bits{}, err
	}
	b := NewBits(len(m.secs))
	for _, o := range ords {
		b.Add(o)
	}
	return map[int64]Bits{memoryDoc: b}, nil
}

// Titles returns the first limit sections, in order, whose title holds
// every one of terms.
func (m *MemorySource) Titles(ctx context.Context, terms []string, limit int) ([]Title, error) {
	if len(terms) == 0 || limit <= 0 || len(m.secs) == 0 {
		return nil, nil
	}
	var sets []Bits
	for _, t := range terms {
		held, err := m.Holding(ctx, t, 1) // the title's column
		if err != nil {
			return nil, err
		}
		b, ok := held[memoryDoc]
		if !ok {
			return nil, nil
		}
		sets = append(sets, b)
	}
	var out []Title
	for o := 0; o < len(m.secs) && len(out) < limit; o++ {
		if !slices.ContainsFunc(sets, func(b Bits) bool { return !b.Has(o) }) {
			out = append(out, Title{ID: m.secs[o].ID, Title: m.secs[o].Title})
		}
	}
	return out, nil
}

// Substrings returns the sections holding any of needles (lower case) in
// their title, path or literal text, with how often each field does.
func (m *MemorySource) Substrings(_ context.Context, needles []string) ([]Occurrences, error) {
	m.lowerOnce.Do(func() {
		m.lowTitle, m.lowPath, m.lit = make([]string, len(m.secs)), make([]string, len(m.secs)), make([]string, len(m.secs))
		for i, s := range m.secs {
			m.lowTitle[i], m.lowPath[i] = strings.ToLower(s.Title), strings.ToLower(s.Path)
			m.lit[i] = cmp.Or(s.Literal, strings.ToLower(s.Body))
		}
	})
	// The literal text is in normal form where one was given: the needle
	// is brought to it too.
	normal := make([]string, len(needles))
	for i, n := range needles {
		normal[i] = cmp.Or(normalize.Normal(n), n)
	}
	var out []Occurrences
	for o, s := range m.secs {
		oc := Occurrences{ID: s.ID, Ord: o}
		for i, n := range needles {
			oc.Title += strings.Count(m.lowTitle[o], n)
			oc.Path += strings.Count(m.lowPath[o], n)
			lit := n
			if s.Literal != "" {
				lit = normal[i]
			}
			oc.Body += strings.Count(m.lit[o], lit)
		}
		if oc.Title+oc.Path+oc.Body > 0 {
			out = append(out, oc)
		}
	}
	return out, nil
}

// Shapes returns the sections whose shape holds any of needles, with how
// often.
func (m *MemorySource) Shapes(_ context.Context, needles []string) ([]Occurrences, error) {
	return m.shapeCounts(needles, false), nil
}

// ScanShapes returns the sections whose shape holds every one of needles,
// with how often.
func (m *MemorySource) ScanShapes(_ context.Context, needles []string) ([]Occurrences, error) {
	return m.shapeCounts(needles, true), nil
}

func (m *MemorySource) shapeCounts(needles []string, every bool) []Occurrences {
	if len(needles) == 0 {
		return nil
	}
	m.shapeOnce.Do(func() {
		m.shapes = make([]string, len(m.secs))
		for i, s := range m.secs {
			m.shapes[i] = shape.Of(s.Body)
		}
	})
	var out []Occurrences
	for o, sh := range m.shapes {
		oc := Occurrences{ID: m.secs[o].ID, Ord: o}
		missing := false
		for _, n := range needles {
			c := strings.Count(sh, n)
			missing = missing || c == 0
			oc.Body += c
		}
		if oc.Body > 0 && !(every && missing) {
			out = append(out, oc)
		}
	}
	return out
}
