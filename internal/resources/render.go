package resources

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/search"
)

// renderContents is a document's table of contents: one line per section,
// indented by depth, with the id a section URI or get_section takes. Titles
// and ids only, never text, so even a large reference stays a few tens of
// kilobytes. pinned says the URI named the version, so the section URIs it
// shows keep it.
func renderContents(v db.VersionInfo, rows []db.SectionRow, pinned bool) string {
	version := ""
	if pinned {
		version = v.Version
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — contents\n\n", v.DisplayName)
	fmt.Fprintf(&b, "%s/%s, version %s: %d sections, from %s\n", v.Language, v.Doc, v.Version, len(rows), v.SourceURL)
	fmt.Fprintf(&b, "Read a section: %s (or get_section with its id).\n\n", docURI(v.Language, v.Doc, version)+"/sections/{section_id}")
	top := 0
	for _, r := range rows {
		if top == 0 || r.Level < top {
			top = r.Level
		}
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%s- %s `%s`\n", strings.Repeat("  ", max(0, r.Level-top)), oneLine(r.Title), r.SectionID)
	}
	return b.String()
}

// renderSection is one section as Markdown: its title, where it comes from
// (document, version, path, the URL to cite), the text as search.Section
// gave it, what was withheld or cut, and its subsections' URIs.
func renderSection(res search.SectionResult, version string) string {
	c := res.Citation
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(c.Title))
	fmt.Fprintf(&b, "- Source: %s/%s, version %s — %s\n", c.Language, c.Doc, c.Version, c.SectionPath)
	fmt.Fprintf(&b, "- Cite: %s\n", c.URL)
	fmt.Fprintf(&b, "- Section id: %s (source_policy %s)\n\n", c.SectionID, res.SourcePolicy)
	b.WriteString(strings.TrimSpace(res.Text))
	b.WriteString("\n")
	if res.NextOffset > 0 {
		fmt.Fprintf(&b, "\n[cut at character %d of %d; read on with get_section offset=%d]\n", res.NextOffset, res.TotalChars, res.NextOffset)
	}
	if res.Notice != "" {
		fmt.Fprintf(&b, "\n[%s]\n", res.Notice)
	}
	if len(res.Children) > 0 {
		b.WriteString("\n## Subsections\n\n")
		for _, ch := range res.Children {
			fmt.Fprintf(&b, "- %s — %s\n", oneLine(ch.Title), sectionURI(c.Language, c.Doc, version, ch.SectionID))
		}
	}
	return b.String()
}

// oneLine keeps a title on its line, so a stored title cannot start a
// heading or list item of its own.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func itoa(n int) string { return strconv.Itoa(n) }
