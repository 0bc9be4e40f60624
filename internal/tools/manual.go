package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find"
)

// manualTools serves the read-only manual tools: each one call of the
// manual use cases (find.Service), `langspec manual`'s too.
type manualTools struct {
	svc *find.Service
}

// ManualListIn takes no arguments.
type ManualListIn struct{}

// ManualListOut lists manual ids.
type ManualListOut = find.ManualList

// ManualLsIn names a manual.
type ManualLsIn struct {
	ManualID string `json:"manual_id" jsonschema:"manual id from manual_list, or a ref a manual tool printed"`
}

// ManualLsOut lists a manual's files.
type ManualLsOut = find.FileList

// ManualTocIn names a manual file.
type ManualTocIn struct {
	ManualID string `json:"manual_id" jsonschema:"manual id from manual_list, or a ref (manual_id/path#node_id) a manual tool printed"`
	Path     string `json:"path,omitempty" jsonschema:"file from manual_ls; may be left out when manual_id is a ref"`
}

// ManualTocOut is a file's table of contents.
type ManualTocOut = find.Toc

// ManualReadIn reads sections or a file, within limits.
type ManualReadIn struct {
	ManualID    string   `json:"manual_id" jsonschema:"manual id from manual_list, or a ref (manual_id/path#node_id) as manual_find and manual_hits print it"`
	Path        string   `json:"path,omitempty" jsonschema:"file from manual_ls; may be left out when manual_id is a ref"`
	Scope       string   `json:"scope,omitempty" jsonschema:"snippet, section, sections or file (default: snippet for node_id and query, section for node_id, else file)"`
	NodeID      string   `json:"node_id,omitempty" jsonschema:"scope snippet or section: node from manual_toc or manual_hits (a ref too)"`
	Query       string   `json:"query,omitempty" jsonschema:"scope snippet: words to show lines for (default: the trace's terms)"`
	TraceID     string   `json:"trace_id,omitempty" jsonschema:"the manual_find trace it follows (tunes thresholds)"`
	NodeIDs     []string `json:"node_ids,omitempty" jsonschema:"for scope sections: nodes of one file, as node ids from manual_toc or refs (manual_id/path#node_id) as manual_find prints them"`
	MaxSections int      `json:"max_sections,omitempty" jsonschema:"most sections for scope sections"`
	MaxChars    int      `json:"max_chars,omitempty" jsonschema:"most characters of text in all"`
}

// ManualReadOut is what was read.
type ManualReadOut = find.ReadResult

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
			Description: "Read a manual by scope: snippet (the paragraphs and list items of node_id holding query's or the trace's terms), section (node_id with its subsections), sections (up to 20 node_ids) or file. Capped by max_chars (8000; snippet 1200); what does not fit is listed in omitted. Pass trace_id when reading manual_find's finds.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxRefChars)
			maxLen(s, "path", maxVaultPathChars)
			s.Properties["scope"].Enum = []any{find.ScopeSnippet, find.ScopeSection, find.ScopeSections, find.ScopeFile}
			maxLen(s, "node_id", maxRefChars)
			maxLen(s, "query", 1000)
			maxLen(s, "trace_id", find.MaxTraceIDChars)
			s.Properties["node_ids"].MaxItems = jsonschema.Ptr(find.MaxReadSections)
			intRange(s, "max_sections", 1, find.MaxReadSections, find.DefaultReadSections)
			intRange(s, "max_chars", 1, find.MaxReadChars, find.DefaultReadChars)
		}, (*manualTools).read, renderManualRead),
		newTool(CategoryManual, bindManual, mcp.Tool{
			Name: "manual_excepts", Title: "Find exceptions in a manual",
			Description: "Find the lines of a manual that state exceptions and conditions (except, unless, not covered, warning, ただし, 対象外, …) with their node_id: what a topic search misses. With query, only sections about it.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "manual_id", maxRefChars)
			maxLen(s, "query", 1000)
			s.Properties["paths"].MaxItems = jsonschema.Ptr(1000)
			s.Properties["paths"].Items = &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(maxVaultPathChars)}
			intRange(s, "max_hits", 1, find.MaxExceptHits, find.DefaultExceptHits)
		}, (*manualTools).excepts, renderExcepts),
	})
}

// bindManual binds the manual tools to the manual use cases.
func bindManual(d *Deps) *manualTools { return &manualTools{svc: d.ManualService()} }

func (mt *manualTools) excepts(ctx context.Context, in ManualExceptsIn) (manual.ExceptionResult, error) {
	return mt.svc.Excepts(ctx, find.ExceptsRequest{ManualID: in.ManualID, Paths: in.Paths, Query: in.Query, MaxHits: in.MaxHits})
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

func (mt *manualTools) list(ctx context.Context, _ ManualListIn) (ManualListOut, error) {
	return mt.svc.List(ctx)
}

func (mt *manualTools) ls(ctx context.Context, in ManualLsIn) (ManualLsOut, error) {
	return mt.svc.Ls(ctx, in.ManualID)
}

func (mt *manualTools) toc(ctx context.Context, in ManualTocIn) (ManualTocOut, error) {
	return mt.svc.Toc(ctx, in.ManualID, in.Path)
}

// read is manual_read: the parts asked for, and the notes on the file.
func (mt *manualTools) read(ctx context.Context, in ManualReadIn) (ManualReadOut, error) {
	return mt.svc.Read(ctx, find.ReadRequest{ManualID: in.ManualID, Path: in.Path, Scope: in.Scope, NodeID: in.NodeID, Query: in.Query,
		TraceID: in.TraceID, NodeIDs: in.NodeIDs, MaxSections: in.MaxSections, MaxChars: in.MaxChars})
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
			// Where it stopped and how to read on, not only that it did.
			if o.Scope == find.ScopeSnippet {
				b.WriteString("[cut at max_chars: more lines hold the terms; raise max_chars, or read scope section]\n")
			} else {
				at := p.LineStart + strings.Count(strings.TrimSuffix(p.Text, "\n"), "\n")
				fmt.Fprintf(&b, "[cut at max_chars in line %d of %d-%d: raise max_chars (at most %d), or read a subsection by its node_id (manual_toc lists them)]\n",
					at, p.LineStart, p.LineEnd, find.MaxReadChars)
			}
		}
	}
	if len(o.Omitted) > 0 {
		fmt.Fprintf(&b, "[not read, over max_sections or max_chars: %s]\n", strings.Join(o.Omitted, ", "))
	}
	return b.String()
}
