package audit

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/vault"
)

const (
	DefaultChunkLines = 200
	MaxChunkLines     = 1000
	// DefaultMaxChars caps the text of one chunk, in characters (runes), so
	// a chunk of long lines cannot flood a model's context.
	DefaultMaxChars = 20000

	// Truncation reasons: why a chunk stopped before its range did.
	TruncatedChunkLines = "chunk_lines"
	TruncatedMaxChars   = "max_chars"

	modeFirst     = "first"     // first pass: every line from 1 on
	modeUncovered = "uncovered" // later passes: uncovered ranges only

	// cursorHashLen is how much of the content hash a cursor carries: enough
	// to notice the file changed between calls, short enough to stay opaque.
	cursorHashLen = 16
)

// ScanResult is one chunk of a scan. AppliedRange is [0,0] when no line was
// returned (empty file, or nothing left to scan).
type ScanResult struct {
	Path         string `json:"path" jsonschema:"the file scanned"`
	AppliedRange [2]int `json:"applied_range" jsonschema:"lines [start, end] returned, 1-based; [0, 0] when none"` // inclusive
	Text         string `json:"text" jsonschema:"the lines as stored"`                                             // newlines included
	// NextCursor continues the scan; "" at the end.
	NextCursor string `json:"next_cursor" jsonschema:"pass as cursor to go on; empty at the end"`
	EOF        bool   `json:"eof" jsonschema:"true when nothing is left to scan"`
	// TruncatedReason says why the chunk ended before its range: "" (the range
	// or the file ended), "chunk_lines" or "max_chars".
	TruncatedReason string   `json:"truncated_reason" jsonschema:"why the chunk ended early: chunk_lines, max_chars, or empty"`
	NextActions     []string `json:"next_actions" jsonschema:"vault_coverage at the end when coverage is still low; empty otherwise"`
}

// scanCursor is the decoded cursor: where to go on, in which mode, for which
// content.
type scanCursor struct {
	Start int    `json:"s"`
	Mode  string `json:"m"`
	Hash  string `json:"h"`
}

// Scan returns the next chunk of path and records it as covered.
//
// With an empty cursor the mode is chosen once for the whole pass: if
// nothing is recorded as read for the file's current content, it is a first
// pass from line 1 through every line; otherwise it visits only the ranges
// Coverage reports uncovered (neither read nor cited), in order, one range
// per chunk at most, and reports EOF after the last. Each chunk has at most
// chunkLines lines (0 means DefaultChunkLines; more than MaxChunkLines is cut
// to it) and DefaultMaxChars characters; a chunk cut by the character cap
// ends at a line boundary, except that a single line over the cap is cut
// inside and still counts as read, so the scan always moves on.
//
// Errors: invalid_argument for a negative chunkLines, a cursor that is not
// one Scan returned, or one issued for different content of the file (it
// changed: start over without a cursor); the vault's read and write errors;
// ctx.Err() when ctx ends before the chunk is recorded.
func Scan(ctx context.Context, v *vault.Vault, path string, cursor string, chunkLines int) (ScanResult, error) {
	return scan(ctx, v, path, cursor, chunkLines, DefaultMaxChars)
}

func scan(ctx context.Context, v *vault.Vault, path, cursor string, chunkLines, maxChars int) (ScanResult, error) {
	switch {
	case chunkLines < 0:
		return ScanResult{}, apperr.New(apperr.InvalidArgument, "omit chunk_lines or give 1 to 1000",
			"chunk_lines %d is negative", chunkLines)
	case chunkLines == 0:
		chunkLines = DefaultChunkLines
	case chunkLines > MaxChunkLines:
		chunkLines = MaxChunkLines
	}
	c, err := readContent(v, path)
	if err != nil {
		return ScanResult{}, err
	}
	total := len(c.lines)
	cur := scanCursor{Start: 1}
	if cursor != "" {
		if cur, err = decodeCursor(cursor); err != nil {
			return ScanResult{}, err
		}
		if cur.Hash != c.hash[:cursorHashLen] {
			return ScanResult{}, apperr.New(apperr.InvalidArgument, "call vault_scan again without a cursor to scan the new content",
				"%s changed since this cursor was issued", c.canon)
		}
		if cur.Start > total+1 {
			return ScanResult{}, badCursor("position out of range")
		}
	}
	s, _, _, err := loadStore(v)
	if err != nil {
		return ScanResult{}, err
	}
	read := readRanges(s, c)
	cited, err := citedRanges(ctx, v, c.canon, total)
	if err != nil {
		return ScanResult{}, err
	}
	if cursor == "" {
		cur.Mode = modeFirst
		if len(read) > 0 {
			cur.Mode = modeUncovered
		}
	}

	// [lo, hi] is the stretch this chunk may take: the rest of the file on a
	// first pass, the rest of the next uncovered range otherwise.
	lo, hi := 0, 0
	switch cur.Mode {
	case modeFirst:
		if cur.Start <= total {
			lo, hi = cur.Start, total
		}
	case modeUncovered:
		for _, r := range complement(mergeRanges(append(append([][2]int{}, read...), cited...)), total) {
			if r[1] >= cur.Start {
				lo, hi = max(r[0], cur.Start), r[1]
				break
			}
		}
	}

	res := ScanResult{Path: c.canon, NextActions: []string{}}
	if lo > 0 {
		end := min(hi, lo+chunkLines-1)
		if end < hi {
			res.TruncatedReason = TruncatedChunkLines
		}
		text, cutEnd, cut := takeChars(c.lines[lo-1:end], lo, maxChars)
		if cut {
			end, res.TruncatedReason = cutEnd, TruncatedMaxChars
		}
		res.AppliedRange, res.Text = [2]int{lo, end}, text
		if err := record(v, c, res.AppliedRange); err != nil {
			return ScanResult{}, err
		}
		read = mergeRanges(append(read, res.AppliedRange))
		if more := hasMore(cur.Mode, read, cited, end, total); more {
			res.NextCursor = encodeCursor(scanCursor{Start: end + 1, Mode: cur.Mode, Hash: c.hash[:cursorHashLen]})
		}
	}
	res.EOF = res.NextCursor == ""
	if res.EOF && ratio(mergeRanges(append(read, cited...)), total) < CoverageThreshold {
		res.NextActions = append(res.NextActions, ActionVaultCoverage)
	}
	return res, nil
}

// hasMore reports whether the pass has lines to visit after line end.
func hasMore(mode string, read, cited [][2]int, end, total int) bool {
	if mode == modeFirst {
		return end < total
	}
	for _, r := range complement(mergeRanges(append(append([][2]int{}, read...), cited...)), total) {
		if r[1] > end {
			return true
		}
	}
	return false
}

// takeChars joins lines (the first is line number first) up to maxChars
// characters. cut reports that lines were left out or the only line was
// shortened; end is then the last line (partly) returned.
func takeChars(lines []string, first, maxChars int) (text string, end int, cut bool) {
	var b strings.Builder
	n := 0
	for i, l := range lines {
		ln := utf8.RuneCountInString(l)
		if n+ln > maxChars {
			if i == 0 {
				// One line over the cap: return its head rather than nothing,
				// so the scan cannot get stuck on it.
				return truncateRunes(l, maxChars), first, true
			}
			return b.String(), first + i - 1, true
		}
		b.WriteString(l)
		n += ln
	}
	return b.String(), first + len(lines) - 1, false
}

func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// encodeCursor makes a cursor opaque: base64url of compact JSON. It is not
// signed; decodeCursor validates what it can, and a forged cursor can only
// point the scan at lines of the same file.
func encodeCursor(c scanCursor) string {
	b, _ := json.Marshal(c) // plain struct of ints and strings: cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}

func badCursor(why string) error {
	return apperr.New(apperr.InvalidArgument, "pass next_cursor exactly as vault_scan returned it, or omit it to start over",
		"invalid cursor: %s", why)
}

// decodeCursor checks a cursor's form; the caller checks it against the file.
func decodeCursor(s string) (scanCursor, error) {
	bad := badCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return scanCursor{}, bad("not base64url")
	}
	var c scanCursor
	if err := json.Unmarshal(b, &c); err != nil {
		return scanCursor{}, bad("not a scan cursor")
	}
	if c.Mode != modeFirst && c.Mode != modeUncovered {
		return scanCursor{}, bad("unknown mode")
	}
	if c.Start < 1 || len(c.Hash) != cursorHashLen {
		return scanCursor{}, bad("position out of range")
	}
	return c, nil
}
