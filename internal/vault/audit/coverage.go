// Package audit answers "what in the vault has been looked at, and do the
// artifacts built from it hold up?" It is pure logic over a *vault.Vault and
// touches files only through the vault API, so every rule the vault enforces
// (confinement, no symlinks, size caps) holds here too.
//
// Three parts, after section 6.1.2–6.1.3 of the design:
//
//   - Coverage: the line ranges of a vault file that were read (Record, Scan)
//     or cited by an artifact's source_lines, persisted in
//     .system/coverage.json and tied to the file's content hash.
//   - Scan: reads a file in line-range chunks, uncovered ranges first once
//     some coverage exists, recording each chunk it returns.
//   - Audit: checks artifacts (JSON graphs and Mermaid flowcharts, see
//     artifact.go and docs/artifacts.md) for unsourced, badly sourced,
//     orphaned and one-way elements.
//
// Every result carries NextActions, a non-nil list of tool names a model
// should call next; an empty list means "nothing to suggest".
package audit

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/vault"
)

const (
	// CoverageThreshold is the coverage ratio at or above which a file counts
	// as covered enough: Coverage stops suggesting vault_scan and Scan stops
	// suggesting vault_coverage at EOF. 0.9, not 1, because a file's last
	// few blank or boilerplate lines are rarely worth a round trip.
	CoverageThreshold = 0.9

	// CoveragePath is where read ranges persist. .system/ is the vault's own
	// folder; the file is derived data, so losing or corrupting it only costs
	// a re-scan.
	CoveragePath = ".system/coverage.json"

	// coverageVersion is written first in the store. Besides versioning, a
	// unique leading `{"version":1,` lets updateStore's compare-and-swap rely
	// on the old content occurring only at offset 0 of the file.
	coverageVersion = 1

	// maxStoreAttempts bounds updateStore's retries. Each failed attempt
	// means another writer succeeded, so this is roughly how many concurrent
	// Records one call can outwait.
	maxStoreAttempts = 32
)

// Next-action names returned in NextActions.
const (
	ActionVaultScan     = "vault_scan"
	ActionVaultCoverage = "vault_coverage"
	ActionFillGaps      = "fill_gaps"
)

// Report is Coverage's answer for one file. Ranges are 1-based, inclusive,
// sorted and merged; slices are never nil so they render as [] in JSON.
type Report struct {
	Path             string   `json:"path" jsonschema:"the file, relative to the vault root"`                                    // canonical vault path
	TotalLines       int      `json:"total_lines" jsonschema:"lines in the file"`                                                // a last line without "\n" counts
	Covered          [][2]int `json:"covered" jsonschema:"line ranges [start, end] read or scanned since the file last changed"` // for the current content
	Uncovered        [][2]int `json:"uncovered_ranges" jsonschema:"line ranges neither read nor cited by an artifact"`
	CitedByArtifacts [][2]int `json:"cited_by_artifacts" jsonschema:"line ranges artifacts cite as sources"`
	// CoverageRatio is |covered ∪ cited| / TotalLines, 1 for an empty file.
	CoverageRatio float64  `json:"coverage_ratio" jsonschema:"share of lines read or cited, 0 to 1"`
	NextActions   []string `json:"next_actions" jsonschema:"vault_scan when coverage is under 0.9; empty otherwise"`
}

// store is the JSON shape of CoveragePath. Version comes first on purpose
// (see coverageVersion).
type store struct {
	Version int                     `json:"version"`
	Files   map[string]fileCoverage `json:"files"`
}

// fileCoverage is what was read of one file, for the content whose SHA-256 is
// Hash. A different hash means the file changed and Read no longer applies.
type fileCoverage struct {
	Lines int      `json:"lines"`
	Hash  string   `json:"hash"`
	Read  [][2]int `json:"read"`
}

// content is one read of a vault file, with what coverage needs from it.
type content struct {
	canon string
	data  []byte
	lines []string // each with its "\n", if any
	hash  string
}

// readContent reads p through the vault. Errors are the vault's (Clean codes,
// not_found, is_a_directory, file_too_large…).
func readContent(v *vault.Vault, p string) (*content, error) {
	canon, err := vault.Clean(p)
	if err != nil {
		return nil, err
	}
	data, err := v.ReadFile(canon)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	return &content{canon: canon, data: data, lines: splitLines(data), hash: hex.EncodeToString(sum[:])}, nil
}

// splitLines splits after each "\n"; a last line without one still counts,
// matching the vault's line count.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// Record notes that lines start..end (1-based, inclusive) of path have been
// read, for the file's current content. Coverage recorded for older content
// of the file is dropped first: stale coverage is worse than none.
//
// Errors: the vault's read errors for path (Clean codes, not_found,
// is_a_directory, file_too_large…); invalid_argument when the range is empty
// or outside the file; the vault's write errors for CoveragePath; unavailable
// when concurrent writers keep changing the store.
func Record(v *vault.Vault, path string, start, end int) error {
	c, err := readContent(v, path)
	if err != nil {
		return err
	}
	if start < 1 || end < start || end > len(c.lines) {
		return apperr.New(apperr.InvalidArgument, "give 1 <= start <= end <= the file's line count",
			"record %s: range %d-%d is outside its %d lines", c.canon, start, end, len(c.lines))
	}
	return record(v, c, [2]int{start, end})
}

// record adds r to the coverage of c's content.
func record(v *vault.Vault, c *content, r [2]int) error {
	return updateStore(v, func(s *store) {
		fc := s.Files[c.canon]
		if fc.Hash != c.hash || fc.Lines != len(c.lines) {
			fc = fileCoverage{Lines: len(c.lines), Hash: c.hash}
		}
		fc.Read = mergeRanges(append(fc.Read, r))
		s.Files[c.canon] = fc
	})
}

// loadStore reads the store. A missing file is an empty store
// (exists=false); a file that does not parse, or has another version, is
// treated as empty too, since it is derived data and the next update
// rewrites it. raw is the bytes read, for updateStore's compare-and-swap.
func loadStore(v *vault.Vault) (s store, raw []byte, exists bool, err error) {
	s = store{Version: coverageVersion, Files: map[string]fileCoverage{}}
	raw, err = v.ReadFile(CoveragePath)
	if apperr.CodeOf(err) == apperr.NotFound {
		return s, nil, false, nil
	}
	if err != nil {
		return s, nil, false, err
	}
	var got store
	if json.Unmarshal(raw, &got) != nil || got.Version != coverageVersion || got.Files == nil {
		return s, raw, true, nil
	}
	return got, raw, true, nil
}

// updateStore applies fn to the store and writes it back. The vault has no
// lock across a read and a write, so two Records could lose one another's
// ranges; instead the write is a compare-and-swap: Create for a new store
// (fails if someone created it meanwhile), else Replace of the whole old
// text with expected count 1 (fails if the file no longer holds it). Either
// failure re-reads and retries. The store is compact JSON whose only
// newline is the last byte and which starts with a key no nested object
// has, so the old text can match only as the entire current file.
func updateStore(v *vault.Vault, fn func(*store)) error {
	for range maxStoreAttempts {
		s, raw, exists, err := loadStore(v)
		if err != nil {
			return err
		}
		fn(&s)
		data, err := json.Marshal(s)
		if err != nil {
			return apperr.Wrap(err, apperr.Internal, "", "encode coverage: %v", err)
		}
		data = append(data, '\n')
		// Through System: .system/ is read-only to the model's writes.
		switch sys := v.System(); {
		case !exists:
			_, err = sys.Create(CoveragePath, data)
		case len(raw) == 0:
			// Replace refuses an empty old text; an empty store is rare
			// (someone truncated it) and losing a race there only loses
			// coverage, never content.
			_, err = sys.Overwrite(CoveragePath, data)
		default:
			_, err = sys.Replace(CoveragePath, string(raw), string(data), 1)
		}
		switch apperr.CodeOf(err) {
		case apperr.AlreadyExists, apperr.MatchCountMismatch:
			continue
		case apperr.NotFound:
			if exists { // deleted under us
				continue
			}
		}
		return err
	}
	return apperr.New(apperr.Unavailable, "retry the call", "%s kept changing while coverage was being recorded", CoveragePath)
}

// readRanges returns the recorded ranges for c's current content, clamped to
// the file (the store is user-editable, so it is not trusted).
func readRanges(s store, c *content) [][2]int {
	fc, ok := s.Files[c.canon]
	if !ok || fc.Hash != c.hash || fc.Lines != len(c.lines) {
		return nil
	}
	return clampRanges(fc.Read, len(c.lines))
}

// Coverage reports what of path has been read and what artifacts cite.
// Cited ranges count towards the ratio whatever the file's content: an
// artifact's citation is the artifact's claim, checked by Audit, not a record
// of reading.
//
// Errors: the vault's read errors for path and for CoveragePath and the
// artifacts (an artifact that does not parse is skipped, not an error);
// ctx.Err() once ctx ends.
func Coverage(ctx context.Context, v *vault.Vault, path string) (Report, error) {
	c, err := readContent(v, path)
	if err != nil {
		return Report{}, err
	}
	s, _, _, err := loadStore(v)
	if err != nil {
		return Report{}, err
	}
	cited, err := citedRanges(ctx, v, c.canon, len(c.lines))
	if err != nil {
		return Report{}, err
	}
	return buildReport(c, readRanges(s, c), cited), nil
}

func buildReport(c *content, read, cited [][2]int) Report {
	total := len(c.lines)
	union := mergeRanges(append(slices.Clone(read), cited...))
	r := Report{
		Path:             c.canon,
		TotalLines:       total,
		Covered:          nonNil(mergeRanges(read)),
		Uncovered:        nonNil(complement(union, total)),
		CitedByArtifacts: nonNil(mergeRanges(cited)),
		CoverageRatio:    ratio(union, total),
		NextActions:      []string{},
	}
	if r.CoverageRatio < CoverageThreshold {
		r.NextActions = append(r.NextActions, ActionVaultScan)
	}
	return r
}

// ratio is the share of 1..total in merged ranges rs; 1 for an empty file,
// which has nothing left to read.
func ratio(rs [][2]int, total int) float64 {
	if total == 0 {
		return 1
	}
	return float64(countLines(rs)) / float64(total)
}

// mergeRanges sorts ranges and merges overlapping and adjacent ones
// ([1,3],[4,5] → [1,5]); ranges with start > end or start < 1 are dropped.
func mergeRanges(rs [][2]int) [][2]int {
	var in [][2]int
	for _, r := range rs {
		if r[0] >= 1 && r[0] <= r[1] {
			in = append(in, r)
		}
	}
	slices.SortFunc(in, func(a, b [2]int) int { return a[0] - b[0] })
	var out [][2]int
	for _, r := range in {
		if n := len(out); n > 0 && r[0] <= out[n-1][1]+1 {
			out[n-1][1] = max(out[n-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}

// clampRanges cuts ranges to 1..total and merges them.
func clampRanges(rs [][2]int, total int) [][2]int {
	var out [][2]int
	for _, r := range rs {
		out = append(out, [2]int{max(r[0], 1), min(r[1], total)})
	}
	return mergeRanges(out)
}

// complement returns the parts of 1..total not in merged ranges rs.
func complement(rs [][2]int, total int) [][2]int {
	var out [][2]int
	next := 1
	for _, r := range rs {
		if r[0] > next && next <= total {
			out = append(out, [2]int{next, min(r[0]-1, total)})
		}
		next = max(next, r[1]+1)
	}
	if next <= total {
		out = append(out, [2]int{next, total})
	}
	return out
}

// countLines counts the lines in merged ranges rs.
func countLines(rs [][2]int) int {
	n := 0
	for _, r := range rs {
		n += r[1] - r[0] + 1
	}
	return n
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Read reads a line range of a file (vault.Vault.Lines), and what it
// returns counts for Coverage. Failing to note it does not fail the read
// (the reader has its lines either way): it is logged to log.
func Read(ctx context.Context, v *vault.Vault, req vault.LinesRequest, log *slog.Logger) (vault.Lines, error) {
	out, err := v.Lines(req)
	if err != nil || out.EndLine < out.StartLine {
		return out, err
	}
	if err := Record(v, req.Path, out.StartLine, out.EndLine); err != nil && log != nil {
		log.WarnContext(ctx, "coverage not recorded", "path", req.Path, "err", err)
	}
	return out, nil
}
