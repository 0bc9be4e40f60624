package tools

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/search"
)

// searchSnippetChars is search_spec's default snippet window: about 160
// characters as shown, with the marks and the ellipses. With one window a
// hit, ten hits are about 1,600 characters of snippet; a caller that wants
// more asks for snippet_chars.
const searchSnippetChars = 140

// SearchSpecOut is search_spec's answer. What the hits of one document share
// (language, doc, version) is said once, in documents; each hit carries
// what is its own, its whole citable URL included: a URL left as a suffix
// of a base that changes from one search to the next sent models to
// get_section for a URL to cite (issue 49). The snippets are in the
// text content, which every client shows the model; the structured copy,
// which programs (and batch) read for ids and URLs, has them, the scores
// and the channels run only with verbose — ten snippets twice were half of
// an answer.
type SearchSpecOut struct {
	Query       string                `json:"query" jsonschema:"the query as understood"`
	Corrections []rank.Correction     `json:"corrections,omitempty" jsonschema:"query words the documents do not hold, and the spelling searched as well"`
	Documents   []SearchDocument      `json:"documents" jsonschema:"the documents the results come from"`
	Results     []SearchHit           `json:"results" jsonschema:"ranked sections, best first"`
	Channels    []string              `json:"channels,omitempty" jsonschema:"ranking channels run (verbose)"`
	Notices     []string              `json:"notices,omitempty" jsonschema:"what the answer lacks, e.g. the semantic channel when its endpoint failed"`
	Context     []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on the results' documents, each once, with the results it covers"`
}

// SearchDocument is one document some results come from.
type SearchDocument struct {
	ID       string `json:"id" jsonschema:"language/doc"`
	Language string `json:"language" jsonschema:"language id"`
	Doc      string `json:"doc" jsonschema:"document id within the language"`
	Version  string `json:"version" jsonschema:"version the text comes from"`
}

// SearchHit is one ranked section.
type SearchHit struct {
	SectionID string   `json:"section_id" jsonschema:"stable anchor; pass to get_section"`
	Title     string   `json:"title" jsonschema:"the section heading"`
	Path      string   `json:"path,omitempty" jsonschema:"the headings above it, joined by ' > '"`
	Document  string   `json:"document,omitempty" jsonschema:"its document's id, when the results come from several"`
	URL       string   `json:"url" jsonschema:"its canonical URL, to cite"`
	Matched   []string `json:"matched" jsonschema:"channels that found it: words, title, anchors, phrase, typo:WORD, literal (code as typed), symbol (code of the same shape)"`
	Snippet   string   `json:"snippet,omitempty" jsonschema:"text around the matched words, marked **like this** (verbose; always in the text content)"`
	Score     *float64 `json:"score,omitempty" jsonschema:"fused relevance, higher is better (verbose)"`

	text string // the snippet for the text content
}

// compactSearch turns a search result into search_spec's answer.
func compactSearch(res search.Result, verbose bool) SearchSpecOut {
	out := SearchSpecOut{Query: res.Query, Corrections: res.Corrections, Documents: []SearchDocument{}, Results: []SearchHit{}, Notices: res.Notices, Context: res.Context}
	if verbose {
		out.Channels = res.Channels
	}
	byID := map[string]int{}
	for _, h := range res.Hits {
		id := h.Language + "/" + h.Doc
		if _, ok := byID[id]; !ok {
			byID[id] = len(out.Documents)
			out.Documents = append(out.Documents, SearchDocument{ID: id, Language: h.Language, Doc: h.Doc, Version: h.Version})
		}
	}
	for _, h := range res.Hits {
		id := h.Language + "/" + h.Doc
		hit := SearchHit{
			SectionID: h.SectionID,
			Title:     h.Title,
			Path:      parentPath(h.SectionPath, h.Title),
			URL:       h.URL,
			Matched:   h.Matched,
			text:      h.Snippet,
		}
		if len(out.Documents) > 1 {
			hit.Document = id
		}
		if verbose {
			score := h.Score
			hit.Score, hit.Snippet = &score, h.Snippet
		}
		out.Results = append(out.Results, hit)
	}
	return out
}

// parentPath is path without its last heading when that is the title: the
// title is said beside it already.
func parentPath(path, title string) string {
	if path == title {
		return ""
	}
	if p, ok := strings.CutSuffix(path, " > "+title); ok {
		return p
	}
	return path
}

// renderSearch is the text content: a line a document, then two a hit.
// A hit's title is left out when it is its section_id with spaces; its URL
// is always there, whole, ready to cite.
func renderSearch(out SearchSpecOut) string {
	var b strings.Builder
	for _, c := range out.Corrections {
		fmt.Fprintf(&b, "(searched %q as %q too)\n", c.Word, c.To)
	}
	for _, n := range out.Notices {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	if len(out.Results) == 0 {
		fmt.Fprintf(&b, "No sections match %q. Try other or fewer words, another language, no filters, or add phrasings in also.", out.Query)
		return b.String()
	}
	b.WriteString("Each result: section_id, [title], url, path, matched channels.\n")
	for _, d := range out.Documents {
		fmt.Fprintf(&b, "%s %s\n", d.ID, d.Version)
	}
	for i, h := range out.Results {
		fmt.Fprintf(&b, "%d. %s", i+1, h.SectionID)
		if strings.ReplaceAll(h.Title, " ", "_") != h.SectionID {
			b.WriteString(" [" + h.Title + "]")
		}
		if h.Document != "" {
			b.WriteString(" " + h.Document)
		}
		b.WriteString(" " + h.URL)
		if h.Path != "" {
			b.WriteString(" · " + h.Path)
		}
		b.WriteString(" · " + strings.Join(h.Matched, ","))
		if h.Score != nil {
			b.WriteString(" · " + strconv.FormatFloat(*h.Score, 'f', 3, 64))
		}
		b.WriteString("\n   " + h.text + "\n")
	}
	if len(out.Channels) > 0 {
		fmt.Fprintf(&b, "channels: %s\n", strings.Join(out.Channels, ","))
	}
	contextnote.WriteText(&b, out.Context, true)
	return b.String()
}
