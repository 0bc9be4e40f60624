package find

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find/queryplan"
	"github.com/langspec/langspec/internal/text/normalize"
)

// Bounds and defaults of the manual use cases: the tools' schemas state
// them, the command line's flags check them, and Service applies them.
const (
	DefaultReadChars    = 8000    // Read: characters of text in all
	MaxReadChars        = 100_000 // Read: the most a caller may ask for
	DefaultSnippetChars = 1200    // Read, scope snippet
	DefaultReadSections = 20      // Read, scope sections
	MaxReadSections     = 200
	DefaultExceptHits   = 50 // Excepts: lines returned
	MaxExceptHits       = 500
	maxSnippetLines     = 40
	snippetLineRunes    = 240
)

// Scopes of Read, from the narrowest.
const (
	ScopeSnippet  = "snippet"
	ScopeSection  = "section"
	ScopeSections = "sections"
	ScopeFile     = "file"
)

// ReadScopes are Read's scopes, narrowest first.
func ReadScopes() []string { return []string{ScopeSnippet, ScopeSection, ScopeSections, ScopeFile} }

// Service is the manual use cases — list, ls, toc, read, excepts, find and
// hits — as every front end runs them: the manual_* tools and `langspec
// manual` call the same method, with the same defaults, refs resolved the
// same way, and the same errors.
type Service struct {
	Lib *manual.Library
	// Finder runs Find and Hits, supplies a trace's terms to Read's
	// snippets and records what a trace led to; nil: a finder that keeps
	// no trace and records nothing (a front end that only lists and reads).
	Finder *Finder
	// Notes are the user's context notes, carried by Read; nil: none.
	Notes *contextnote.Source
	Log   *slog.Logger // nil discards
}

func (s *Service) finder() *Finder {
	if s.Finder == nil {
		return &Finder{}
	}
	return s.Finder
}

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

// ManualList is manual_list's answer.
type ManualList struct {
	Manuals []string `json:"manuals" jsonschema:"manual ids, the folder names under MANUALS_ROOT"`
}

// List lists the manual ids.
func (s *Service) List(context.Context) (ManualList, error) {
	ids, err := s.Lib.Manuals()
	if ids == nil {
		ids = []string{}
	}
	return ManualList{Manuals: ids}, err
}

// FileList is manual_ls' answer: a manual's files.
type FileList struct {
	ManualID string   `json:"manual_id" jsonschema:"the manual"`
	Files    []string `json:"files" jsonschema:".md and .json files at any depth, relative to the manual's folder, named as on disk"`
	Warnings []string `json:"warnings,omitempty" jsonschema:"files left out because they cannot be read as text, and names that differ only in Unicode form"`
}

// Ls lists the files of the manual manualID names (an id, or a ref a
// manual tool printed).
func (s *Service) Ls(ctx context.Context, manualID string) (FileList, error) {
	r, err := s.Lib.ResolveRef("", manualID, "", "")
	if err != nil {
		return FileList{ManualID: manualID, Files: []string{}}, err
	}
	files, warnings, err := s.Lib.Listing(ctx, r.ManualID)
	if files == nil {
		files = []string{}
	}
	return FileList{ManualID: r.ManualID, Files: files, Warnings: warnings}, err
}

// Toc is manual_toc's answer: a file's table of contents.
type Toc struct {
	ManualID string            `json:"manual_id" jsonschema:"the manual"`
	Nodes    []manualfile.Node `json:"nodes" jsonschema:"headings (and file nodes) in document order"`
}

// Toc is a manual file's headings as nodes. manualID may be a ref that
// names the file; path may then be left out. Errors: invalid_argument when
// no file is named, and those of manual.Library.
func (s *Service) Toc(_ context.Context, manualID, path string) (Toc, error) {
	r, err := s.resolve(manualID, path, "")
	if err != nil {
		return Toc{ManualID: manualID, Nodes: []manualfile.Node{}}, err
	}
	id, _, err := s.Lib.Resolve(r.ManualID, r.Path)
	if err != nil {
		return Toc{ManualID: r.ManualID, Nodes: []manualfile.Node{}}, err
	}
	nodes, err := s.Lib.Nodes(r.ManualID, r.Path)
	if nodes == nil {
		nodes = []manualfile.Node{}
	}
	return Toc{ManualID: id, Nodes: nodes}, err
}

// ReadRequest is what to read of a manual file, within limits.
type ReadRequest struct {
	ManualID string // an id, or a ref (manual_id/path#node_id) a manual tool printed
	Path     string // may be left out when ManualID is a ref
	// Scope is "" for ReadRequest.DefaultScope's choice.
	Scope   string
	NodeID  string   // scope snippet or section (a ref too)
	Query   string   // scope snippet: words to show lines for; "": the trace's terms
	TraceID string   // the Find trace the read follows (tunes thresholds)
	NodeIDs []string // scope sections
	// MaxSections and MaxChars bound the read; 0: DefaultReadSections,
	// DefaultReadChars (DefaultSnippetChars for a snippet).
	MaxSections int
	MaxChars    int
}

// DefaultScope is the scope read when none is named: a snippet for one
// node and a query (the lines that hold its words), the section for one
// node, the sections for several, else the whole file.
func (r ReadRequest) DefaultScope() string {
	switch {
	case r.NodeID != "" && r.Query != "":
		return ScopeSnippet
	case r.NodeID != "":
		return ScopeSection
	case len(r.NodeIDs) > 0:
		return ScopeSections
	}
	return ScopeFile
}

// Part is one section read.
type Part struct {
	NodeID    string `json:"node_id" jsonschema:"the node read; file for a whole file"`
	Title     string `json:"title" jsonschema:"its heading"`
	LineStart int    `json:"line_start" jsonschema:"first line"`
	LineEnd   int    `json:"line_end" jsonschema:"last line"`
	Text      string `json:"text" jsonschema:"the text, cut at max_chars when truncated"`
	Truncated bool   `json:"truncated" jsonschema:"true when max_chars cut this text"`
}

// ReadResult is what was read.
type ReadResult struct {
	ManualID string                `json:"manual_id" jsonschema:"the manual"`
	Path     string                `json:"path" jsonschema:"the file"`
	Scope    string                `json:"scope" jsonschema:"the scope read"`
	Parts    []Part                `json:"parts" jsonschema:"the sections read, in the order asked"`
	Omitted  []string              `json:"omitted" jsonschema:"node ids not read because max_sections or max_chars ran out"`
	Context  []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on this manual, its folders and the file"`
}

// Read reads a file, a section, several sections or the lines of a
// section that hold a query's (or the trace's) terms, within
// req.MaxChars, and carries the notes on the file. What a trace led to is
// recorded for its thresholds. Errors: invalid_argument for a scope
// without what it needs, and those of manual.Library.
func (s *Service) Read(ctx context.Context, req ReadRequest) (ReadResult, error) {
	out, err := s.readParts(ctx, req)
	if err == nil {
		out.Context = s.Notes.Current(s.log()).Cover([]contextnote.Target{{Manual: out.ManualID, Path: out.Path}})
	}
	return out, err
}

// resolve reads a section named in any form a manual tool prints
// (manual.Library.ResolveRef); the file must be named. Errors:
// invalid_argument.
func (s *Service) resolve(manualID, path, nodeID string) (manual.Ref, error) {
	r, err := s.Lib.ResolveRef("", manualID, path, nodeID)
	if err == nil && r.Path == "" {
		err = apperr.New(apperr.InvalidArgument, "path (required): a file from manual_ls; or give a ref manual_id/path#node_id as manual_id", `missing argument "path"`)
	}
	return r, err
}

func (s *Service) readParts(ctx context.Context, in ReadRequest) (ReadResult, error) {
	out := ReadResult{ManualID: in.ManualID, Path: in.Path, Scope: in.Scope, Parts: []Part{}, Omitted: []string{}}
	if strings.TrimSpace(in.Path) == "" && strings.TrimSpace(in.NodeID) == "" && len(in.NodeIDs) > 0 {
		// The file may come with the nodes, as refs of manual_find's hits:
		// the first names it, and every other must be of the same file.
		if r, err := s.Lib.ResolveRef("", in.ManualID, "", in.NodeIDs[0]); err == nil && r.Path != "" {
			in.ManualID, in.Path = r.ManualID, r.Path
		}
	}
	r, err := s.resolve(in.ManualID, in.Path, in.NodeID)
	if err != nil {
		return out, err
	}
	in.ManualID, in.Path, in.NodeID = r.ManualID, r.Path, r.NodeID
	in.NodeIDs = slices.Clone(in.NodeIDs)
	for i, id := range in.NodeIDs {
		// A node of the same file may come as a ref too.
		n, err := s.Lib.ResolveRef("", r.ManualID, r.Path, id)
		if err != nil {
			return out, err
		}
		in.NodeIDs[i] = n.NodeID
	}
	if in.Scope == "" {
		in.Scope = in.DefaultScope()
	}
	out.Scope = in.Scope
	// Names in either Unicode form; the answer shows them as on disk.
	manualID, path, err := s.Lib.Resolve(in.ManualID, in.Path)
	if err != nil {
		return out, err
	}
	out.ManualID, out.Path = manualID, path
	maxChars, maxSections := in.MaxChars, in.MaxSections
	if maxChars == 0 {
		maxChars = DefaultReadChars
	}
	if maxSections == 0 {
		maxSections = DefaultReadSections
	}
	if in.TraceID != "" {
		if err := CheckTraceID(in.TraceID); err != nil {
			return out, err
		}
	}
	var ids []string
	switch in.Scope {
	case ScopeSnippet:
		if in.NodeID == "" {
			return out, apperr.New(apperr.InvalidArgument, "give node_id from manual_hits or manual_toc", "scope snippet needs node_id")
		}
		if in.MaxChars == 0 {
			maxChars = DefaultSnippetChars
		}
		part, err := s.snippet(ctx, in, maxChars)
		if err != nil {
			return out, err
		}
		out.Parts = append(out.Parts, part)
		s.finder().RecordUse(in.TraceID, manualID, path, in.NodeID)
		return out, nil
	case ScopeSection:
		if in.NodeID == "" {
			return out, apperr.New(apperr.InvalidArgument, "give node_id from manual_toc", "scope section needs node_id")
		}
		ids = []string{in.NodeID}
	case ScopeSections:
		if len(in.NodeIDs) == 0 {
			return out, apperr.New(apperr.InvalidArgument, "give node_ids from manual_toc", "scope sections needs node_ids")
		}
		ids = in.NodeIDs
	case ScopeFile:
		raw, err := s.Lib.Read(in.ManualID, in.Path)
		if err != nil {
			return out, err
		}
		src := manualfile.NewSource(raw) // "\r\n" and "\r" read as line ends
		text, cut := capChars(src.Text(), maxChars)
		out.Parts = append(out.Parts, Part{NodeID: manualfile.FileID, Title: path, LineStart: 1,
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
		text, n, err := s.Lib.Section(in.ManualID, in.Path, id)
		if err != nil {
			return out, err
		}
		text, cut := capChars(text, left)
		left -= utf8.RuneCountInString(text)
		out.Parts = append(out.Parts, Part{NodeID: n.NodeID, Title: n.Title, LineStart: n.LineStart, LineEnd: n.LineEnd,
			Text: text, Truncated: cut})
		s.finder().RecordUse(in.TraceID, manualID, path, n.NodeID)
	}
	return out, nil
}

// snippet returns the lines of a section (subsections included) that hold a
// term of the query, or of the trace when there is no query, each with its
// line number; with neither, the section's first lines.
// listItem starts a Markdown list item: "- ", "* ", "+ ", "1. ", "1) ".
var listItem = regexp.MustCompile(`^\s*(?:[-*+]|\d{1,9}[.)])\s`)

// textBlocks splits a section's lines into blocks, as [start, end) line
// ranges: paragraphs (ended by a blank line), list items (each starting
// a block), a heading line alone, and a fenced code block whole. Blank
// lines belong to none.
func textBlocks(lines []string) [][2]int {
	var out [][2]int
	start, fence := -1, ""
	end := func(i int) {
		if start >= 0 {
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
				end(i + 1)
			}
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			end(i)
			start, fence = i, t[:3]
			continue
		case t == "":
			end(i)
			continue
		case strings.HasPrefix(t, "#") || listItem.MatchString(l):
			end(i)
		}
		if start < 0 {
			start = i
		}
		if strings.HasPrefix(t, "#") {
			end(i + 1)
		}
	}
	end(len(lines))
	return out
}

func (s *Service) snippet(ctx context.Context, in ReadRequest, maxChars int) (Part, error) {
	text, n, err := s.Lib.Section(in.ManualID, in.Path, in.NodeID)
	if err != nil {
		return Part{}, err
	}
	// Each term with its forms: a block is worth as many terms as it holds.
	var terms [][]string
	switch {
	case in.Query != "":
		plan := queryplan.Analyze(in.Query)
		for _, t := range plan.Terms {
			terms = append(terms, append([]string{t}, queryplan.Variants(t)...))
		}
	case in.TraceID != "":
		ts, err := s.finder().TraceTerms(ctx, in.TraceID)
		if err != nil {
			return Part{}, err
		}
		for _, t := range ts {
			terms = append(terms, []string{t})
		}
	}
	var forms [][]string
	for _, group := range terms {
		var fs []string
		for _, t := range group {
			if f := normalize.Normal(t); f != "" {
				fs = append(fs, f)
			}
		}
		if len(fs) > 0 {
			forms = append(forms, fs)
		}
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	// A matching line comes with its paragraph or list item: the line
	// that holds the word rarely holds the whole answer ("maxBuffer …
	// allowed on stdout or" / "stderr. If exceeded, the child process is
	// terminated"). The blocks holding the most terms come first into
	// the budget, and are shown in document order.
	blocks := textBlocks(lines)
	type pick struct{ block, held int }
	var picks []pick
	for i, bl := range blocks {
		held := len(forms) // no terms: every block, in order
		if len(forms) > 0 {
			norm := normalize.Normal(strings.Join(lines[bl[0]:bl[1]], "\n"))
			held = 0
			for _, fs := range forms {
				if slices.ContainsFunc(fs, func(f string) bool { return strings.Contains(norm, f) }) {
					held++
				}
			}
			if held == 0 {
				continue
			}
		}
		picks = append(picks, pick{i, held})
	}
	slices.SortStableFunc(picks, func(a, b pick) int { return b.held - a.held })
	var chosen []int
	size, shown, cut := 0, 0, false
	for _, p := range picks {
		bl := blocks[p.block]
		entry := 0
		for i := bl[0]; i < bl[1]; i++ {
			line := snippetLine(lines[i])
			entry += utf8.RuneCountInString(fmt.Sprintf("%d: %s\n", n.LineStart+i, line))
		}
		if shown+bl[1]-bl[0] > maxSnippetLines || size+entry > maxChars {
			cut = true
			if len(forms) == 0 {
				break // in document order: nothing after fits either
			}
			continue
		}
		chosen = append(chosen, p.block)
		size, shown = size+entry, shown+bl[1]-bl[0]
	}
	if len(chosen) == 0 && len(picks) > 0 {
		// One block larger than the budget: its lines while they fit.
		bl := &blocks[picks[0].block]
		for i := bl[0]; i < bl[1]; i++ {
			line := snippetLine(lines[i])
			entry := utf8.RuneCountInString(fmt.Sprintf("%d: %s\n", n.LineStart+i, line))
			if i-bl[0] == maxSnippetLines || size+entry > maxChars {
				bl[1] = i
				break
			}
			size += entry
		}
		chosen = append(chosen, picks[0].block)
	}
	slices.Sort(chosen)
	var b strings.Builder
	for k, bi := range chosen {
		bl := blocks[bi]
		if k > 0 && slices.ContainsFunc(lines[blocks[chosen[k-1]][1]:bl[0]], func(l string) bool { return strings.TrimSpace(l) != "" }) {
			b.WriteString("…\n") // lines left out between
		}
		for i := bl[0]; i < bl[1]; i++ {
			line := snippetLine(lines[i])
			fmt.Fprintf(&b, "%d: %s\n", n.LineStart+i, line)
		}
	}
	if len(forms) > 0 && len(picks) == 0 {
		b.WriteString("(no line of this section holds the terms; read scope section for all of it)\n")
	}
	return Part{NodeID: n.NodeID, Title: n.Title, LineStart: n.LineStart, LineEnd: n.LineEnd, Text: b.String(), Truncated: cut}, nil
}

// snippetLine is a line as scope snippet shows it: its indentation kept
// (code and nested list items read wrong flattened), cut to
// snippetLineRunes.
func snippetLine(l string) string {
	line, _ := capChars(strings.TrimRight(l, " \t\r"), snippetLineRunes)
	return line
}

// capChars cuts s to at most n characters.
func capChars(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}

// ExceptsRequest asks for a manual's exception lines.
type ExceptsRequest struct {
	ManualID string   // an id, or a ref naming a file (then only that file, unless Paths)
	Paths    []string // files to scan; nil: every file of the manual
	Query    string   // only top-level sections about this
	MaxHits  int      // 0: DefaultExceptHits
}

// Excepts finds the lines of a manual that state exceptions
// (manual.Library.Exceptions).
func (s *Service) Excepts(ctx context.Context, req ExceptsRequest) (manual.ExceptionResult, error) {
	r, err := s.Lib.ResolveRef("", req.ManualID, "", "")
	if err != nil {
		return manual.ExceptionResult{ManualID: req.ManualID}, err
	}
	if r.Path != "" && len(req.Paths) == 0 {
		req.Paths = []string{r.Path}
	}
	if req.MaxHits == 0 {
		req.MaxHits = DefaultExceptHits
	}
	return s.Lib.Exceptions(ctx, r.ManualID, req.Paths, req.Query, req.MaxHits)
}

// Find is manual_find (Finder.Find).
func (s *Service) Find(ctx context.Context, req Request) (Summary, error) {
	return s.finder().Find(ctx, req)
}

// Hits pages a Find trace (Finder.Hits).
func (s *Service) Hits(ctx context.Context, req HitsRequest) (HitsPage, error) {
	return s.finder().Hits(ctx, req)
}
