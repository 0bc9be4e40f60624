package specdiff

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/langspec/langspec/internal/contextnote"
)

// Text is a diff's text (spec_diff's and the diff resource's): the
// counts by class and chapter, then each section, rule changes first,
// with the release that made it when several were walked, its citation,
// and its sentences: ~ reworded with marks, + added, - removed, > moved.
func Text(a Answer) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%s %s → %s, %s: ", a.Language, a.Doc, a.From.Version, a.To.Version, a.Scope)
	if a.Unchanged {
		b.WriteString("nothing changed.\n")
		for _, n := range a.Notices {
			fmt.Fprintf(&b, "(%s)\n", n)
		}
		contextnote.WriteText(&b, a.Context, false)
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
			case KindChanged:
				fmt.Fprintf(&b, "   ~ %s\n", sc.Text)
			case KindRemoved:
				fmt.Fprintf(&b, "   - %s\n", sc.Text)
			case KindAdded:
				fmt.Fprintf(&b, "   + %s\n", sc.Text)
			case KindMoved:
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
	contextnote.WriteText(&b, a.Context, false)
	return b.String()
}

// classCounts says a count by class in page order: "3 rule, 1 editorial".
func classCounts(classes map[string]int) string {
	var parts []string
	for _, c := range Classes {
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
func editorialByChapter(chapters []Chapter) string {
	var parts []string
	for _, c := range chapters {
		if c.Editorial > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", cmp.Or(c.Title, c.ID), c.Editorial))
		}
	}
	return strings.Join(parts, ", ")
}

// SinceText is a since answer's text: each section with its date and
// its rules, newest change last, each with the release and a citation.
func SinceText(a SinceAnswer) string {
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
	contextnote.WriteText(&b, a.Context, false)
	return b.String()
}
