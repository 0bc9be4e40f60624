package rank

import (
	"context"

	"github.com/langspec/langspec/internal/rank/wordindex"
)

// What the engine reads of a corpus. The engine declares it; internal/db
// implements it for the spec sections of a scope (db.Scoped: the store
// stores and reads — typed terms in, rows and postings out), and a
// MemorySource for a corpus held in memory (a manual's nodes). Every score
// is worked out here.

// Source is one corpus in one scope.
type Source interface {
	// Counts says how many sections hold each of the words (folded), and
	// how many sections there are.
	Counts(ctx context.Context, words []string) (WordCounts, error)
	// Vocabulary is every folded word of the corpus with its document
	// frequency, for typo correction; it is asked for only when a word is
	// missing.
	Vocabulary(ctx context.Context) (*Vocabulary, error)
}

// SectionSource is a corpus the engine ranks from its word postings and
// texts — what the store keeps of spec sections (db.Scoped), or what a
// MemorySource builds of a manual: the word postings and layouts of its
// documents, the sections holding a phrase, the occurrences of literals
// and shapes, titles. A document is one stored version of one
// specification (a snapshot), or a manual, named by its id; a section is
// named by its row id, and within its document by its ordinal (its place
// in the document's layout).
type SectionSource interface {
	Source
	// Layouts are the word layouts of the scope's documents, by document.
	Layouts(ctx context.Context) (map[int64]*wordindex.Snapshot, error)
	// Postings returns the posting lists of index terms (porter stems of
	// folded words, as the word index stores them) by term, then by
	// document; a document none of whose sections holds a term has no
	// entry under it. The lists are the store's: read, never changed.
	Postings(ctx context.Context, terms []string) (map[string]map[int64]wordindex.List, error)
	// PrefixTerms are the index terms of the scope's documents that start
	// with prefix (the stem of a folded word: FTS5's porter tokenizer stems
	// a prefix too), in order, as FTS5 expands a prefix.
	PrefixTerms(ctx context.Context, prefix string) ([]string, error)
	// Phrase returns the sections holding t as a phrase — its words next
	// to each other, in order, the last one a prefix when t is — as
	// ascending ordinals by document.
	Phrase(ctx context.Context, t Term) (map[int64][]int, error)
	// Within is, for a scope that keeps part of its documents (a path
	// filter), the sections it keeps as ascending ordinals by document;
	// nil when it keeps its documents whole.
	Within(ctx context.Context) (map[int64][]int, error)
	// Holding returns the sections whose fields of mask (a bit a field,
	// in SectionFields' order) hold term (an index term), by document; a
	// document none of whose sections does has no entry.
	Holding(ctx context.Context, term string, mask uint8) (map[int64]Bits, error)
	// Titles returns the sections of the scope (a path filter included)
	// whose title holds every one of terms (index terms) — the first
	// limit of each document, in document order — with their titles.
	Titles(ctx context.Context, terms []string, limit int) ([]Title, error)
	// Substrings returns the sections holding any of needles (lower case,
	// three runes or more) as written in their title, path or text, case
	// aside, each with how often each of those fields holds them, summed
	// over the needles.
	Substrings(ctx context.Context, needles []string) ([]Occurrences, error)
	// Shapes returns the sections whose shape (text/shape) holds any of
	// needles, each of three runes or more, with how often.
	Shapes(ctx context.Context, needles []string) ([]Occurrences, error)
	// ScanShapes returns the sections whose shape holds every one of
	// needles, of any length, with how often. It reads the shape of every
	// section in scope: it is meant for shapes too short for the index
	// Shapes reads ("::", ":=").
	ScanShapes(ctx context.Context, needles []string) ([]Occurrences, error)
}

// Posting is a section a channel found, with the channel's score (higher is
// better; comparable only within one channel).
type Posting struct {
	ID    int64 // the section's row id
	Score float64
}

// WordCounts are how many sections of a scope hold each of some words, and
// how many sections the scope has.
type WordCounts struct {
	DF       map[string]int
	Sections int
}

// Bits is a set of a document's sections, a bit an ordinal: one read says
// whether a section is in it, where a search through a list of ordinals
// reads a cache line a step.
type Bits []uint64

// NewBits is an empty set for a document of n sections.
func NewBits(n int) Bits { return make(Bits, (n+63)/64) }

// Add puts the section of ordinal ord in b.
func (b Bits) Add(ord int) { b[ord>>6] |= 1 << (ord & 63) }

// Has reports whether b holds the section of ordinal ord.
func (b Bits) Has(ord int) bool { return ord>>6 < len(b) && b[ord>>6]&(1<<(ord&63)) != 0 }

// Title is a section's title, by row id.
type Title struct {
	ID    int64
	Title string
}

// Occurrences is a section holding what a channel looked for, and how
// often in each of its fields: for substrings in its title, path and
// text, for shapes in its text (a section's shape is its text's).
type Occurrences struct {
	ID                int64
	Ord               int // the section's place in its document: of equal scores, the earlier first
	Title, Path, Body int
}

// Field names a field of an index, for Weights.Fields.
type Field string

// The fields of the indexes: a spec section's title, path (its headings
// from the top of the document), text and in-link anchors (the texts of
// links into it from elsewhere in its document). A manual node's title,
// file name and text are its title, path and body (MemorySection).
const (
	FieldTitle   Field = "title"
	FieldPath    Field = "section_path"
	FieldBody    Field = "body"
	FieldAnchors Field = "anchors"
)

// SectionFields are the fields of a spec section's word postings, in their
// column order: the order internal/db writes them in (wordindex.Builder)
// and the order of the weights the engine scores them with.
func SectionFields() [wordindex.Columns]Field {
	return [wordindex.Columns]Field{FieldTitle, FieldPath, FieldBody, FieldAnchors}
}
