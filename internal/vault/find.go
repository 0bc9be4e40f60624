package vault

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/text/normalize"
)

// Find budgets and thresholds: a find stops at its time budget or when it
// holds maxFoundLines, shows at most its candidate cap, and says which; too
// few lines found, or most of them in one file, is reported as a shortage
// or a bias the caller can widen the search for.
const (
	DefaultFindTimeMS        = 60_000
	DefaultFindMaxCandidates = 200
	// LowCandidates: fewer candidates than this is a shortage worth filling.
	LowCandidates = 3
	// BiasShare of candidates in one file, with at least BiasMinCandidates
	// in all, means the search leans on one file.
	BiasShare         = 0.8
	BiasMinCandidates = 5
	maxCandidateChars = 200
	// maxFoundLines bounds the matching lines one Find holds before they
	// are ranked and cut to the caller's cap: each at most 200 characters
	// (800 bytes) and a struct, about 20 MB at worst.
	maxFoundLines = 20_000
	// maxRankedBytes bounds the text Find holds to rank the files holding
	// a match; past it the lines stay in path order, and the answer says so.
	maxRankedBytes = 64 << 20
	// findCheckEvery is how many lines Find reads between looks at its
	// context: well under a millisecond of work.
	findCheckEvery = 256
)

// Next actions Find proposes.
const (
	ActionVerifyCoverage = "verify_coverage"
	ActionFillGaps       = "fill_gaps"
	ActionReduceFileBias = "reduce_file_bias"
	ActionCompleted      = "vault_completed"
)

// Stages of Find, in the order they run.
const (
	StageNormal = "normalized" // NFKC, case-folded, white space unified
	StageLoose  = "loose"      // the same without separators
)

// FindRequest is one Find.
type FindRequest struct {
	Query string
	// Also are other phrasings of the query (at most MaxAlso): a line
	// holding any of them is a candidate too, and says which.
	Also          []string
	Dir           string // scope.relative_dir: "" for the whole vault
	Glob          string // scope.glob, matched against the path (path.Match)
	TimeBudget    time.Duration
	MaxCandidates int
}

// Candidate is one matching line.
type Candidate struct {
	Path  string `json:"path" jsonschema:"vault file"`
	Line  int    `json:"line" jsonschema:"line number, from 1"`
	Stage string `json:"stage" jsonschema:"the stage that found it: normalized or loose"`
	Text  string `json:"text" jsonschema:"the line, cut to 200 characters"`
	// Phrasings are, with also, the phrasings the line holds.
	Phrasings []string `json:"phrasings,omitempty" jsonschema:"with also: the phrasings it holds, query or also:N"`
}

// Why a Find was cut short (FindResult.CutoffReason).
const (
	// CutoffTimeBudget: the time budget ended the scan; files were left
	// unread.
	CutoffTimeBudget = "time_budget"
	// CutoffLineCap: more lines matched than a Find holds (maxFoundLines);
	// files were left unread.
	CutoffLineCap = "line_cap"
	// CutoffCandidateCap: every file was read, and more lines matched than
	// the caller's cap; the lines shown are the best files' (the first in
	// path order when a warning says they were not ranked).
	CutoffCandidateCap = "candidate_cap"
)

// MaxAlso is how many other phrasings a Find may add.
const MaxAlso = 4

// phrasing is one phrasing of a Find in both forms it is matched in.
type phrasing struct{ name, normal, loose string }

// FindStats sums up a Find.
type FindStats struct {
	FilesScanned   int     `json:"files_scanned" jsonschema:"files read"`
	NormalizedHits int     `json:"normalized_hits" jsonschema:"lines matched in stage 0 (normalized), shown or not"`
	LooseHits      int     `json:"loose_hits" jsonschema:"further lines matched in stage 1 (loose), shown or not"`
	FilesWithHits  int     `json:"files_with_hits" jsonschema:"files holding at least one matching line"`
	TopFile        string  `json:"top_file,omitempty" jsonschema:"the file holding the most matching lines"`
	TopFileShare   float64 `json:"top_file_share" jsonschema:"share of matching lines in top_file, 0 to 1"`
}

// FindResult is the answer to a Find.
type FindResult struct {
	Query        string      `json:"query" jsonschema:"the query as given"`
	Normalized   string      `json:"normalized" jsonschema:"the query in normal form"`
	Candidates   []Candidate `json:"candidates" jsonschema:"matching lines, the best file's first, in line order within a file (path order if a warning says not ranked)"`
	Stats        FindStats   `json:"stats" jsonschema:"what was scanned and matched"`
	Warnings     []string    `json:"warnings" jsonschema:"files not read as text, why lines were not ranked, an incomplete scan, shortage or bias"`
	CutoffReason string      `json:"cutoff_reason,omitempty" jsonschema:"when cut short: time_budget or line_cap (files left unread), candidate_cap (all read, list cut)"`
	NextActions  []string    `json:"next_actions" jsonschema:"what to do next: verify_coverage, fill_gaps, reduce_file_bias or vault_completed"`
}

// Find looks for query in the vault's text files in two stages — a
// normalized match, then a loose match for the lines the first missed —
// and then judges the lines found together (stage 1.5): too few is a
// shortage (fill_gaps), most of them in one file is a bias
// (reduce_file_bias), enough and spread out is vault_completed once the
// files read are checked (verify_coverage). The stages decide which lines
// match, so none is missed; the search engine (internal/rank, the one that
// ranks specifications and manuals) decides the order: the files holding
// a match are ranked for the query and its phrasings, and the best file's
// lines come first, so a cap keeps the lines of the files most about the
// query.
// Errors: apperr.InvalidArgument for an empty query or bad glob; the List
// and ReadFile codes; ctx.Err() once ctx ends (checked per file and every
// findCheckEvery lines).
func (v *Vault) Find(ctx context.Context, req FindRequest) (FindResult, error) {
	res := FindResult{Query: req.Query, Normalized: normalize.Normal(req.Query), Candidates: []Candidate{}, Warnings: []string{}}
	loose := normalize.Loose(req.Query)
	if res.Normalized == "" {
		return res, apperr.New(apperr.InvalidArgument, "give the words to find", "empty query")
	}
	if len(req.Also) > MaxAlso {
		return res, apperr.New(apperr.InvalidArgument, "keep the best four", "also has %d phrasings; at most %d are allowed", len(req.Also), MaxAlso)
	}
	phrasings := []phrasing{{"query", res.Normalized, loose}}
	for i, a := range req.Also {
		n := normalize.Normal(a)
		if n == "" {
			return res, apperr.New(apperr.InvalidArgument, "give each phrasing some words, or leave it out", "also[%d] is empty", i)
		}
		phrasings = append(phrasings, phrasing{fmt.Sprintf("also:%d", i+1), n, normalize.Loose(a)})
	}
	if req.Glob != "" {
		if _, err := path.Match(req.Glob, ""); err != nil {
			return res, apperr.New(apperr.InvalidArgument, "use * ? and [a-z] within a path segment, e.g. notes/*.md", "bad glob %q", req.Glob)
		}
	}
	if req.TimeBudget <= 0 {
		req.TimeBudget = DefaultFindTimeMS * time.Millisecond
	}
	if req.MaxCandidates <= 0 {
		req.MaxCandidates = DefaultFindMaxCandidates
	}
	deadline := v.opts.Now().Add(req.TimeBudget)
	entries, err := v.searchedFiles(req.Dir, req.Glob)
	if err != nil {
		return res, err
	}
	var (
		files     []scopeFile // the files holding a matching line, in path order: what is ranked
		textBytes int         // of those files
		found     []Candidate // every matching line, in path and line order
		normals   []string    // the lines of the file being read, in normal form
	)
	perFile := map[string]int{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if v.opts.Now().After(deadline) {
			res.CutoffReason = CutoffTimeBudget
			break
		}
		data, err := v.ReadFile(e.Path)
		switch apperr.CodeOf(err) {
		case apperr.FileTooLarge:
			continue
		case apperr.Undecodable:
			// An image or a file in an encoding langspec does not read:
			// named, so nothing is silently unsearched.
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s not searched: not text in an encoding langspec reads", e.Path))
			continue
		}
		if err != nil {
			return res, err
		}
		res.Stats.FilesScanned++
		text := string(data)
		before := len(found)
		// The file's normal form, which the ranking reads, is its lines'
		// joined by a space, as normalize.Normal makes it of the whole
		// text: joined from the lines the scan normalises anyway, and
		// only for a file holding a match.
		normals = normals[:0]
		for i, line := range strings.Split(text, "\n") {
			if i%findCheckEvery == 0 && i > 0 {
				if err := ctx.Err(); err != nil {
					return res, err
				}
			}
			// Each phrasing in turn: a line held by one in normal form is
			// a normalized hit, by one only without separators a loose
			// one. A phrasing that holds nothing adds nothing.
			stage, held := "", []string(nil)
			normal, looseLine := normalize.Normal(line), ""
			if normal != "" {
				normals = append(normals, normal)
			}
			for _, p := range phrasings {
				switch {
				case strings.Contains(normal, p.normal):
					stage = StageNormal
				case p.loose != "":
					if looseLine == "" {
						looseLine = normalize.Loose(line)
					}
					// Not a match that starts inside a word: "rto" is in
					// "or too" only without the space. The joints are
					// worked out only for a line that holds it at all.
					if !strings.Contains(looseLine, p.loose) || !normalize.LooseJoined(line).Holds(p.loose) {
						continue
					}
					if stage == "" {
						stage = StageLoose
					}
				default:
					continue
				}
				held = append(held, p.name)
			}
			if stage == "" {
				continue
			}
			if len(found) == maxFoundLines {
				// Memory, not the caller's cap: past this many lines the
				// scan stops, and the answer says it was cut short.
				res.CutoffReason = CutoffLineCap
				break
			}
			if stage == StageNormal {
				res.Stats.NormalizedHits++
			} else {
				res.Stats.LooseHits++
			}
			if len(phrasings) == 1 {
				held = nil // without also, the query found it: nothing to say
			}
			line = strings.TrimRight(line, "\r")
			if r := []rune(line); len(r) > maxCandidateChars {
				line = string(r[:maxCandidateChars]) + "…"
			}
			// A copy: a slice of the text would keep the whole file.
			found = append(found, Candidate{Path: e.Path, Line: i + 1, Stage: stage, Text: strings.Clone(line), Phrasings: held})
			perFile[e.Path]++
		}
		if len(found) > before {
			normal := strings.Join(normals, " ")
			if res.CutoffReason == CutoffLineCap {
				normal = normalize.Normal(text) // its lines were not all read
			}
			if textBytes += len(text); textBytes <= maxRankedBytes {
				files = append(files, scopeFile{path: e.Path, text: text, normal: normal})
			}
		}
		if res.CutoffReason == CutoffLineCap {
			break
		}
	}
	res.Stats.FilesWithHits = len(perFile)
	for _, p := range slices.Sorted(maps.Keys(perFile)) {
		if perFile[p] > perFile[res.Stats.TopFile] {
			res.Stats.TopFile = p
		}
	}
	if n := len(found); n > 0 {
		res.Stats.TopFileShare = float64(perFile[res.Stats.TopFile]) / float64(n)
	}
	if len(perFile) > 1 {
		warnings, err := v.rankLines(ctx, found, files, textBytes, req, deadline, res.CutoffReason)
		if err != nil {
			return res, err
		}
		res.Warnings = append(res.Warnings, warnings...)
	}
	if len(found) > req.MaxCandidates {
		found = found[:req.MaxCandidates]
		if res.CutoffReason == "" {
			// A scan cut short says so first: its files left unread
			// matter more than the lines left out.
			res.CutoffReason = CutoffCandidateCap
		}
	}
	res.Candidates = append(res.Candidates, found...)
	var judged []string
	judged, res.NextActions = judge(res)
	res.Warnings = append(res.Warnings, judged...)
	return res, nil
}

// judge is stage 1.5: it reads the lines found as a whole, shown or not
// (Stats): a cap that cut the list is not a shortage. A scan that left
// files unread judges nothing of what it did not read: too few or one-sided
// may be the files left out, so it asks for the search to be checked
// (verify_coverage: a larger budget, a narrower scope).
func judge(res FindResult) (warnings, actions []string) {
	n := res.Stats.NormalizedHits + res.Stats.LooseHits
	warnings, actions = []string{}, []string{}
	switch {
	case res.CutoffReason == CutoffTimeBudget || res.CutoffReason == CutoffLineCap:
		warnings = append(warnings, fmt.Sprintf("incomplete: %s stopped the scan after %d files; the others were not read", res.CutoffReason, res.Stats.FilesScanned))
		actions = append(actions, ActionVerifyCoverage)
	case n == 0:
		warnings = append(warnings, "shortage: no candidates")
		actions = append(actions, ActionFillGaps)
	case n < LowCandidates:
		warnings = append(warnings, "shortage: fewer than 3 candidates")
		actions = append(actions, ActionFillGaps, ActionVerifyCoverage)
	case n >= BiasMinCandidates && res.Stats.TopFileShare >= BiasShare:
		warnings = append(warnings, "bias: most candidates are in "+res.Stats.TopFile)
		actions = append(actions, ActionReduceFileBias)
	case res.CutoffReason != "":
		actions = append(actions, ActionVerifyCoverage)
	default:
		actions = append(actions, ActionCompleted)
	}
	return warnings, actions
}

// MatchGlob matches a glob against the whole path, or against any tail of
// it when the glob has no "/" ("*.md" finds notes/a.md). The glob is taken
// in NFC, as vault paths are, so a decomposed "café*" finds the file.
func MatchGlob(glob, p string) bool {
	glob = norm.NFC.String(glob)
	if ok, _ := path.Match(glob, p); ok {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(p))
		return ok
	}
	return false
}
