package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// SpecDiffIn asks what changed between two stored versions.
type SpecDiffIn struct {
	Language  string `json:"language" jsonschema:"language id"`
	Doc       string `json:"doc,omitempty" jsonschema:"when the language has several"`
	From      string `json:"from,omitempty" jsonschema:"older version; default: the one before to"`
	To        string `json:"to,omitempty" jsonschema:"newer version; default: the newest"`
	SectionID string `json:"section_id,omitempty" jsonschema:"one section (id or title): all its changed sentences"`
	Query     string `json:"query,omitempty" jsonschema:"only sections these words find, e.g. loop variables"`
	Offset    int    `json:"offset,omitempty" jsonschema:"pass next_offset"`
	Limit     int    `json:"limit,omitempty" jsonschema:"changed sections per page"`
}

func specDiffTool() Tool {
	return newTool(CategorySpec, bindSpec, mcp.Tool{
		Name:  "spec_diff",
		Title: "What changed between versions",
		Description: "What changed in a specification between two stored versions: sections added, removed, renamed, " +
			"changed, by chapter; changed sentences marked [-old-]{+new+}, both urls.",
		Annotations: readOnly(),
	}, func(s *jsonschema.Schema) {
		nonEmpty(s, "language", maxNameChars)
		for _, p := range []string{"doc", "from", "to"} {
			maxLen(s, p, maxNameChars)
		}
		maxLen(s, "section_id", maxPathChars)
		maxLen(s, "query", ftsquery.MaxQueryRunes)
		s.Properties["offset"].Minimum = jsonschema.Ptr(0.0)
		intRange(s, "limit", 1, specdiff.MaxLimit, specdiff.DefaultLimit)
	}, (*specTools).specDiff, RenderSpecDiff)
}

func (st *specTools) specDiff(ctx context.Context, in SpecDiffIn) (specdiff.Answer, error) {
	ans, err := specdiff.Run(ctx, st.store, specdiff.Request{
		Language: in.Language, Doc: in.Doc, From: in.From, To: in.To,
		SectionID: in.SectionID, Query: in.Query, Offset: in.Offset, Limit: in.Limit,
		Notes: st.d.noteSet(),
	})
	return ans, notStored(err, strings.TrimSpace(in.Language))
}

// RenderSpecDiff is spec_diff's text content (and the diff resource's): the counts, then each changed
// section with its sentences, - removed, + added, ~ reworded with marks.
func RenderSpecDiff(a specdiff.Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s %s → %s, %s: ", a.Language, a.Doc, a.From.Version, a.To.Version, a.Scope)
	if a.Unchanged {
		b.WriteString("nothing changed.\n")
		for _, n := range a.Notices {
			fmt.Fprintf(&b, "(%s)\n", n)
		}
		renderNotes(&b, a.Context, false)
		return b.String()
	}
	s := a.Summary
	fmt.Fprintf(&b, "%d added, %d removed, %d renamed, %d changed, %d unchanged.\n", s.Added, s.Removed, s.Renamed, s.Changed, s.Unchanged)
	for _, n := range a.Notices {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	if len(s.Chapters) > 1 {
		b.WriteString("By chapter:\n")
		for _, c := range s.Chapters {
			fmt.Fprintf(&b, "- %s: %s\n", cmp.Or(c.Title, c.ID), c.Counts())
		}
	}
	for i, it := range a.Items {
		fmt.Fprintf(&b, "\n%d. %s %s", a.Offset+i+1, it.Kind, it.Name())
		if it.Kind == specdiff.KindRenamed && it.TextChanged {
			b.WriteString(" (text changed too)")
		}
		b.WriteString("\n")
		if it.Old != nil {
			fmt.Fprintf(&b, "   %s: %s\n", a.From.Version, it.Old.URL)
		}
		if it.New != nil {
			fmt.Fprintf(&b, "   %s: %s\n", a.To.Version, it.New.URL)
		}
		for _, sc := range it.Sentences {
			switch sc.Kind {
			case specdiff.KindChanged:
				fmt.Fprintf(&b, "   ~ %s\n", sc.Marked)
			case specdiff.KindRemoved:
				fmt.Fprintf(&b, "   - %s\n", sc.Old)
			case specdiff.KindAdded:
				fmt.Fprintf(&b, "   + %s\n", sc.New)
			}
		}
		if it.MoreSentences > 0 {
			fmt.Fprintf(&b, "   (%d more changed sentences: pass its section_id)\n", it.MoreSentences)
		}
		if it.Truncated {
			b.WriteString("   (too long to compare whole: the changes shown are those found within the bounds)\n")
		}
	}
	if a.Next > 0 {
		fmt.Fprintf(&b, "\n[%d–%d of %d changed sections; more with offset=%d]\n", a.Offset+1, a.Next, a.Total, a.Next)
	}
	renderNotes(&b, a.Context, false)
	return b.String()
}
