package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/plan"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/snippet"
)

// Argument bounds shared by the spec tools' schemas.
const (
	maxNameChars     = 200 // language, doc, version and section ids
	maxPathChars     = 1000
	maxRefChars      = 2200 // a manual ref: a manual id, a path and a node id
	maxFocusAreas    = 20
	defaultPageChars = 8000
	// defaultSnippets is one window per hit, not the CLI's two: ten hits
	// are then about 2,500 characters of snippet in a model's context, and
	// a caller that wants more asks for snippets_per_hit.
	defaultSnippets = 1
)

// specTools serves the specification tools: each one call of the spec use
// cases (internal/spec), the command line's too.
type specTools struct {
	svc *spec.Service
}

// ListLanguagesIn takes no arguments.
type ListLanguagesIn struct{}

// ListLanguagesOut lists what can be searched, and where it is stored: a
// server started by a client that does not pass the user's environment
// opens the default database, and the answer must say so.
type ListLanguagesOut struct {
	Languages []search.Language `json:"languages" jsonschema:"stored languages, sorted by id"`
	Database  string            `json:"database" jsonschema:"the database file this server reads"`
	Hint      string            `json:"hint" jsonschema:"how to add a language or use another database"`
}

// ListVersionsIn names a language.
type ListVersionsIn struct {
	Language string `json:"language" jsonschema:"language id from list_languages, e.g. go"`
}

// ListVersionsOut lists one language's versions.
type ListVersionsOut struct {
	Language string           `json:"language" jsonschema:"the language asked for"`
	Versions []db.VersionInfo `json:"versions" jsonschema:"stored versions, each document's newest first"`
}

// SearchSpecIn is a search.
type SearchSpecIn struct {
	Query             string   `json:"query" jsonschema:"words; \"a phrase\", prefix* and code such as x.(T) work too"`
	Also              []string `json:"also,omitempty" jsonschema:"up to 4 rephrasings in a specification's words, ranked with query"`
	Language          string   `json:"language,omitempty" jsonschema:"language id; omit to search every language"`
	Version           string   `json:"version,omitempty" jsonschema:"omit for the latest complete version"`
	Doc               string   `json:"doc,omitempty" jsonschema:"document within the language; omit for all"`
	SectionPathPrefix string   `json:"section_path_prefix,omitempty" jsonschema:"only sections under this path, e.g. Expressions"`
	Limit             int      `json:"limit,omitempty" jsonschema:"number of results"`
	SnippetChars      int      `json:"snippet_chars,omitempty" jsonschema:"characters per snippet window"`
	SnippetsPerHit    int      `json:"snippets_per_hit,omitempty" jsonschema:"snippet windows per result"`
	Verbose           bool     `json:"verbose,omitempty" jsonschema:"add each result's score and the channels run"`
}

// GetSectionIn asks for one section, or a page of it.
type GetSectionIn struct {
	Language        string `json:"language" jsonschema:"language id, e.g. go"`
	SectionID       string `json:"section_id" jsonschema:"section_id from search_spec or build_learning_plan, or a title"`
	Version         string `json:"version,omitempty" jsonschema:"omit for the latest complete version"`
	Doc             string `json:"doc,omitempty" jsonschema:"document, when the language has several"`
	Offset          int    `json:"offset,omitempty" jsonschema:"first character; pass next_offset to read on"`
	MaxChars        int    `json:"max_chars,omitempty" jsonschema:"at most this many characters of text"`
	WithSubsections bool   `json:"with_subsections,omitempty" jsonschema:"append every subsection's text: a chapter whole"`
}

// BuildLearningPlanIn asks for a reading plan.
type BuildLearningPlanIn struct {
	Language   string   `json:"language" jsonschema:"language id, e.g. go"`
	Version    string   `json:"version,omitempty" jsonschema:"omit for the latest complete version"`
	Doc        string   `json:"doc,omitempty" jsonschema:"document, when the language has several"`
	TotalWeeks int      `json:"total_weeks,omitempty" jsonschema:"number of weeks"`
	FocusAreas []string `json:"focus_areas,omitempty" jsonschema:"section titles (or words in them) to read early, e.g. Types"`
}

// specToolset is the specification tools. Their descriptions end with the
// languages stored when the server starts (Deps.Languages).
func specToolset() []Tool {
	return withLanguages(needing(func(d *Deps) bool { return d.Store != nil }, []Tool{
		newTool(CategorySpec, bindSpec, mcp.Tool{
			Name:        "list_languages",
			Title:       "List languages",
			Description: "List the searchable languages and documents, each with its latest version and section count.",
			Annotations: readOnly(),
		}, nil, (*specTools).listLanguages, renderLanguages),
		newTool(CategorySpec, bindSpec, mcp.Tool{
			Name:        "list_versions",
			Title:       "List versions",
			Description: "A language's stored versions, newest first: when and where each was fetched, its section count.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "language", maxNameChars)
		}, (*specTools).listVersions, renderVersions),
		newTool(CategorySpec, bindSpec, mcp.Tool{
			Name:  "search_spec",
			Title: "Search specifications",
			Description: "Search language specifications: ranked sections, each with a snippet, a section_id for get_section, a url to cite " +
				"and the channels that matched. Words match by stem, misspellings are corrected, code such as s[i:j:k] matches code of its shape. " +
				"For a question in your own words, add a specification's terms in also (query \"shut a chan\", also [\"close channel\"]).",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "query", ftsquery.MaxQueryRunes)
			s.Properties["also"].MaxItems = jsonschema.Ptr(search.MaxAlso)
			s.Properties["also"].Items.MaxLength = jsonschema.Ptr(ftsquery.MaxQueryRunes)
			for _, p := range []string{"language", "version", "doc"} {
				maxLen(s, p, maxNameChars)
			}
			maxLen(s, "section_path_prefix", maxPathChars)
			intRange(s, "limit", 1, search.MaxLimit, search.DefaultLimit)
			intRange(s, "snippet_chars", snippet.MinChars, snippet.MaxChars, searchSnippetChars)
			intRange(s, "snippets_per_hit", 1, snippet.MaxWindows, defaultSnippets)
		}, (*specTools).searchSpec, renderSearch),
		newTool(CategorySpec, bindSpec, mcp.Tool{
			Name:  "get_section",
			Title: "Read a section",
			Description: "Read one section with its citation and its subsections' ids, in pages (pass next_offset as offset). " +
				"An excerpt_only document gives at most its first " + fmt.Sprint(search.ExcerptChars) + " characters and says so.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "language", maxNameChars)
			nonEmpty(s, "section_id", maxPathChars)
			maxLen(s, "version", maxNameChars)
			maxLen(s, "doc", maxNameChars)
			s.Properties["offset"].Minimum = jsonschema.Ptr(0.0)
			intRange(s, "max_chars", 1, search.MaxPageChars, defaultPageChars)
		}, (*specTools).getSection, renderSection),
		compareTool(),
		specDiffTool(),
		newTool(CategorySpec, bindSpec, mcp.Tool{
			Name:  "build_learning_plan",
			Title: "Build a reading plan",
			Description: "Split a specification into weeks of equal reading time in document order, focus areas first after " +
				"the introduction; each section with its section_id and url.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "language", maxNameChars)
			maxLen(s, "version", maxNameChars)
			maxLen(s, "doc", maxNameChars)
			intRange(s, "total_weeks", 1, plan.MaxWeeks, plan.DefaultWeeks)
			s.Properties["focus_areas"].MaxItems = jsonschema.Ptr(maxFocusAreas)
			s.Properties["focus_areas"].Items = &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(maxNameChars)}
		}, (*specTools).buildLearningPlan, renderPlan),
	}))
}

// bindSpec binds the spec tools to the spec use cases.
func bindSpec(d *Deps) *specTools { return &specTools{svc: d.Specs()} }

// withLanguages appends the stored languages to the descriptions of the
// spec tools a model calls first, before any answer has told it the ids
// (list_languages lists them; the other tools take ids from answers). Said
// on every spec tool, the list cost the listing its length seven times.
func withLanguages(tools []Tool) []Tool {
	namesLanguages := []string{"search_spec", "compare", "get_section"}
	for i := range tools {
		if !slices.Contains(namesLanguages, tools[i].Def.Name) {
			continue
		}
		base := tools[i].Def.Description
		tools[i].describe = func(d *Deps) string {
			if len(d.Languages) == 0 {
				return base + " No language is stored yet."
			}
			return base + " Languages stored: " + strings.Join(d.Languages, ", ") + "."
		}
	}
	return tools
}

func (st *specTools) listLanguages(ctx context.Context, _ ListLanguagesIn) (ListLanguagesOut, error) {
	langs, err := st.svc.Languages(ctx)
	if err != nil {
		return ListLanguagesOut{}, err
	}
	if langs == nil {
		langs = []search.Language{}
	}
	stored := make([]string, len(langs))
	for i, l := range langs {
		stored[i] = l.Language
	}
	return ListLanguagesOut{Languages: langs, Database: st.svc.Store().Path(), Hint: AddLanguageHint(stored)}, nil
}

// AddLanguageHint is the next step for a language that is not stored, given
// those that are: the ingest that adds one (naming the built-in sources
// not stored) and how to use another database. serve's start-up line says
// the same.
func AddLanguageHint(stored []string) string {
	var missing []string
	for _, p := range ingest.Presets() {
		if !slices.Contains(stored, p.Language) && !slices.Contains(missing, p.Language) {
			missing = append(missing, p.Language)
		}
	}
	hint := "add a language with langspec ingest LANG"
	if len(missing) > 0 {
		hint += " (" + strings.Join(missing, ", ") + ")"
	}
	return hint + "; read another database with --db PATH or LANGSPEC_DB in the server's environment"
}

func (st *specTools) listVersions(ctx context.Context, in ListVersionsIn) (ListVersionsOut, error) {
	language := strings.TrimSpace(in.Language)
	vs, err := st.svc.Versions(ctx, language)
	return ListVersionsOut{Language: language, Versions: vs}, err
}

func (st *specTools) searchSpec(ctx context.Context, in SearchSpecIn) (SearchSpecOut, error) {
	if in.SnippetsPerHit == 0 { // the schema default, for callers that send none
		in.SnippetsPerHit = defaultSnippets
	}
	if in.SnippetChars == 0 {
		in.SnippetChars = searchSnippetChars
	}
	res, err := st.svc.Search(ctx, search.Request{
		Query:      in.Query,
		Also:       in.Also,
		Language:   in.Language,
		Doc:        in.Doc,
		Version:    in.Version,
		PathPrefix: in.SectionPathPrefix,
		Limit:      in.Limit,
		Snippet:    snippet.Options{Chars: in.SnippetChars, Windows: in.SnippetsPerHit, Mark: snippet.Markdown},
	})
	if err != nil {
		return SearchSpecOut{}, err
	}
	return compactSearch(res, in.Verbose), nil
}

func (st *specTools) getSection(ctx context.Context, in GetSectionIn) (search.SectionResult, error) {
	if in.MaxChars == 0 { // the schema default, for callers that send none
		in.MaxChars = defaultPageChars
	}
	return st.svc.Section(ctx, search.SectionRequest{
		Language:        in.Language,
		Doc:             in.Doc,
		Version:         in.Version,
		SectionID:       in.SectionID,
		WithSubsections: in.WithSubsections,
		Offset:          in.Offset,
		MaxChars:        in.MaxChars,
	})
}

func (st *specTools) buildLearningPlan(ctx context.Context, in BuildLearningPlanIn) (plan.Plan, error) {
	return st.svc.Plan(ctx, plan.Request{
		Language: in.Language,
		Doc:      in.Doc,
		Version:  in.Version,
		Weeks:    in.TotalWeeks,
		Focus:    in.FocusAreas,
	})
}

// The renderings below are the text content: the same facts as the
// structured result, laid out to cost a model few tokens.

func renderLanguages(out ListLanguagesOut) string {
	var b strings.Builder
	if len(out.Languages) == 0 {
		b.WriteString("No languages are stored yet.\n")
	}
	for _, l := range out.Languages {
		for _, d := range l.Docs {
			fmt.Fprintf(&b, "%s/%s — %s: latest %s, %d sections", l.Language, d.Doc, d.DisplayName, orNone(d.LatestVersion), d.SectionCount)
			if d.Versions > 1 {
				fmt.Fprintf(&b, " (%d versions stored)", d.Versions)
			}
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "Database: %s\nHint: %s.\n", out.Database, out.Hint)
	return b.String()
}

func renderVersions(out ListVersionsOut) string {
	var b strings.Builder
	for _, v := range out.Versions {
		state := ""
		switch {
		case v.Default:
			state = " (default)"
		case !v.Complete:
			state = " (incomplete)"
		case v.Prerelease:
			state = " (pre-release)"
		}
		fmt.Fprintf(&b, "%s/%s %s%s: %d sections, fetched %s from %s\n", v.Language, v.Doc, v.Version, state,
			v.SectionCount, v.FetchedAt.UTC().Format(time.RFC3339), v.SourceURL)
	}
	return b.String()
}

func renderSection(res search.SectionResult) string {
	c := res.Citation
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s/%s %s] section_id=%s\n%s\n%s\n\n%s\n", c.Title, c.Language, c.Doc, c.Version, c.SectionID,
		c.SectionPath, c.URL, strings.TrimSpace(res.Text))
	end := res.Offset + len([]rune(res.Text))
	switch {
	case res.NextOffset > 0:
		fmt.Fprintf(&b, "\n[characters %d–%d of %d; more with offset=%d]\n", res.Offset, end, res.TotalChars, res.NextOffset)
	case res.Offset > 0:
		fmt.Fprintf(&b, "\n[characters %d–%d of %d]\n", res.Offset, end, res.TotalChars)
	}
	if res.Notice != "" {
		fmt.Fprintf(&b, "\n[%s]\n", res.Notice)
	}
	if len(res.Children) > 0 {
		b.WriteString("\nSubsections:\n")
		for _, ch := range res.Children {
			fmt.Fprintf(&b, "- %s (section_id=%s)\n", ch.Title, ch.SectionID)
		}
	}
	contextnote.WriteText(&b, res.Context, false)
	return b.String()
}

func renderPlan(p plan.Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Reading plan for %s/%s %s: %d weeks, about %d minutes\n", p.Language, p.Doc, p.Version, p.TotalWeeks, p.TotalMinutes)
	for _, w := range p.Weeks {
		fmt.Fprintf(&b, "\nWeek %d — %s (%d sections, about %d min)\n", w.Week, w.Theme, len(w.Sections), w.EstimatedMinutes)
		for _, s := range w.Sections {
			mark := ""
			if s.Focus {
				mark = " [focus]"
			}
			fmt.Fprintf(&b, "- %s (section_id=%s)%s\n", s.SectionPath, s.SectionID, mark)
		}
	}
	return b.String()
}

func orNone(s string) string {
	if s == "" {
		return "(none complete)"
	}
	return s
}
