package tools

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/vault"
	"github.com/langspec/langspec/internal/vault/audit"
)

// Bounds of the vault tools. No tool returns a whole large file by default:
// reads are line ranges capped in characters.
const (
	defaultListLimit   = 200
	maxListLimit       = 2000
	defaultReadLines   = 200
	maxVaultReadChars  = 100_000
	defaultSearchHits  = 50
	maxSearchHits      = 500
	maxSearchLineChars = 200
	maxVaultPathChars  = 1024
	maxContentChars    = 2 << 20
)

// vaultTools serves the vault tools over one vault.
type vaultTools struct {
	v   *vault.Vault
	log *slog.Logger
}

// VaultLsIn lists a folder.
type VaultLsIn struct {
	Path      string `json:"path,omitempty" jsonschema:"vault folder; empty for the root"`
	Recursive bool   `json:"recursive,omitempty" jsonschema:"list subfolders too"`
	Limit     int    `json:"limit,omitempty" jsonschema:"most entries to return"`
}

// VaultLsOut is a folder listing.
type VaultLsOut struct {
	Path      string       `json:"path" jsonschema:"the folder listed"`
	Entries   []vault.Info `json:"entries" jsonschema:"files and folders, sorted by path"`
	Truncated bool         `json:"truncated" jsonschema:"true when more entries exist than limit"`
}

// VaultReadIn reads a line range of a file.
type VaultReadIn struct {
	Path      string `json:"path" jsonschema:"vault file"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, from 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return; default start_line+199"`
	WholeFile bool   `json:"whole_file,omitempty" jsonschema:"return the whole file (still capped by max_chars)"`
	MaxChars  int    `json:"max_chars,omitempty" jsonschema:"most characters of text to return"`
}

// VaultReadOut is a line range of a file.
type VaultReadOut struct {
	Path       string `json:"path" jsonschema:"the file read"`
	StartLine  int    `json:"start_line" jsonschema:"first line returned"`
	EndLine    int    `json:"end_line" jsonschema:"last line returned (0 when the file is empty)"`
	TotalLines int    `json:"total_lines" jsonschema:"lines in the whole file"`
	Text       string `json:"text" jsonschema:"the lines, joined by newlines"`
	Truncated  bool   `json:"truncated" jsonschema:"true when max_chars cut the range short"`
	NextLine   int    `json:"next_line,omitempty" jsonschema:"pass as start_line to read on; absent at the end of the file"`
}

// VaultSearchIn is a plain-text search.
type VaultSearchIn struct {
	Query      string `json:"query" jsonschema:"text to find, case-insensitive, taken literally"`
	Path       string `json:"path,omitempty" jsonschema:"folder to search; empty for the whole vault"`
	Glob       string `json:"glob,omitempty" jsonschema:"only paths matching, e.g. artifacts/*.md (path.Match)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"most matching lines to return"`
}

// VaultMatch is one matching line.
type VaultMatch struct {
	Path string `json:"path" jsonschema:"vault file"`
	Line int    `json:"line" jsonschema:"line number, from 1"`
	Text string `json:"text" jsonschema:"the line, cut to 200 characters"`
}

// VaultSearchOut lists matching lines.
type VaultSearchOut struct {
	Query        string       `json:"query" jsonschema:"the text searched for"`
	Matches      []VaultMatch `json:"matches" jsonschema:"matching lines in path order"`
	FilesScanned int          `json:"files_scanned" jsonschema:"files read"`
	Truncated    bool         `json:"truncated" jsonschema:"true when max_results stopped the search"`
	Warnings     []string     `json:"warnings,omitempty" jsonschema:"files not searched because they are not text in an encoding langspec reads"`
}

// VaultFindScope narrows vault_find.
type VaultFindScope struct {
	RelativeDir string `json:"relative_dir,omitempty" jsonschema:"folder to search, e.g. notes; empty for the whole vault"`
	Glob        string `json:"glob,omitempty" jsonschema:"only files matching, e.g. artifacts/*.md or *.json"`
}

// VaultFindBudget bounds vault_find.
type VaultFindBudget struct {
	TimeMS        int `json:"time_ms,omitempty" jsonschema:"time budget in milliseconds"`
	MaxCandidates int `json:"max_candidates,omitempty" jsonschema:"most candidate lines"`
}

// VaultFindIn is a thorough vault search.
type VaultFindIn struct {
	Query  string          `json:"query" jsonschema:"words to find"`
	Also   []string        `json:"also,omitempty" jsonschema:"up to 4 other phrasings; lines holding any of them are found too"`
	Scope  VaultFindScope  `json:"scope,omitzero" jsonschema:"where to look: a folder or a glob"`
	Budget VaultFindBudget `json:"budget,omitzero" jsonschema:"limits of the search"`
}

// VaultScanIn scans a file chunk by chunk.
type VaultScanIn struct {
	Path       string `json:"path" jsonschema:"vault file"`
	Cursor     string `json:"cursor,omitempty" jsonschema:"next_cursor from the previous chunk; omit to start"`
	ChunkLines int    `json:"chunk_lines,omitempty" jsonschema:"lines per chunk"`
}

// VaultCoverageIn asks what of a file has been read.
type VaultCoverageIn struct {
	Path string `json:"path" jsonschema:"vault file"`
}

// ArtifactAuditIn names the artifacts to audit.
type ArtifactAuditIn struct {
	Paths []string `json:"paths,omitempty" jsonschema:"artifacts to audit; omit for all (never the daily log)"`
}

// VaultCreateIn creates a file.
type VaultCreateIn struct {
	Path    string `json:"path" jsonschema:"new file; artifacts/ takes .md and .json, artifacts/daily/ only YYYY-MM-DD.md"`
	Content string `json:"content" jsonschema:"the file's content"`
}

// VaultWriteIn overwrites or appends to an existing file.
type VaultWriteIn struct {
	Path    string `json:"path" jsonschema:"existing vault file"`
	Content string `json:"content" jsonschema:"the content to write or append"`
	Mode    string `json:"mode" jsonschema:"overwrite or append; artifacts/daily/ files take append only"`
}

// VaultReplaceIn replaces literal text.
type VaultReplaceIn struct {
	Path          string `json:"path" jsonschema:"existing vault file"`
	Old           string `json:"old" jsonschema:"literal text to find"`
	New           string `json:"new" jsonschema:"text to put in its place"`
	ExpectedCount int    `json:"expected_count,omitempty" jsonschema:"how many times old must occur; the file is left alone otherwise"`
}

func vaultToolset() []Tool {
	no := false
	// Writes change only the vault; an overwrite or replace destroys what
	// was there, a create never does.
	writes := func(destructive, idempotent bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{DestructiveHint: &destructive, IdempotentHint: idempotent, OpenWorldHint: &no}
	}
	// The path rule is said where a model writes; a read with a bad path
	// gets an error that says it.
	rules := " Paths are vault-relative; '..', absolute paths and symlinks are refused."
	return needing(func(d *Deps) bool { return d.Vault != nil }, []Tool{
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_ls", Title: "List vault files",
			Description: "List the files and folders of a vault folder (artifacts/, drafts/, notes/).",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			maxLen(s, "path", maxVaultPathChars)
			intRange(s, "limit", 1, maxListLimit, defaultListLimit)
		}, (*vaultTools).ls, renderVaultLs),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_read", Title: "Read vault lines",
			Description: "Read a line range of a vault file (default 200 lines from start_line), or whole_file, capped by max_chars; read on with next_line. Lines read count for vault_coverage.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
			s.Properties["start_line"].Minimum = jsonschema.Ptr(1.0)
			s.Properties["end_line"].Minimum = jsonschema.Ptr(1.0)
			intRange(s, "max_chars", 1, maxVaultReadChars, defaultPageChars)
		}, (*vaultTools).read, renderVaultRead),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_search", Title: "Search vault text",
			Description: "Find lines holding a text (case-insensitive, literal) in vault files, with file and line numbers; narrow with path or glob.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "query", 1000)
			maxLen(s, "path", maxVaultPathChars)
			maxLen(s, "glob", maxVaultPathChars)
			intRange(s, "max_results", 1, maxSearchHits, defaultSearchHits)
		}, (*vaultTools).search, renderVaultSearch),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_find", Title: "Find in the vault",
			Description: "Find a topic across vault files without misses: normalised matching (width, case, space), then ignoring separators, then a judgement (too few, one file) with next_actions.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "query", 1000)
			intRange(s.Properties["budget"], "time_ms", 1, 600_000, vault.DefaultFindTimeMS)
			intRange(s.Properties["budget"], "max_candidates", 1, 2000, vault.DefaultFindMaxCandidates)
			maxLen(s.Properties["scope"], "relative_dir", maxVaultPathChars)
			s.Properties["also"].MaxItems = jsonschema.Ptr(vault.MaxAlso)
			s.Properties["also"].Items.MaxLength = jsonschema.Ptr(1000)
			maxLen(s.Properties["scope"], "glob", maxVaultPathChars)
		}, (*vaultTools).find, renderVaultFind),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_scan", Title: "Scan a vault file",
			Description: "Read a file chunk by chunk, regardless of words, so nothing is missed: the first pass from line 1, later passes only the uncovered ranges. Pass next_cursor to go on; chunks count as read for vault_coverage.",
			// Read-only for the model: each chunk is only noted in
			// .system/coverage.json, the server's own bookkeeping.
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
			maxLen(s, "cursor", 1000)
			intRange(s, "chunk_lines", 1, audit.MaxChunkLines, audit.DefaultChunkLines)
		}, (*vaultTools).scan, renderVaultScan),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_coverage", Title: "Vault file coverage",
			Description: "Which line ranges of a vault file were read or scanned, which artifacts cite, which are uncovered: coverage_ratio and next_actions (vault_scan below 0.9).",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
		}, (*vaultTools).coverage, renderVaultCoverage),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "artifact_audit", Title: "Audit artifacts",
			Description: "Check artifacts (JSON nodes/edges with source_lines, or Mermaid with %% source lines; docs/artifacts.md) for elements without or with missing sources, orphan branches and one-way references, with next_actions.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			s.Properties["paths"].MaxItems = jsonschema.Ptr(200)
			s.Properties["paths"].Items = &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(maxVaultPathChars)}
		}, (*vaultTools).audit, renderAudit),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_create", Title: "Create a vault file",
			Description: "Create a new vault file (folders are made); never replaces one (vault_write does). artifacts/ takes .md and .json; the daily log artifacts/daily/YYYY-MM-DD.md is created here, then only appended to." + rules,
			Annotations: writes(false, false),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
			maxLen(s, "content", maxContentChars)
		}, (*vaultTools).create, renderVaultWrite),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_write", Title: "Write a vault file",
			Description: "Overwrite or append to an existing vault file (mode is required). Overwrites are atomic; daily logs take append only." + rules,
			Annotations: writes(true, false),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
			maxLen(s, "content", maxContentChars)
			s.Properties["mode"].Enum = []any{"overwrite", "append"}
		}, (*vaultTools).write, renderVaultWrite),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_replace", Title: "Replace text in a vault file",
			Description: "Replace literal text in a vault file only when it occurs exactly expected_count times (default 1); otherwise nothing changes and the count is reported. Not for daily logs." + rules,
			Annotations: writes(true, false),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
			nonEmpty(s, "old", maxContentChars)
			maxLen(s, "new", maxContentChars)
			intRange(s, "expected_count", 1, 1_000_000, 1)
		}, (*vaultTools).replace, renderVaultWrite),
	})
}

// bindVault binds the vault tools to their dependencies.
func bindVault(d *Deps) *vaultTools { return &vaultTools{v: d.Vault, log: d.logger()} }

func (vt *vaultTools) ls(_ context.Context, in VaultLsIn) (VaultLsOut, error) {
	limit := in.Limit
	if limit == 0 {
		limit = defaultListLimit
	}
	entries, err := vt.v.List(in.Path, in.Recursive)
	if err != nil {
		return VaultLsOut{}, err
	}
	out := VaultLsOut{Path: in.Path, Entries: entries}
	if len(out.Entries) > limit {
		out.Entries, out.Truncated = out.Entries[:limit], true
	}
	if out.Entries == nil {
		out.Entries = []vault.Info{}
	}
	return out, nil
}

func (vt *vaultTools) read(ctx context.Context, in VaultReadIn) (VaultReadOut, error) {
	data, err := vt.v.ReadFile(in.Path)
	if err != nil {
		return VaultReadOut{}, err
	}
	maxChars := in.MaxChars
	if maxChars == 0 {
		maxChars = defaultPageChars
	}
	lines := splitLines(string(data))
	out := VaultReadOut{Path: in.Path, TotalLines: len(lines)}
	start := max(in.StartLine, 1)
	end := in.EndLine
	switch {
	case in.WholeFile:
		start, end = 1, len(lines)
	case end == 0:
		end = start + defaultReadLines - 1
	case end < start:
		return out, apperr.New(apperr.InvalidArgument, "give end_line >= start_line", "end_line %d is before start_line %d", end, start)
	}
	if start > len(lines) && len(lines) > 0 {
		return out, apperr.New(apperr.InvalidArgument, fmt.Sprintf("the file has %d lines", len(lines)),
			"start_line %d is past the end of %s", start, in.Path)
	}
	end = min(end, len(lines))
	var b strings.Builder
	last := start - 1
	for i := start; i <= end; i++ {
		line := lines[i-1]
		if utf8.RuneCountInString(b.String())+utf8.RuneCountInString(line)+1 > maxChars && i > start {
			out.Truncated = true
			break
		}
		if i > start {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		last = i
	}
	out.StartLine, out.EndLine, out.Text = start, last, b.String()
	if last < len(lines) {
		out.NextLine = last + 1
	}
	if last >= start {
		// What was read counts for vault_coverage. Failing to note it must
		// not fail the read: the model has its lines either way.
		if err := audit.Record(vt.v, in.Path, start, last); err != nil {
			vt.log.WarnContext(ctx, "coverage not recorded", "path", in.Path, "err", err)
		}
	}
	return out, nil
}

// splitLines splits text (as vault.ReadFile gives it: "\n" line ends) into
// lines without their "\n"; a last line without a newline counts, an empty
// text has none.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// searchCheckEvery is how many lines vault_search reads between looks at
// the call's context, so a cancelled search of a large vault stops at once.
const searchCheckEvery = 256

func (vt *vaultTools) search(ctx context.Context, in VaultSearchIn) (VaultSearchOut, error) {
	limit := in.MaxResults
	if limit == 0 {
		limit = defaultSearchHits
	}
	if in.Glob != "" {
		if _, err := path.Match(in.Glob, ""); err != nil {
			return VaultSearchOut{}, apperr.New(apperr.InvalidArgument, "use * ? and [a-z] within a path segment, e.g. artifacts/*.md",
				"bad glob %q", in.Glob)
		}
	}
	entries, err := vt.v.List(in.Path, true)
	if err != nil {
		return VaultSearchOut{}, err
	}
	out := VaultSearchOut{Query: in.Query, Matches: []VaultMatch{}}
	needle := strings.ToLower(in.Query)
	for _, e := range entries {
		if e.IsDir {
			continue
		}
		if in.Glob != "" && !vault.MatchGlob(in.Glob, e.Path) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		data, err := vt.v.ReadFile(e.Path)
		switch apperr.CodeOf(err) {
		case apperr.FileTooLarge:
			continue // unreadable through the vault either way
		case apperr.Undecodable:
			out.Warnings = append(out.Warnings, e.Path+" not searched: not text in an encoding langspec reads")
			continue
		}
		if err != nil {
			return out, err
		}
		out.FilesScanned++
		for i, line := range splitLines(string(data)) {
			if i%searchCheckEvery == 0 && i > 0 {
				if err := ctx.Err(); err != nil {
					return out, err
				}
			}
			if !strings.Contains(strings.ToLower(line), needle) {
				continue
			}
			if len(out.Matches) == limit {
				out.Truncated = true
				return out, nil
			}
			if r := []rune(line); len(r) > maxSearchLineChars {
				line = string(r[:maxSearchLineChars]) + "…"
			}
			out.Matches = append(out.Matches, VaultMatch{Path: e.Path, Line: i + 1, Text: line})
		}
	}
	return out, nil
}

func (vt *vaultTools) find(ctx context.Context, in VaultFindIn) (vault.FindResult, error) {
	return vt.v.Find(ctx, vault.FindRequest{
		Query: in.Query, Also: in.Also, Dir: in.Scope.RelativeDir, Glob: in.Scope.Glob,
		TimeBudget:    time.Duration(in.Budget.TimeMS) * time.Millisecond,
		MaxCandidates: in.Budget.MaxCandidates,
	})
}

func (vt *vaultTools) scan(ctx context.Context, in VaultScanIn) (audit.ScanResult, error) {
	return audit.Scan(ctx, vt.v, in.Path, in.Cursor, in.ChunkLines)
}

func (vt *vaultTools) coverage(ctx context.Context, in VaultCoverageIn) (audit.Report, error) {
	return audit.Coverage(ctx, vt.v, in.Path)
}

func (vt *vaultTools) audit(ctx context.Context, in ArtifactAuditIn) (audit.AuditReport, error) {
	return audit.Audit(ctx, vt.v, in.Paths)
}

func (vt *vaultTools) create(_ context.Context, in VaultCreateIn) (vault.Result, error) {
	return vt.v.Create(in.Path, []byte(in.Content))
}

func (vt *vaultTools) write(_ context.Context, in VaultWriteIn) (vault.Result, error) {
	switch in.Mode {
	case "overwrite":
		return vt.v.Overwrite(in.Path, []byte(in.Content))
	case "append":
		return vt.v.Append(in.Path, []byte(in.Content))
	}
	return vault.Result{}, apperr.New(apperr.InvalidArgument, "use overwrite or append", "mode %q is not a write mode", in.Mode)
}

func (vt *vaultTools) replace(_ context.Context, in VaultReplaceIn) (vault.Result, error) {
	expected := in.ExpectedCount
	if expected == 0 {
		expected = 1
	}
	return vt.v.Replace(in.Path, in.Old, in.New, expected)
}

func renderVaultLs(out VaultLsOut) string {
	if len(out.Entries) == 0 {
		return "The folder is empty."
	}
	var b strings.Builder
	for _, e := range out.Entries {
		if e.IsDir {
			fmt.Fprintf(&b, "%s/\n", e.Path)
		} else {
			fmt.Fprintf(&b, "%s (%d bytes)\n", e.Path, e.Size)
		}
	}
	if out.Truncated {
		b.WriteString("[more entries: raise limit or list a subfolder]\n")
	}
	return b.String()
}

func renderVaultRead(out VaultReadOut) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines %d–%d of %d\n\n%s\n", out.Path, out.StartLine, out.EndLine, out.TotalLines, out.Text)
	if out.NextLine > 0 {
		fmt.Fprintf(&b, "\n[more with start_line=%d]\n", out.NextLine)
	}
	return b.String()
}

func renderVaultSearch(out VaultSearchOut) string {
	if len(out.Matches) == 0 {
		return fmt.Sprintf("No line contains %q (%d files scanned).", out.Query, out.FilesScanned)
	}
	var b strings.Builder
	for _, m := range out.Matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", m.Path, m.Line, m.Text)
	}
	if out.Truncated {
		b.WriteString("[more matches: raise max_results or narrow path/glob]\n")
	}
	return b.String()
}

func renderVaultFind(r vault.FindResult) string {
	var b strings.Builder
	st := r.Stats
	fmt.Fprintf(&b, "%d candidates for %q (%d normalized, %d loose) in %d of %d files",
		len(r.Candidates), r.Query, st.NormalizedHits, st.LooseHits, st.FilesWithHits, st.FilesScanned)
	if r.CutoffReason != "" {
		fmt.Fprintf(&b, "; cut short: %s", r.CutoffReason)
	}
	b.WriteByte('\n')
	for _, c := range r.Candidates {
		fmt.Fprintf(&b, "%s:%d [%s] %s\n", c.Path, c.Line, c.Stage, c.Text)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	fmt.Fprintf(&b, "next_actions: %s\n", strings.Join(r.NextActions, ", "))
	return b.String()
}

func renderVaultScan(r audit.ScanResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s lines %d–%d", r.Path, r.AppliedRange[0], r.AppliedRange[1])
	if r.EOF {
		b.WriteString(" (end)")
	}
	fmt.Fprintf(&b, "\n\n%s\n", strings.TrimRight(r.Text, "\n"))
	if r.NextCursor != "" {
		fmt.Fprintf(&b, "\n[more with cursor=%s]\n", r.NextCursor)
	}
	if len(r.NextActions) > 0 {
		fmt.Fprintf(&b, "next_actions: %s\n", strings.Join(r.NextActions, ", "))
	}
	return b.String()
}

func renderVaultCoverage(r audit.Report) string {
	return fmt.Sprintf("%s: %.0f%% of %d lines read or cited; covered %v; cited %v; uncovered %v; next_actions: %s",
		r.Path, r.CoverageRatio*100, r.TotalLines, r.Covered, r.CitedByArtifacts, r.Uncovered, strings.Join(r.NextActions, ", "))
}

func renderAudit(r audit.AuditReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d artifacts audited, %d findings\n", r.Artifacts, len(r.Findings))
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "%s %s: %s — %s\n", f.Artifact, f.Element, f.Kind, f.Detail)
	}
	fmt.Fprintf(&b, "next_actions: %s\n", strings.Join(r.NextActions, ", "))
	return b.String()
}

func renderVaultWrite(r vault.Result) string {
	return fmt.Sprintf("%s: %s, now %d bytes, %d lines", r.Path, r.Mode, r.Bytes, r.Lines)
}
