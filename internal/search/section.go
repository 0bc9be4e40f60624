package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
)

// ExcerptChars is how much of an excerpt_only section may be returned.
const ExcerptChars = 1200

// MaxPageChars bounds one page of section text.
const MaxPageChars = 100_000

// SectionRequest asks for one section, or one page of it.
type SectionRequest struct {
	Language  string // "" finds the id in whichever language has it, if only one does
	Doc       string
	Version   string
	SectionID string // the section's id; its title also works
	// WithSubsections appends the text of every subsection, each under its
	// heading, so a chapter reads as a whole.
	WithSubsections bool
	Offset          int // first character (rune) to return
	MaxChars        int // at most this many characters; 0 means all that is available
	// Notes are the context notes in force; the answer carries those
	// covering its document. nil: none.
	Notes *contextnote.Set
}

// Child is a direct subsection.
type Child struct {
	SectionID string `json:"section_id" jsonschema:"id to pass to get_section"`
	Title     string `json:"title" jsonschema:"the subsection's heading"`
}

// SectionResult is one page of a section's text with its citation.
type SectionResult struct {
	Citation Citation `json:"citation" jsonschema:"where the text comes from; cite its url"`
	Text     string   `json:"text" jsonschema:"the section text from offset, at most max_chars characters"`
	Offset   int      `json:"offset" jsonschema:"character offset of text within the section"`
	// NextOffset is set only when more text can be read with another call.
	NextOffset        int                   `json:"next_offset,omitempty" jsonschema:"pass as offset to read on; absent when nothing more can be read"`
	IsTruncated       bool                  `json:"is_truncated" jsonschema:"true when the section has text after this page, readable or not"`
	TotalChars        int                   `json:"total_chars" jsonschema:"characters in the whole section, whether or not they may be returned"`
	AvailableChars    int                   `json:"available_chars" jsonschema:"characters that may be returned: total_chars, or the excerpt length for excerpt_only documents"`
	SourcePolicy      string                `json:"source_policy" jsonschema:"full_text, or excerpt_only when the licence allows only an excerpt"`
	FulltextAvailable bool                  `json:"fulltext_available" jsonschema:"false for excerpt_only documents: read the rest at the citation url"`
	Notice            string                `json:"notice,omitempty" jsonschema:"why text was withheld, when it was"`
	Children          []Child               `json:"children" jsonschema:"direct subsections, in document order"`
	Context           []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's context notes on this document"`
}

// Section reads one section. Errors: apperr.NotFound with the nearest ids,
// apperr.InvalidArgument when the id is ambiguous across languages or the
// offset or max_chars is out of range.
func Section(ctx context.Context, store *db.DB, req SectionRequest) (SectionResult, error) {
	if req.MaxChars < 0 || req.MaxChars > MaxPageChars {
		return SectionResult{}, apperr.New(apperr.InvalidArgument, fmt.Sprintf("use 1 to %d, and read on with next_offset", MaxPageChars),
			"max_chars %d is out of range", req.MaxChars)
	}
	if req.Offset < 0 {
		return SectionResult{}, apperr.New(apperr.InvalidArgument, "offsets start at 0", "offset %d is negative", req.Offset)
	}
	id := strings.TrimSpace(req.SectionID)
	if id == "" {
		return SectionResult{}, apperr.New(apperr.InvalidArgument, "pass a section_id from search results",
			"empty section id")
	}
	row, err := store.Section(ctx, db.Scope{Language: req.Language, Doc: req.Doc, Version: req.Version}, id)
	if ae, ok := errors.AsType[*apperr.Error](err); ok && ae.Code == apperr.NotFound && strings.HasPrefix(ae.Message, "no section ") && !strings.Contains(ae.Hint, "search for") {
		// Not an id: perhaps a topic. Say how to find its sections, in
		// words every caller knows (the terminal and the tools alike).
		return SectionResult{}, apperr.Wrap(err, apperr.NotFound, ae.Hint+fmt.Sprintf("; or search for %s to find its sections", apperr.Quote(id)), "%s", ae.Message)
	}
	if err != nil {
		return SectionResult{}, err
	}
	subs, err := store.Subsections(ctx, row)
	if err != nil {
		return SectionResult{}, err
	}
	res := SectionResult{
		Citation: Citation{Language: row.Language, Doc: row.Doc, Version: row.Version, SectionID: row.SectionID,
			Title: row.Title, SectionPath: row.Path, URL: row.URL},
		SourcePolicy:      row.SourcePolicy,
		FulltextAvailable: row.SourcePolicy == db.FullText,
		Children:          []Child{},
	}
	var text strings.Builder
	text.WriteString(row.Text)
	for _, s := range subs {
		if s.ParentID == row.SectionID {
			res.Children = append(res.Children, Child{SectionID: s.SectionID, Title: s.Title})
		}
		if req.WithSubsections {
			text.WriteString("\n\n" + strings.Repeat("#", max(1, s.Level-row.Level+1)) + " " + s.Title + "\n\n" + s.Text)
		}
	}
	full := []rune(strings.TrimSpace(text.String()))
	res.TotalChars = len(full)
	res.AvailableChars = res.TotalChars
	if !res.FulltextAvailable {
		res.AvailableChars = min(res.TotalChars, ExcerptChars)
	}
	if req.Offset > res.AvailableChars {
		return SectionResult{}, apperr.New(apperr.InvalidArgument,
			fmt.Sprintf("use an offset from 0 to %d", res.AvailableChars),
			"offset %d is past the end of the %d characters available in %q", req.Offset, res.AvailableChars, row.SectionID)
	}
	end := res.AvailableChars
	if req.MaxChars > 0 && req.Offset+req.MaxChars < end {
		end = pageEnd(full, req.Offset, req.Offset+req.MaxChars)
		res.NextOffset = end
	}
	res.Offset = req.Offset
	res.Text = string(full[req.Offset:end])
	res.IsTruncated = end < res.TotalChars
	res.Context = coverCitations(req.Notes, []Citation{res.Citation})
	if end == res.AvailableChars && res.AvailableChars < res.TotalChars {
		res.Notice = fmt.Sprintf("excerpt_only: the licence allows the first %d of %d characters; read the rest at %s",
			res.AvailableChars, res.TotalChars, row.URL)
	}
	return res, nil
}

// pageEnd moves a page's end back to just after a line break or space, when
// one is in the page's last fifth, so pages do not split words. It never
// returns less than limit-len/5, so paging always advances.
func pageEnd(text []rune, start, limit int) int {
	floor := limit - (limit-start)/5
	for i := limit; i > floor; i-- {
		if unicode.IsSpace(text[i-1]) {
			return i
		}
	}
	return limit
}
