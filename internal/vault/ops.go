package vault

import (
	"context"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
)

// The vault's use cases beyond single files — a folder listed in pages, a
// line range read, a plain-text search, a write by mode — with their
// defaults and bounds, as the vault_* tools state them and serve them.
// (A read that counts for coverage is audit.Read.)

// Bounds of the use cases: no answer returns a whole large file by
// default; reads are line ranges capped in characters.
const (
	DefaultListLimit   = 200
	MaxListLimit       = 2000
	DefaultReadLines   = 200
	DefaultReadChars   = 8000
	MaxReadChars       = 100_000
	DefaultSearchHits  = 50
	MaxSearchHits      = 500
	maxSearchLineChars = 200
)

// Listing is a folder's entries, a page of them.
type Listing struct {
	Path      string `json:"path" jsonschema:"the folder listed"`
	Entries   []Info `json:"entries" jsonschema:"files and folders, sorted by path"`
	Truncated bool   `json:"truncated" jsonschema:"true when more entries exist than limit"`
}

// Ls lists a folder ("" for the root), with its subfolders when recursive,
// at most limit entries (0: DefaultListLimit). Errors: those of List.
func (v *Vault) Ls(dir string, recursive bool, limit int) (Listing, error) {
	if limit == 0 {
		limit = DefaultListLimit
	}
	entries, err := v.List(dir, recursive)
	if err != nil {
		return Listing{}, err
	}
	out := Listing{Path: dir, Entries: entries}
	if len(out.Entries) > limit {
		out.Entries, out.Truncated = out.Entries[:limit], true
	}
	if out.Entries == nil {
		out.Entries = []Info{}
	}
	return out, nil
}

// LinesRequest is a line range of a file to read.
type LinesRequest struct {
	Path      string
	StartLine int  // from 1; 0 is 1
	EndLine   int  // 0: StartLine + DefaultReadLines - 1
	WholeFile bool // every line, still capped by MaxChars
	MaxChars  int  // 0: DefaultReadChars
}

// Lines is a line range of a file.
type Lines struct {
	Path       string `json:"path" jsonschema:"the file read"`
	StartLine  int    `json:"start_line" jsonschema:"first line returned"`
	EndLine    int    `json:"end_line" jsonschema:"last line returned (0 when the file is empty)"`
	TotalLines int    `json:"total_lines" jsonschema:"lines in the whole file"`
	Text       string `json:"text" jsonschema:"the lines, joined by newlines"`
	Truncated  bool   `json:"truncated" jsonschema:"true when max_chars cut the range short"`
	NextLine   int    `json:"next_line,omitempty" jsonschema:"pass as start_line to read on; absent at the end of the file"`
}

// Lines reads a line range, cut at req.MaxChars on a line's end (the first
// line always comes whole). Errors: invalid_argument for a range that ends
// before it starts or starts past the end; those of ReadFile.
func (v *Vault) Lines(req LinesRequest) (Lines, error) {
	data, err := v.ReadFile(req.Path)
	if err != nil {
		return Lines{}, err
	}
	maxChars := req.MaxChars
	if maxChars == 0 {
		maxChars = DefaultReadChars
	}
	lines := SplitLines(string(data))
	out := Lines{Path: req.Path, TotalLines: len(lines)}
	start := max(req.StartLine, 1)
	end := req.EndLine
	switch {
	case req.WholeFile:
		start, end = 1, len(lines)
	case end == 0:
		end = start + DefaultReadLines - 1
	case end < start:
		return out, apperr.New(apperr.InvalidArgument, "give end_line >= start_line", "end_line %d is before start_line %d", end, start)
	}
	if start > len(lines) && len(lines) > 0 {
		return out, apperr.New(apperr.InvalidArgument, fmt.Sprintf("the file has %d lines", len(lines)),
			"start_line %d is past the end of %s", start, req.Path)
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
	return out, nil
}

// SplitLines splits text (as ReadFile gives it: "\n" line ends) into lines
// without their "\n"; a last line without a newline counts, an empty text
// has none.
func SplitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// SearchRequest is a plain-text search of the vault's lines.
type SearchRequest struct {
	Query      string // case-insensitive, taken literally
	Path       string // the folder to search; "" for the whole vault
	Glob       string // only paths matching (path.Match), e.g. artifacts/*.md
	MaxResults int    // 0: DefaultSearchHits
}

// Match is one matching line.
type Match struct {
	Path string `json:"path" jsonschema:"vault file"`
	Line int    `json:"line" jsonschema:"line number, from 1"`
	Text string `json:"text" jsonschema:"the line, cut to 200 characters"`
}

// SearchResult lists matching lines.
type SearchResult struct {
	Query        string   `json:"query" jsonschema:"the text searched for"`
	Matches      []Match  `json:"matches" jsonschema:"matching lines in path order"`
	FilesScanned int      `json:"files_scanned" jsonschema:"files read"`
	Truncated    bool     `json:"truncated" jsonschema:"true when max_results stopped the search"`
	Warnings     []string `json:"warnings,omitempty" jsonschema:"files not searched because they are not text in an encoding langspec reads"`
}

// searchCheckEvery is how many lines Search reads between looks at the
// call's context, so a cancelled search of a large vault stops at once.
const searchCheckEvery = 256

// Search finds the lines holding req.Query, in path order, up to
// req.MaxResults. Files too large to read are passed over, and files in no
// encoding langspec reads are named in Warnings. Errors: invalid_argument
// for a bad glob; the context's; those of List and ReadFile.
func (v *Vault) Search(ctx context.Context, req SearchRequest) (SearchResult, error) {
	limit := req.MaxResults
	if limit == 0 {
		limit = DefaultSearchHits
	}
	if req.Glob != "" {
		if _, err := path.Match(req.Glob, ""); err != nil {
			return SearchResult{}, apperr.New(apperr.InvalidArgument, "use * ? and [a-z] within a path segment, e.g. artifacts/*.md",
				"bad glob %q", req.Glob)
		}
	}
	entries, err := v.searchedFiles(req.Path, req.Glob)
	if err != nil {
		return SearchResult{}, err
	}
	out := SearchResult{Query: req.Query, Matches: []Match{}}
	needle := strings.ToLower(req.Query)
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		data, err := v.ReadFile(e.Path)
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
		for i, line := range SplitLines(string(data)) {
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
			out.Matches = append(out.Matches, Match{Path: e.Path, Line: i + 1, Text: line})
		}
	}
	return out, nil
}

// Write modes of an existing file.
const (
	ModeOverwrite = "overwrite"
	ModeAppend    = "append"
)

// Write overwrites or appends to an existing file, as mode says.
// Errors: invalid_argument for another mode; those of Overwrite and Append.
func (v *Vault) Write(p, mode string, data []byte) (Result, error) {
	switch mode {
	case ModeOverwrite:
		return v.Overwrite(p, data)
	case ModeAppend:
		return v.Append(p, data)
	}
	return Result{}, apperr.New(apperr.InvalidArgument, "use overwrite or append", "mode %q is not a write mode", mode)
}
