package tools

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/vault"
	"github.com/langspec/langspec/internal/vault/audit"
)

// Bounds of the vault tools' arguments; those of the use cases are
// vault's (vault.DefaultListLimit, ...).
const (
	maxVaultPathChars = 1024
	maxContentChars   = 2 << 20
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
type VaultLsOut = vault.Listing

// VaultReadIn reads a line range of a file.
type VaultReadIn struct {
	Path      string `json:"path" jsonschema:"vault file"`
	StartLine int    `json:"start_line,omitempty" jsonschema:"first line to return, from 1"`
	EndLine   int    `json:"end_line,omitempty" jsonschema:"last line to return; default start_line+199"`
	WholeFile bool   `json:"whole_file,omitempty" jsonschema:"return the whole file (still capped by max_chars)"`
	MaxChars  int    `json:"max_chars,omitempty" jsonschema:"most characters of text to return"`
}

// VaultReadOut is a line range of a file.
type VaultReadOut = vault.Lines

// VaultSearchIn is a plain-text search.
type VaultSearchIn struct {
	Query      string `json:"query" jsonschema:"text to find, case-insensitive, taken literally"`
	Path       string `json:"path,omitempty" jsonschema:"folder to search; empty for the whole vault"`
	Glob       string `json:"glob,omitempty" jsonschema:"only paths matching, e.g. artifacts/*.md (path.Match)"`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"most matching lines to return"`
}

// VaultMatch is one matching line.
type VaultMatch = vault.Match

// VaultSearchOut lists matching lines.
type VaultSearchOut = vault.SearchResult

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
			intRange(s, "limit", 1, vault.MaxListLimit, vault.DefaultListLimit)
		}, (*vaultTools).ls, renderVaultLs),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_read", Title: "Read vault lines",
			Description: "Read a line range of a vault file (default 200 lines from start_line), or whole_file, capped by max_chars; read on with next_line. Lines read count for vault_coverage.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "path", maxVaultPathChars)
			s.Properties["start_line"].Minimum = jsonschema.Ptr(1.0)
			s.Properties["end_line"].Minimum = jsonschema.Ptr(1.0)
			intRange(s, "max_chars", 1, vault.MaxReadChars, vault.DefaultReadChars)
		}, (*vaultTools).read, renderVaultRead),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_search", Title: "Search vault text",
			Description: "Find lines holding a text (case-insensitive, literal) in vault files, with file and line numbers; narrow with path or glob.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "query", 1000)
			maxLen(s, "path", maxVaultPathChars)
			maxLen(s, "glob", maxVaultPathChars)
			intRange(s, "max_results", 1, vault.MaxSearchHits, vault.DefaultSearchHits)
		}, (*vaultTools).search, renderVaultSearch),
		newTool(CategoryVault, bindVault, mcp.Tool{
			Name: "vault_find", Title: "Find in the vault",
			Description: "Find a topic across vault files without misses: normalised matching (width, case, space), then ignoring separators; the best file first; then a judgement (too few, one file) with next_actions.",
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
	return vt.v.Ls(in.Path, in.Recursive, in.Limit)
}

func (vt *vaultTools) read(ctx context.Context, in VaultReadIn) (VaultReadOut, error) {
	return audit.Read(ctx, vt.v, vault.LinesRequest{Path: in.Path, StartLine: in.StartLine, EndLine: in.EndLine,
		WholeFile: in.WholeFile, MaxChars: in.MaxChars}, vt.log)
}

func (vt *vaultTools) search(ctx context.Context, in VaultSearchIn) (VaultSearchOut, error) {
	return vt.v.Search(ctx, vault.SearchRequest{Query: in.Query, Path: in.Path, Glob: in.Glob, MaxResults: in.MaxResults})
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
	return vt.v.Write(in.Path, in.Mode, []byte(in.Content))
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
	// One heading a file, the best file first (the order Find gives),
	// with how many of its lines are shown: the path is not repeated on
	// every line, and a reader sees at once where the lines are.
	shown := map[string]int{}
	for _, c := range r.Candidates {
		shown[c.Path]++
	}
	last := ""
	for _, c := range r.Candidates {
		if c.Path != last {
			last = c.Path
			unit := "lines"
			if shown[c.Path] == 1 {
				unit = "line"
			}
			fmt.Fprintf(&b, "%s (%d %s)\n", c.Path, shown[c.Path], unit)
		}
		how := c.Stage
		if len(c.Phrasings) > 0 {
			how += ": " + strings.Join(c.Phrasings, ", ") // which phrasings the line holds
		}
		fmt.Fprintf(&b, "  %d [%s] %s\n", c.Line, how, c.Text)
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
