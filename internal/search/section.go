package search

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/db"
)

// ExcerptChars is how much of an excerpt_only section may be returned.
const ExcerptChars = 1200

// SectionRequest asks for one section.
type SectionRequest struct {
	Language  string // "" finds the id in whichever language has it, if only one does
	Doc       string
	Version   string
	SectionID string // the section's id; its title also works
	// WithSubsections appends the text of every subsection, each under its
	// heading, so a chapter reads as a whole.
	WithSubsections bool
}

// Child is a direct subsection.
type Child struct {
	SectionID string `json:"section_id"`
	Title     string `json:"title"`
}

// SectionResult is one section's text with its citation.
type SectionResult struct {
	Citation          Citation `json:"citation"`
	Text              string   `json:"text"`
	TotalChars        int      `json:"total_chars"` // runes in the full text, before any excerpt cut
	IsTruncated       bool     `json:"is_truncated"`
	SourcePolicy      string   `json:"source_policy"`
	FulltextAvailable bool     `json:"fulltext_available"`
	Children          []Child  `json:"children"`
}

// Section reads one section. Errors: apperr.NotFound with the nearest ids,
// apperr.InvalidArgument when the id is ambiguous across languages.
func Section(ctx context.Context, store *db.DB, req SectionRequest) (SectionResult, error) {
	row, err := store.Section(ctx, db.Scope{Language: req.Language, Doc: req.Doc, Version: req.Version}, strings.TrimSpace(req.SectionID))
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
	res.Text = strings.TrimSpace(text.String())
	res.TotalChars = utf8.RuneCountInString(res.Text)
	if !res.FulltextAvailable && res.TotalChars > ExcerptChars {
		res.Text = string([]rune(res.Text)[:ExcerptChars])
		res.IsTruncated = true
	}
	return res, nil
}
