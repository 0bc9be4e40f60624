package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/snippet"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Limits of a comparison.
const (
	DefaultComparePerDoc = 3
	MaxComparePerDoc     = 10
	MaxCompareLanguages  = 10
)

// CompareRequest is one concept across languages.
type CompareRequest struct {
	Concept   string
	Also      []string // other phrasings, as in Request
	Languages []string // nil: every stored language
	PerDoc    int      // hits per document; 0: DefaultComparePerDoc
	Snippet   snippet.Options
	Semantic  Semantic
	Lexical   bool // keep the semantic channel out (eval compares the two)
	Stems     *tokenize.Stems
	Notes     *contextnote.Set
}

// CompareColumn is one document's best sections for the concept.
type CompareColumn struct {
	Language    string     `json:"language" jsonschema:"language id"`
	Doc         string     `json:"doc" jsonschema:"document id within the language"`
	DisplayName string     `json:"display_name" jsonschema:"the document's name"`
	Version     string     `json:"version" jsonschema:"the version searched: the latest complete one"`
	Hits        []Citation `json:"results" jsonschema:"its best sections for the concept, best first; empty when none matches"`
	Corrections []string   `json:"corrections,omitempty" jsonschema:"query words this document lacks, and the spelling searched instead (word→to)"`
	// Absent says that no section of the document is about the concept
	// (rank.Fits of Evidence): the language lacks the feature, or the
	// document does not cover it. Hits are then the nearest sections, not
	// answers; AbsentNote says so in words.
	Absent bool `json:"absent,omitempty" jsonschema:"no section is about the concept; results are only the nearest"`
	// Evidence is how much of the concept the document's best sections
	// hold, from 0 to 1, in its own statistics (rank.Result.Evidence);
	// unlike a hit's score it compares across documents and concepts.
	Evidence float64 `json:"evidence" jsonschema:"how much of the concept its best sections hold, 0 to 1"`
}

// maxNearest is how many of an absent column's hits its note names.
const maxNearest = 2

// AbsentNote is what an absent column says in words, "" for a column that
// is not absent: "The Rust Reference has no section that clearly matches
// "goto"; nearest: Loop labels (expressions/loop-expr#loop-labels)." It says
// no more than the evidence does: a weak match, which half the time is a
// feature the language lacks (fixtures/gold/compare-absent.README.md).
func (c CompareColumn) AbsentNote(concept string) string {
	if !c.Absent {
		return ""
	}
	name := cmp.Or(c.DisplayName, c.Language+"/"+c.Doc)
	var b strings.Builder
	fmt.Fprintf(&b, "%s has no section that clearly matches %q", name, concept)
	if len(c.Hits) == 0 {
		b.WriteString(".")
		return b.String()
	}
	b.WriteString("; nearest: ")
	for i, h := range c.Hits[:min(maxNearest, len(c.Hits))] {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", h.Title, h.SectionID)
	}
	b.WriteString(".")
	return b.String()
}

// CompareResult aligns the documents' answers.
type CompareResult struct {
	Concept  string                `json:"concept" jsonschema:"the concept as understood"`
	Columns  []CompareColumn       `json:"columns" jsonschema:"one per document, in language order"`
	Notices  []string              `json:"notices,omitempty" jsonschema:"documents with no section for the concept, and other gaps"`
	Context  []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on these documents, each once; hits are numbered across the columns in order"`
	Searched []string              `json:"searched" jsonschema:"the languages compared"`
}

// Compare answers one concept in each language's documents: each document
// searched alone, so each is ranked by its own statistics, and the columns
// aligned in one answer. Errors: apperr.InvalidArgument for a bad concept,
// phrasing, limit or language list; apperr.NotFound for a language with
// nothing stored.
func Compare(ctx context.Context, store *db.DB, req CompareRequest) (CompareResult, error) {
	concept := strings.TrimSpace(req.Concept)
	if concept == "" {
		return CompareResult{}, apperr.New(apperr.InvalidArgument, "name the concept in a few words, e.g. integer overflow", "the concept is empty")
	}
	if req.PerDoc == 0 {
		req.PerDoc = DefaultComparePerDoc
	}
	if req.PerDoc < 1 || req.PerDoc > MaxComparePerDoc {
		return CompareResult{}, apperr.New(apperr.InvalidArgument, "use 1 to 10 sections per document", "per_language %d is out of range", req.PerDoc)
	}
	if len(req.Languages) > MaxCompareLanguages {
		return CompareResult{}, apperr.New(apperr.InvalidArgument, "compare at most 10 languages at once", "%d languages given", len(req.Languages))
	}
	langs, err := Languages(ctx, store)
	if err != nil {
		return CompareResult{}, err
	}
	stored := map[string]Language{}
	var ids []string
	for _, l := range langs {
		stored[l.Language] = l
		ids = append(ids, l.Language)
	}
	wanted := ids
	if len(req.Languages) > 0 {
		wanted = nil
		for _, l := range req.Languages {
			l = strings.TrimSpace(l)
			if _, ok := stored[l]; !ok {
				return CompareResult{}, apperr.New(apperr.NotFound, "stored: "+strings.Join(ids, ", ")+"; add one with langspec ingest LANGUAGE",
					"no language %q is stored", l)
			}
			if !slices.Contains(wanted, l) {
				wanted = append(wanted, l)
			}
		}
	}
	res := CompareResult{Concept: concept, Columns: []CompareColumn{}, Searched: wanted}
	var targets []contextnote.Target
	for _, l := range wanted {
		for _, d := range stored[l].Docs {
			if d.LatestVersion == "" {
				continue // no complete version: never searched by default
			}
			r, err := Search(ctx, store, Request{Query: concept, Also: req.Also, Language: l, Doc: d.Doc, Limit: req.PerDoc,
				Snippet: req.Snippet, Semantic: req.Semantic, Lexical: req.Lexical, Stems: req.Stems})
			if err != nil {
				return CompareResult{}, err
			}
			col := CompareColumn{Language: l, Doc: d.Doc, DisplayName: d.DisplayName, Version: d.LatestVersion, Hits: r.Hits,
				Absent: !rank.Fits(r.Evidence, len(req.Also)), Evidence: math.Round(r.Evidence*1000) / 1000}
			if col.Hits == nil {
				col.Hits = []Citation{}
			}
			for _, c := range r.Corrections {
				col.Corrections = append(col.Corrections, c.Word+"→"+c.To)
			}
			if len(r.Hits) == 0 {
				res.Notices = append(res.Notices, l+"/"+d.Doc+": no section matches; try other words in also")
			} else if note := col.AbsentNote(concept); note != "" {
				res.Notices = append(res.Notices, note)
			}
			res.Notices = append(res.Notices, r.Notices...)
			for range r.Hits {
				targets = append(targets, contextnote.Target{Language: l, Doc: d.Doc})
			}
			res.Columns = append(res.Columns, col)
		}
	}
	res.Context = req.Notes.Cover(targets)
	return res, nil
}
