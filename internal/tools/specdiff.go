package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// SpecDiffIn asks what changed between two stored versions, or (since)
// when the rules of a section came in over every stored version. since is
// a mode, not a tool of its own: every tool listed is paid for in the
// model's context (internal/mcpserver/size_test.go).
type SpecDiffIn struct {
	Language  string `json:"language" jsonschema:"language id"`
	Doc       string `json:"doc,omitempty" jsonschema:"when the language has several"`
	From      string `json:"from,omitempty" jsonschema:"older version; default: the one before to"`
	To        string `json:"to,omitempty" jsonschema:"newer version; default: newest"`
	SectionID string `json:"section_id,omitempty" jsonschema:"one section (id or title), all its sentences"`
	Query     string `json:"query,omitempty" jsonschema:"only sections these words find"`
	Class     string `json:"class,omitempty" jsonschema:"only this class"`
	Since     bool   `json:"since,omitempty" jsonschema:"when each rule of section_id or query came in"`
	Offset    int    `json:"offset,omitempty" jsonschema:"pass next_offset"`
	Limit     int    `json:"limit,omitempty" jsonschema:"sections per page; default: 8 KB's worth"`
}

// SpecDiffOut is a diff, or in since mode the dates.
type SpecDiffOut struct {
	specdiff.Answer
	Since *specdiff.SinceAnswer `json:"since,omitempty" jsonschema:"since mode: each section's rules dated"`
}

func specDiffTool() Tool {
	return newTool(CategorySpec, bindSpec, mcp.Tool{
		Name:  "spec_diff",
		Title: "What changed between versions",
		Description: "What changed in a specification between stored versions, rule changes first, with the release that made each; " +
			"sentences marked [-old-]{+new+}.",
		Annotations: readOnly(),
	}, func(s *jsonschema.Schema) {
		nonEmpty(s, "language", maxNameChars)
		for _, p := range []string{"doc", "from", "to"} {
			maxLen(s, p, maxNameChars)
		}
		maxLen(s, "section_id", maxPathChars)
		maxLen(s, "query", ftsquery.MaxQueryRunes)
		s.Properties["class"].Enum = []any{specdiff.ClassRule, specdiff.ClassExample, specdiff.ClassMoved, specdiff.ClassEditorial}
		s.Properties["offset"].Minimum = jsonschema.Ptr(0.0)
		// No default: a page without a limit is bounded in bytes (about
		// 8 KB), one with a limit holds that many sections.
		intRange(s, "limit", 1, specdiff.MaxLimit, 0)
	}, (*specTools).specDiff, RenderSpecDiff)
}

func (st *specTools) specDiff(ctx context.Context, in SpecDiffIn) (SpecDiffOut, error) {
	if in.Since {
		if in.From != "" || in.To != "" || in.Class != "" || in.Offset != 0 {
			return SpecDiffOut{}, apperr.New(apperr.InvalidArgument, "since walks every stored version: give language, section_id or query, and doc if needed",
				"since takes no from, to, class or offset")
		}
		sa, err := st.svc.Since(ctx, specdiff.SinceRequest{Language: in.Language, Doc: in.Doc,
			SectionID: in.SectionID, Query: in.Query})
		if err != nil {
			return SpecDiffOut{}, err
		}
		out := SpecDiffOut{Since: &sa}
		out.Language, out.Doc, out.Scope, out.Items = sa.Language, sa.Doc, sa.Scope, []specdiff.PageItem{}
		out.From.Version, out.To.Version = sa.Versions[0], sa.Versions[len(sa.Versions)-1]
		out.Summary = specdiff.Summary{Chapters: []specdiff.Chapter{}, Classes: map[string]int{}}
		out.Unchanged, out.Context = true, sa.Context
		return out, nil
	}
	ans, err := st.svc.Diff(ctx, specdiff.Request{
		Language: in.Language, Doc: in.Doc, From: in.From, To: in.To,
		SectionID: in.SectionID, Query: in.Query, Class: in.Class, Offset: in.Offset, Limit: in.Limit,
	})
	return SpecDiffOut{Answer: ans}, err
}

// RenderSpecDiff is spec_diff's text content.
func RenderSpecDiff(out SpecDiffOut) string {
	if out.Since != nil {
		return specdiff.SinceText(*out.Since)
	}
	return specdiff.Text(out.Answer)
}
