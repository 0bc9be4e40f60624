package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"

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
		sa, err := specdiff.Since(ctx, st.store, specdiff.SinceRequest{Language: in.Language, Doc: in.Doc,
			SectionID: in.SectionID, Query: in.Query, Notes: st.d.noteSet()})
		if err != nil {
			return SpecDiffOut{}, notStored(err, strings.TrimSpace(in.Language))
		}
		out := SpecDiffOut{Since: &sa}
		out.Language, out.Doc, out.Scope, out.Items = sa.Language, sa.Doc, sa.Scope, []specdiff.PageItem{}
		out.From.Version, out.To.Version = sa.Versions[0], sa.Versions[len(sa.Versions)-1]
		out.Summary = specdiff.Summary{Chapters: []specdiff.Chapter{}, Classes: map[string]int{}}
		out.Unchanged, out.Context = true, sa.Context
		return out, nil
	}
	ans, err := specdiff.Run(ctx, st.store, specdiff.Request{
		Language: in.Language, Doc: in.Doc, From: in.From, To: in.To,
		SectionID: in.SectionID, Query: in.Query, Class: in.Class, Offset: in.Offset, Limit: in.Limit,
		Notes: st.d.noteSet(),
	})
	return SpecDiffOut{Answer: ans}, notStored(err, strings.TrimSpace(in.Language))
}

// RenderSpecDiff is spec_diff's text content.
func RenderSpecDiff(out SpecDiffOut) string {
	if out.Since != nil {
		return RenderSince(*out.Since)
	}
	return RenderDiff(out.Answer)
}

// RenderDiff is a diff's text (spec_diff's and the diff resource's): the
// counts by class and chapter, then each section, rule changes first,
// with the release that made it when several were walked, its citation,
// and its sentences: ~ reworded with marks, + added, - removed, > moved.
func RenderDiff(a specdiff.Answer) string {
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
	fmt.Fprintf(&b, "%d added, %d removed, %d renamed, %d changed, %d unchanged; %s.\n", s.Added, s.Removed, s.Renamed, s.Changed, s.Unchanged, classCounts(s.Classes))
	for _, n := range a.Notices {
		fmt.Fprintf(&b, "(%s)\n", n)
	}
	if len(a.Steps) > 0 {
		b.WriteString("By release:")
		for i, st := range a.Steps {
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s %s", st.To, classCounts(st.Classes))
		}
		b.WriteString("\n")
	}
	if ed := editorialByChapter(s.Chapters); ed != "" && !strings.HasSuffix(a.Scope, " changes only") {
		fmt.Fprintf(&b, "Editorial only, by chapter: %s (class=editorial lists them).\n", ed)
	}
	several := len(a.Steps) > 0
	if len(a.Items) > 0 && a.Items[0].MoreSentences+len(a.Items[0].ShownSentences()) > 0 && a.Scope != "" && !strings.HasPrefix(a.Scope, "section ") {
		b.WriteString("Each section shows its most substantial changed sentence; (+N) counts the others: pass its section_id for them all.\n")
	}
	for i, it := range a.Items {
		fmt.Fprintf(&b, "\n%d. ", a.Offset+i+1)
		if several {
			b.WriteString(it.Release + ": ")
		}
		// The URL ends in the section id: the title says the rest.
		fmt.Fprintf(&b, "%s %s [%s] %s\n", it.Kind, it.Title, it.Class, it.URL)
		if it.Old != nil && (it.Old.SectionID != it.SectionID || it.Old.Title != it.Title) {
			fmt.Fprintf(&b, "   was %s (%s)\n", it.Old.Title, it.Old.SectionID)
		}
		if it.Old != nil && it.Old.URL != it.URL {
			fmt.Fprintf(&b, "   %s: %s\n", it.FromVersion(), it.Old.URL)
		}
		for _, sc := range it.ShownSentences() {
			switch sc.Kind {
			case specdiff.KindChanged:
				fmt.Fprintf(&b, "   ~ %s\n", sc.Text)
			case specdiff.KindRemoved:
				fmt.Fprintf(&b, "   - %s\n", sc.Text)
			case specdiff.KindAdded:
				fmt.Fprintf(&b, "   + %s\n", sc.Text)
			case specdiff.KindMoved:
				fmt.Fprintf(&b, "   > %s (moved from %s)\n", sc.Text, sc.From)
			}
		}
		for _, m := range it.MovedOut {
			fmt.Fprintf(&b, "   (%d sentences moved to %s)\n", m.Sentences, m.To)
		}
		if it.MoreSentences > 0 {
			fmt.Fprintf(&b, "   (+%d)\n", it.MoreSentences)
		}
		if it.Truncated {
			b.WriteString("   (too long to compare whole: the changes shown are those found within the bounds)\n")
		}
	}
	if a.Next > 0 {
		fmt.Fprintf(&b, "\n[%d–%d of %d sections that differ; more with offset=%d]\n", a.Offset+1, a.Next, a.Total, a.Next)
	}
	renderNotes(&b, a.Context, false)
	return b.String()
}

// classCounts says a count by class in page order: "3 rule, 1 editorial".
func classCounts(classes map[string]int) string {
	var parts []string
	for _, c := range specdiff.Classes {
		if n := classes[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// editorialByChapter: "Types 3, Statements 1", the chapters with editorial
// edits only.
func editorialByChapter(chapters []specdiff.Chapter) string {
	var parts []string
	for _, c := range chapters {
		if c.Editorial > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", cmp.Or(c.Title, c.ID), c.Editorial))
		}
	}
	return strings.Join(parts, ", ")
}

// RenderSince is a since answer's text: each section with its date and
// its rules, newest change last, each with the release and a citation.
func RenderSince(a specdiff.SinceAnswer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s since, over %s (a rule dated %s may be older), %s:\n", a.Language, a.Doc, strings.Join(a.Versions, ", "), a.Versions[0], a.Scope)
	for _, s := range a.Sections {
		fmt.Fprintf(&b, "\n%s (%s) %s\n", s.Title, s.SectionID, s.URL)
		fmt.Fprintf(&b, "   section since %s", s.Since)
		if s.SinceID != "" {
			fmt.Fprintf(&b, " (as %s)", s.SinceID)
		}
		if s.Removed != "" {
			fmt.Fprintf(&b, "; removed in %s", s.Removed)
		}
		fmt.Fprintf(&b, "; %d sentences as in %s\n", s.Unchanged, a.Versions[0])
		for _, r := range s.Rules {
			when := r.Since
			if r.Changed != "" && r.Changed != r.Since {
				when += ", changed " + r.Changed
			}
			if r.Removed != "" {
				when += ", removed " + r.Removed
			}
			if r.Moved != "" {
				when += ", moved from " + r.Moved
			}
			fmt.Fprintf(&b, "   %s [%s]: %s", when, r.Class, r.Text)
			if r.URL != "" && r.URL != s.URL {
				fmt.Fprintf(&b, " (%s)", r.URL)
			}
			b.WriteString("\n")
		}
		if s.MoreRules > 0 {
			fmt.Fprintf(&b, "   (%d more: pass section_id %s)\n", s.MoreRules, s.SectionID)
		}
	}
	renderNotes(&b, a.Context, false)
	return b.String()
}
