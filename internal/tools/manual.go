package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/manual/find/queryplan"
	"github.com/langspec/langspec/internal/text/normalize"
)

// manual_read defaults and bounds (seed 002 §6.2).
const (
	defaultMaxSections = 20
	maxMaxSections     = 200
)

// Scopes of manual_read, from the narrowest.
const (
	scopeSnippet  = "snippet"
	scopeSection  = "section"
	scopeSections = "sections"
	scopeFile     = "file"
)

// Snippet bounds of manual_read(scope=snippet).
const (
	defaultSnippetChars = 1200
	maxSnippetLines     = 12
	snippetLineRunes    = 240
)

// manualTools serves the read-only manual tools over one library; finder
// (manual_find's) supplies a trace's terms and records which sections a
// trace led to.
type manualTools struct {
	lib    *manual.Library
	finder *find.Finder
}

// ManualListIn takes no arguments.
type ManualListIn struct{}

// ManualListOut lists manual ids.
type ManualListOut struct {
	Manuals []string `json:"manuals" jsonschema:"manual ids, the folder names under MANUALS_ROOT"`
}

// ManualLsIn names a manual.
type ManualLsIn struct {
	ManualID string `json:"manual_id" jsonschema:"manual id from manual_list, or a ref a manual tool printed"`
}

// ManualLsOut lists a manual's files.
type ManualLsOut struct {
	ManualID string   `json:"manual_id" jsonschema:"the manual"`
	Files    []string `json:"files" jsonschema:".md and .json files at any depth, relative to the manual's folder, named as on disk"`
	Warnings []string `json:"warnings,omitempty" jsonschema:"files left out because they cannot be read as text, and names that differ only in Unicode form"`
}

// ManualTocIn names a manual file.
type ManualTocIn struct {
	ManualID string `json:"manual_id" jsonschema:"manual id from manual_list, or a ref (manual_id/path#node_id) a manual tool printed"`
	Path     string `json:"path,omitempty" jsonschema:"file from manual_ls; may be left out when manual_id is a ref"`
}

// ManualTocOut is a file's table of contents.
type ManualTocOut struct {
	ManualID string            `json:"manual_id" jsonschema:"the manual"`
	Nodes    []manualfile.Node `json:"nodes" jsonschema:"headings (and file nodes) in document order"`
}

// ManualReadIn reads sections or a file, within limits.
type ManualReadIn struct {
	ManualID    string   `json:"manual_id" jsonschema:"manual id from manual_list, or a ref (manual_id/path#node_id) as manual_find and manual_hits print it"`
	Path        string   `json:"path,omitempty" jsonschema:"file from manual_ls; may be left out when manual_id is a ref"`
	Scope       string   `json:"scope,omitempty" jsonschema:"snippet, section, sections or file (default: section when a node is named, else file)"`
	NodeID      string   `json:"node_id,omitempty" jsonschema:"scope snippet or section: node from manual_toc or manual_hits (a ref too)"`
	Query       string   `json:"query,omitempty" jsonschema:"scope snippet: words to show lines for (default: the trace's terms)"`
	TraceID     string   `json:"trace_id,omitempty" jsonschema:"the manual_find trace it follows (tunes thresholds)"`
	NodeIDs     []string `json:"node_ids,omitempty" jsonschema:"for scope sections: the nodes from manual_toc"`
	MaxSections int      `json:"max_sections,omitempty" jsonschema:"most sections for scope sections"`
	MaxChars    int      `json:"max_chars,omitempty" jsonschema:"most characters of text in all"`
}

// ManualPart is one section read.
type ManualPart struct {
	NodeID    string `json:"node_id" jsonschema:"the node read; file for a whole file"`
	Title     string `json:"title" jsonschema:"its heading"`
	LineStart int    `json:"line_start" jsonschema:"first line"`
	LineEnd   int    `json:"line_end" jsonschema:"last line"`
	Text      string `json:"text" jsonschema:"the text, cut at max_chars when truncated"`
	Truncated bool   `json:"truncated" jsonschema:"true when max_chars cut this text"`
}

// ManualReadOut is what was read.
type ManualReadOut struct {
	ManualID string                `json:"manual_id" jsonschema:"the manual"`
	Path     string                `json:"path" jsonschema:"the file"`
	Scope    string                `json:"scope" jsonschema:"the scope read"`
	Parts    []ManualPart          `json:"parts" jsonschema:"the sections read, in the order asked"`
	Omitted  []string              `json:"omitted" jsonschema:"node ids not read because max_sections or max_chars ran out"`
	Context  []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on this manual, its folders and the file"`
}

// ManualExceptsIn asks for exception lines.
type ManualExceptsIn struct {
	ManualID string   `json:"manual_id" jsonschema:"manual id from manual_list, or a ref a manual tool printed"`
	Paths    []string `json:"paths,omitempty" jsonschema:"files to scan; omit for every file of the manual"`
	Query    string   `json:"query,omitempty" jsonschema:"only top-level sections about this"`
	MaxHits  int      `json:"max_hits,omitempty" jsonschema:"most lines to return"`
}

func manualToolset() []Tool {
	return needing(func(d *Deps) bool { return d.Manuals != nil && d.Finder != nil }, []Tool{
		newTool(CategoryManual, bindManual, mcp.Tool{
			Name: "manual_list", Title: "List manuals",
			Description: "List the manual ids (folders under MANUALS_ROOT). Files are listed by manual_ls.",
			Annotations: readOnly(),
		}, nil, (*manualTools).list, func(o ManualListOut) string {
			if len(o.Manuals) == 0 {
				return "No manuals: put folders of .md and .json files under MANUALS_ROOT."
			}
			return strings.Join(o.Manuals, "\n")
		}),
		newTool(CategoryManual, bindManual, mcp.Tool{
			Name: "manual_ls", Title: "List a manual's files",
			Description: "List the .md and .json files of one manual, at any depth.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxRefChars)
		}, (*manualTools).ls, func(o ManualLsOut) string { return strings.Join(o.Files, "\n") }),
		newTool(CategoryManual, bindManual, mcp.Tool{
			Name: "manual_toc", Title: "A manual file's table of contents",
			Description: "A manual file's headings as nodes (node_id, title, level, parent_id, lines; a section's lines include its subsections). A JSON file is one node.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxRefChars)
			maxLen(s, "path", maxVaultPathChars)
		}, (*manualTools).toc, renderToc),
		newTool(CategoryManual, bindManual, mcp.Tool{
			Name: "manual_read", Title: "Read manual sections",
			Description: "Read a manual by scope: snippet (lines of node_id matching query or the trace's terms), section (node_id with its subsections), sections (up to 20 node_ids) or file. Capped by max_chars (8000; snippet 1200); what does not fit is listed in omitted. Pass trace_id when reading manual_find's finds.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxRefChars)
			maxLen(s, "path", maxVaultPathChars)
			s.Properties["scope"].Enum = []any{scopeSnippet, scopeSection, scopeSections, scopeFile}
			maxLen(s, "node_id", maxRefChars)
			maxLen(s, "query", 1000)
			maxLen(s, "trace_id", find.MaxTraceIDChars)
			s.Properties["node_ids"].MaxItems = jsonschema.Ptr(maxMaxSections)
			intRange(s, "max_sections", 1, maxMaxSections, defaultMaxSections)
			intRange(s, "max_chars", 1, maxVaultReadChars, defaultPageChars)
		}, (*manualTools).read, renderManualRead),
		newTool(CategoryManual, bindManual, mcp.Tool{
			Name: "manual_excepts", Title: "Find exceptions in a manual",
			Description: "Find the lines of a manual that state exceptions (注意, 除外, 対象外, ただし, 例外, 免責, 支払わない, except, unless, …) with their node_id: conditions a topic search misses. With query, only sections about it.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxRefChars)
			maxLen(s, "query", 1000)
			s.Properties["paths"].MaxItems = jsonschema.Ptr(1000)
			s.Properties["paths"].Items = &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(maxVaultPathChars)}
			intRange(s, "max_hits", 1, maxSearchHits, defaultSearchHits)
		}, (*manualTools).excepts, renderExcepts),
	})
}

// bindManual binds the manual tools to their dependencies.
func bindManual(d *Deps) *manualTools { return &manualTools{lib: d.Manuals, finder: d.Finder} }

func (mt *manualTools) excepts(ctx context.Context, in ManualExceptsIn) (manual.ExceptionResult, error) {
	r, err := mt.lib.ResolveRef("", in.ManualID, "", "")
	if err != nil {
		return manual.ExceptionResult{ManualID: in.ManualID}, err
	}
	in.ManualID = r.ManualID
	if r.Path != "" && len(in.Paths) == 0 {
		in.Paths = []string{r.Path}
	}
	maxHits := in.MaxHits
	if maxHits == 0 {
		maxHits = defaultSearchHits
	}
	return mt.lib.Exceptions(ctx, in.ManualID, in.Paths, in.Query, maxHits)
}

func renderExcepts(r manual.ExceptionResult) string {
	var b strings.Builder
	for _, w := range r.Warnings {
		b.WriteString("warning: " + w + "\n")
	}
	if len(r.Hits) == 0 {
		fmt.Fprintf(&b, "No exception terms in %s (%d files scanned).", r.ManualID, r.FilesScanned)
		return b.String()
	}
	for _, h := range r.Hits {
		fmt.Fprintf(&b, "%s:%d [%s] (%s) %s\n", h.Path, h.Line, h.NodeID, strings.Join(h.Terms, ", "), h.Text)
	}
	if r.Truncated {
		b.WriteString("[more: raise max_hits or give paths/query]\n")
	}
	return b.String()
}

func (mt *manualTools) list(context.Context, ManualListIn) (ManualListOut, error) {
	ids, err := mt.lib.Manuals()
	if ids == nil {
		ids = []string{}
	}
	return ManualListOut{Manuals: ids}, err
}

func (mt *manualTools) ls(ctx context.Context, in ManualLsIn) (ManualLsOut, error) {
	r, err := mt.lib.ResolveRef("", in.ManualID, "", "")
	if err != nil {
		return ManualLsOut{ManualID: in.ManualID, Files: []string{}}, err
	}
	in.ManualID = r.ManualID
	files, warnings, err := mt.lib.Listing(ctx, in.ManualID)
	if files == nil {
		files = []string{}
	}
	return ManualLsOut{ManualID: in.ManualID, Files: files, Warnings: warnings}, err
}

func (mt *manualTools) toc(_ context.Context, in ManualTocIn) (ManualTocOut, error) {
	r, err := mt.resolve(in.ManualID, in.Path, "")
	if err != nil {
		return ManualTocOut{ManualID: in.ManualID, Nodes: []manualfile.Node{}}, err
	}
	in.ManualID, in.Path = r.ManualID, r.Path
	manualID, _, err := mt.lib.Resolve(in.ManualID, in.Path)
	if err != nil {
		return ManualTocOut{ManualID: in.ManualID, Nodes: []manualfile.Node{}}, err
	}
	nodes, err := mt.lib.Nodes(in.ManualID, in.Path)
	if nodes == nil {
		nodes = []manualfile.Node{}
	}
	return ManualTocOut{ManualID: manualID, Nodes: nodes}, err
}

// read is manual_read: the parts asked for, and the notes on the file.
func (mt *manualTools) read(ctx context.Context, in ManualReadIn) (ManualReadOut, error) {
	out, err := mt.readParts(ctx, in)
	if err == nil {
		out.Context = mt.finder.NoteSet().Cover([]contextnote.Target{{Manual: out.ManualID, Path: out.Path}})
	}
	return out, err
}

// resolve reads a section named in any form a manual tool prints
// (manual.Library.ResolveRef); the file must be named. Errors:
// invalid_argument.
func (mt *manualTools) resolve(manualID, path, nodeID string) (manual.Ref, error) {
	r, err := mt.lib.ResolveRef("", manualID, path, nodeID)
	if err == nil && r.Path == "" {
		err = apperr.New(apperr.InvalidArgument, "give path (a file from manual_ls), or a ref manual_id/path#node_id as manual_id", "no file named")
	}
	return r, err
}

func (mt *manualTools) readParts(ctx context.Context, in ManualReadIn) (ManualReadOut, error) {
	out := ManualReadOut{ManualID: in.ManualID, Path: in.Path, Scope: in.Scope, Parts: []ManualPart{}, Omitted: []string{}}
	r, err := mt.resolve(in.ManualID, in.Path, in.NodeID)
	if err != nil {
		return out, err
	}
	in.ManualID, in.Path, in.NodeID = r.ManualID, r.Path, r.NodeID
	for i, id := range in.NodeIDs {
		// A node of the same file may come as a ref too.
		n, err := mt.lib.ResolveRef("", r.ManualID, r.Path, id)
		if err != nil {
			return out, err
		}
		in.NodeIDs[i] = n.NodeID
	}
	if in.Scope == "" {
		switch {
		case in.NodeID != "":
			in.Scope = scopeSection
		case len(in.NodeIDs) > 0:
			in.Scope = scopeSections
		default:
			in.Scope = scopeFile
		}
	}
	out.Scope = in.Scope
	// Names in either Unicode form; the answer shows them as on disk.
	manualID, path, err := mt.lib.Resolve(in.ManualID, in.Path)
	if err != nil {
		return out, err
	}
	out.ManualID, out.Path = manualID, path
	maxChars, maxSections := in.MaxChars, in.MaxSections
	if maxChars == 0 {
		maxChars = defaultPageChars
	}
	if maxSections == 0 {
		maxSections = defaultMaxSections
	}
	if in.TraceID != "" {
		if err := find.CheckTraceID(in.TraceID); err != nil {
			return out, err
		}
	}
	var ids []string
	switch in.Scope {
	case scopeSnippet:
		if in.NodeID == "" {
			return out, apperr.New(apperr.InvalidArgument, "give node_id from manual_hits or manual_toc", "scope snippet needs node_id")
		}
		if in.MaxChars == 0 {
			maxChars = defaultSnippetChars
		}
		part, err := mt.snippet(ctx, in, maxChars)
		if err != nil {
			return out, err
		}
		out.Parts = append(out.Parts, part)
		mt.finder.RecordUse(in.TraceID, manualID, path, in.NodeID)
		return out, nil
	case scopeSection:
		if in.NodeID == "" {
			return out, apperr.New(apperr.InvalidArgument, "give node_id from manual_toc", "scope section needs node_id")
		}
		ids = []string{in.NodeID}
	case scopeSections:
		if len(in.NodeIDs) == 0 {
			return out, apperr.New(apperr.InvalidArgument, "give node_ids from manual_toc", "scope sections needs node_ids")
		}
		ids = in.NodeIDs
	case scopeFile:
		raw, err := mt.lib.Read(in.ManualID, in.Path)
		if err != nil {
			return out, err
		}
		src := manualfile.NewSource(raw) // "\r\n" and "\r" read as line ends
		text, cut := capChars(src.Text(), maxChars)
		out.Parts = append(out.Parts, ManualPart{NodeID: manualfile.FileID, Title: path, LineStart: 1,
			LineEnd: max(src.LineCount(), 1), Text: text, Truncated: cut})
		return out, nil
	default:
		return out, apperr.New(apperr.InvalidArgument, "use section, sections or file", "scope %q is not a read scope", in.Scope)
	}
	left := maxChars
	for i, id := range ids {
		if i == maxSections || left == 0 {
			out.Omitted = append(out.Omitted, ids[i:]...)
			break
		}
		// Each section reads and parses the file: up to 200 of them.
		if err := ctx.Err(); err != nil {
			return out, err
		}
		text, n, err := mt.lib.Section(in.ManualID, in.Path, id)
		if err != nil {
			return out, err
		}
		text, cut := capChars(text, left)
		left -= utf8.RuneCountInString(text)
		out.Parts = append(out.Parts, ManualPart{NodeID: n.NodeID, Title: n.Title, LineStart: n.LineStart, LineEnd: n.LineEnd,
			Text: text, Truncated: cut})
		mt.finder.RecordUse(in.TraceID, manualID, path, n.NodeID)
	}
	return out, nil
}

// snippet returns the lines of a section (subsections included) that hold a
// term of the query, or of the trace when there is no query, each with its
// line number; with neither, the section's first lines.
func (mt *manualTools) snippet(ctx context.Context, in ManualReadIn, maxChars int) (ManualPart, error) {
	text, n, err := mt.lib.Section(in.ManualID, in.Path, in.NodeID)
	if err != nil {
		return ManualPart{}, err
	}
	var terms []string
	switch {
	case in.Query != "":
		plan := queryplan.Analyze(in.Query)
		for _, t := range plan.Terms {
			terms = append(terms, t)
			terms = append(terms, queryplan.Variants(t)...)
		}
	case in.TraceID != "":
		if terms, err = mt.finder.TraceTerms(ctx, in.TraceID); err != nil {
			return ManualPart{}, err
		}
	}
	forms := make([]string, 0, len(terms))
	for _, t := range terms {
		if f := normalize.Normal(t); f != "" {
			forms = append(forms, f)
		}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var b strings.Builder
	shown, matched := 0, 0
	cut := false
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		hit := len(forms) > 0 && slices.ContainsFunc(forms, func(f string) bool { return strings.Contains(normalize.Normal(l), f) })
		if len(forms) > 0 && !hit {
			continue
		}
		if hit {
			matched++
		}
		line, _ := capChars(strings.TrimSpace(l), snippetLineRunes)
		entry := fmt.Sprintf("%d: %s\n", n.LineStart+i, line)
		if shown == maxSnippetLines || utf8.RuneCountInString(b.String())+utf8.RuneCountInString(entry) > maxChars {
			cut = true
			break
		}
		b.WriteString(entry)
		shown++
	}
	if len(forms) > 0 && matched == 0 {
		b.WriteString("(no line of this section holds the terms; read scope section for all of it)\n")
	}
	return ManualPart{NodeID: n.NodeID, Title: n.Title, LineStart: n.LineStart, LineEnd: n.LineEnd, Text: b.String(), Truncated: cut}, nil
}

// capChars cuts s to at most n characters.
func capChars(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}

func renderToc(o ManualTocOut) string {
	var b strings.Builder
	for _, n := range o.Nodes {
		indent := strings.Repeat("  ", max(n.Level-1, 0))
		fmt.Fprintf(&b, "%s%s (node_id=%s, lines %d-%d)\n", indent, n.Title, n.NodeID, n.LineStart, n.LineEnd)
	}
	return b.String()
}

func renderManualRead(o ManualReadOut) string {
	var b strings.Builder
	for _, p := range o.Parts {
		fmt.Fprintf(&b, "## %s [%s/%s#%s, lines %d-%d]\n%s\n", p.Title, o.ManualID, o.Path, p.NodeID, p.LineStart, p.LineEnd, p.Text)
		if p.Truncated {
			b.WriteString("[cut at max_chars]\n")
		}
	}
	if len(o.Omitted) > 0 {
		fmt.Fprintf(&b, "[not read, over max_sections or max_chars: %s]\n", strings.Join(o.Omitted, ", "))
	}
	return b.String()
}
