package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/snippet"
)

// CompareIn is one concept across languages.
type CompareIn struct {
	Concept     string   `json:"concept" jsonschema:"e.g. integer overflow"`
	Also        []string `json:"also,omitempty" jsonschema:"up to 4 rephrasings in each language's terms"`
	Languages   []string `json:"languages,omitempty" jsonschema:"omit for all stored"`
	PerLanguage int      `json:"per_language,omitempty" jsonschema:"sections per document"`
}

// CompareOut is compare's answer: a column a document, each ranked by its
// own statistics. Snippets are in the text content, as search_spec's.
type CompareOut struct {
	Concept string                `json:"concept" jsonschema:"the concept as understood"`
	Columns []CompareColumnOut    `json:"columns" jsonschema:"one per document"`
	Notices []string              `json:"notices,omitempty" jsonschema:"documents with no matching section, and other gaps"`
	Context []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on these documents, each once; hits numbered across the columns"`
}

// CompareColumnOut is one document's best sections.
type CompareColumnOut struct {
	Language string      `json:"language" jsonschema:"language id"`
	Doc      string      `json:"doc" jsonschema:"document id"`
	Version  string      `json:"version" jsonschema:"version searched"`
	Results  []SearchHit `json:"results" jsonschema:"best first; pass section_id to get_section"`
	Absent   bool        `json:"absent,omitempty" jsonschema:"no section is about the concept; results are the nearest"`
}

// compareSnippetChars keeps a comparison of three languages about the size
// of one search answer.
const compareSnippetChars = 120

func compareTool() Tool {
	return newTool(CategorySpec, bindSpec, mcp.Tool{
		Name:  "compare",
		Title: "Compare a concept across languages",
		Description: "One concept in several languages' specifications (integer overflow in Go, Rust, Python): " +
			"each document's best sections side by side, with snippets and urls. Add each language's terms in also.",
		Annotations: readOnly(),
	}, func(s *jsonschema.Schema) {
		nonEmpty(s, "concept", ftsquery.MaxQueryRunes)
		s.Properties["also"].MaxItems = jsonschema.Ptr(search.MaxAlso)
		s.Properties["also"].Items.MaxLength = jsonschema.Ptr(ftsquery.MaxQueryRunes)
		s.Properties["languages"].MaxItems = jsonschema.Ptr(search.MaxCompareLanguages)
		s.Properties["languages"].Items = &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(maxNameChars)}
		intRange(s, "per_language", 1, search.MaxComparePerDoc, search.DefaultComparePerDoc)
	}, (*specTools).compare, renderCompare)
}

func (st *specTools) compare(ctx context.Context, in CompareIn) (CompareOut, error) {
	res, err := st.svc.Compare(ctx, search.CompareRequest{
		Concept: in.Concept, Also: in.Also, Languages: in.Languages, PerDoc: in.PerLanguage,
		Snippet: snippet.Options{Chars: compareSnippetChars, Windows: 1, Mark: snippet.Markdown},
	})
	if err != nil {
		return CompareOut{}, err
	}
	return compactCompare(res), nil
}

// compactCompare shapes each column as search_spec shapes its answer.
func compactCompare(res search.CompareResult) CompareOut {
	out := CompareOut{Concept: res.Concept, Columns: []CompareColumnOut{}, Notices: res.Notices, Context: res.Context}
	for _, col := range res.Columns {
		s := compactSearch(search.Result{Hits: col.Hits}, false)
		c := CompareColumnOut{Language: col.Language, Doc: col.Doc, Version: col.Version, Results: s.Results, Absent: col.Absent}
		out.Columns = append(out.Columns, c)
	}
	return out
}

func renderCompare(out CompareOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q in %d documents; each result: section_id, [title], url, matched channels.\n", out.Concept, len(out.Columns))
	for _, n := range out.Notices {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	for _, col := range out.Columns {
		fmt.Fprintf(&b, "\n## %s/%s %s\n", col.Language, col.Doc, col.Version)
		if col.Absent && len(col.Results) > 0 {
			// The notices above say it in full; the column says what its
			// list is.
			b.WriteString("(no section is about the concept; the nearest:)\n")
		}
		for i, h := range col.Results {
			fmt.Fprintf(&b, "%d. %s", i+1, h.SectionID)
			if strings.ReplaceAll(h.Title, " ", "_") != h.SectionID {
				b.WriteString(" [" + h.Title + "]")
			}
			b.WriteString(" " + h.URL)
			b.WriteString(" · " + strings.Join(h.Matched, ","))
			b.WriteString("\n   " + h.text + "\n")
		}
	}
	contextnote.WriteText(&b, out.Context, true)
	return b.String()
}
