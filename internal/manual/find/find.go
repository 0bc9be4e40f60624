package find

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/bits"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
	"github.com/langspec/langspec/internal/manual/find/queryplan"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// Budgets of one manual_find: a search stops at its time budget or its
// candidate cap and reports what it left unscanned, so a call's cost is
// bounded and nothing is dropped in silence.
const (
	DefaultTimeMS        = 60_000
	MaxTimeMS            = 600_000
	DefaultMaxCandidates = 200
	MaxMaxCandidates     = 1000
	// DefaultTraceTTL is how long a server keeps a trace in memory; past it,
	// manual_hits runs the trace's search again (trace.go).
	DefaultTraceTTL = 24 * time.Hour
	// hardNodeLimit bounds the nodes one call examines; beyond it nodes are
	// reported unscanned (hard_limit) rather than slowing every call.
	hardNodeLimit = 200_000
	// maxUnscannedListed bounds the unscanned list kept in a trace.
	maxUnscannedListed = 5000
	// snippetRunes is the length of a candidate's snippet line.
	snippetRunes = 160
	// fuzzyPerTerm is how many fuzzy (trigram) hits a term that matched
	// nothing may add.
	fuzzyPerTerm = 5
	// minTitleInTerm is the shortest heading (in runes, separators removed)
	// that counts when a term contains it; shorter ones (概要, FAQ) are in
	// too many terms by chance.
	minTitleInTerm = 4
)

// Stage names, in the order they run. Stage 0–3 always run (unless cut by a
// budget); 3.5 judges; 4 runs only when the judgement calls for it.
const (
	StageExact      = "exact"      // 0: BM25 over the word index
	StageNormalized = "normalized" // 1: NFKC, width, case, digit forms
	StageLoose      = "loose"      // 1: the same without separators
	StageSynonym    = "synonym"    // 2: the synonym dictionary
	StageException  = "exception"  // 3: exception vocabulary near the candidates
	StageHeading    = "heading"    // 3: headings naming a term, with their subsections; fuzzy title match
	StageWiden      = "widen"      // 4: term fragments, parent sections, exceptions everywhere
)

// Unscanned reasons.
const (
	ReasonTimeBudget   = "time_budget"
	ReasonCandidateCap = "candidate_cap"
	ReasonStageCap     = "stage_cap"
	ReasonHardLimit    = "hard_limit"
	ReasonUndecodable  = "undecodable"   // the file's bytes are in no encoding langspec reads
	ReasonNameConflict = "name_conflict" // another file's name differs from it only in Unicode form
)

// Next actions.
const (
	ActionInsufficient   = "insufficient_candidates"
	ActionConflicts      = "resolve_conflicts"
	ActionFillGaps       = "fill_gaps"
	ActionReduceFileBias = "reduce_file_bias"
	ActionCompleted      = "manual_completed"
)

// Request is one manual_find.
type Request struct {
	ManualID string // "" searches every manual
	Query    string
	// Also are other phrasings of the same question, in the manuals'
	// words (at most MaxAlso): each runs the whole staged search, and every
	// run's lists are fused in one rank.Fuse, as a spec search's phrasings
	// are (stageRun.ranked).
	Also          []string
	Intent        string // "" lets the query decide
	TimeMS        int    // 0: DefaultTimeMS
	MaxCandidates int    // 0: DefaultMaxCandidates
	// Hits is how many of the best candidates the answer shows (Summary.Hits),
	// 0 to MaxShownHits; the trace keeps them all. Not part of the search:
	// two requests differing only in it have one trace.
	Hits int
	// OnlyUnscannedFromTraceID searches only that trace's unscanned sections.
	OnlyUnscannedFromTraceID string
	// Thresholds, when set, are the stage 4 thresholds to use instead of
	// the statistics' own: a trace run again (loadTrace) runs with the
	// thresholds it ran with, and records no statistics.
	Thresholds *adaptive.Thresholds
	// Baseline runs a baseline instead of the staged search, for the
	// evaluation to compare with: BaselineBM25 (BM25 over the words of the query
	// as typed, stop words dropped) or BaselineBM25Terms (BM25 over the terms
	// the query analysis extracts: stage 0 as it was before the ranking
	// engine). Tools never set it.
	Baseline string
}

// Candidate is one section the search found.
type Candidate struct {
	Ref         string   `json:"ref" jsonschema:"manual_id/path#node_id: what every manual tool takes to name this section"`
	ManualID    string   `json:"manual_id" jsonschema:"the manual"`
	Path        string   `json:"path" jsonschema:"file relative to the manual's folder"`
	NodeID      string   `json:"node_id" jsonschema:"section id; pass to manual_read or bridge_copy_section"`
	Title       string   `json:"title" jsonschema:"section heading"`
	LineStart   int      `json:"line_start" jsonschema:"first line of the section"`
	LineEnd     int      `json:"line_end" jsonschema:"last line, subsections included"`
	Score       float64  `json:"score" jsonschema:"rank score, higher is better"`
	Stages      []string `json:"stages" jsonschema:"stages that found it: exact, normalized, loose, synonym, exception, heading, widen"`
	Matched     []string `json:"matched,omitempty" jsonschema:"query terms it matched, directly or through a variant or synonym"`
	Exception   bool     `json:"exception,omitempty" jsonschema:"true when it holds exception vocabulary (except, unless, 対象外, ただし…)"`
	Phrasings   []string `json:"phrasings,omitempty" jsonschema:"with also: the phrasings that found it, query or also:N"`
	Snippet     string   `json:"snippet,omitempty" jsonschema:"the first matching line, cut to 160 characters; for a heading with no text of its own, its subsections' titles"`
	SnippetLine int      `json:"snippet_line,omitempty" jsonschema:"that line's number"`
}

// Unscanned is a section (or a whole file, node_id empty) the search did
// not get to, and why.
type Unscanned struct {
	ManualID string `json:"manual_id" jsonschema:"the manual"`
	Path     string `json:"path" jsonschema:"file relative to the manual's folder"`
	NodeID   string `json:"node_id,omitempty" jsonschema:"section id; absent when the whole file was not scanned"`
	Reason   string `json:"reason" jsonschema:"time_budget, candidate_cap, stage_cap, hard_limit, undecodable or name_conflict"`
	Stage    string `json:"stage,omitempty" jsonschema:"the stage that could not cover it"`
}

// NextAction is one suggested next step.
type NextAction struct {
	Action    string         `json:"action" jsonschema:"insufficient_candidates, resolve_conflicts, fill_gaps, reduce_file_bias or manual_completed"`
	Reason    string         `json:"reason" jsonschema:"why, in one sentence"`
	Tool      string         `json:"tool,omitempty" jsonschema:"the tool to call next"`
	Arguments map[string]any `json:"arguments,omitempty" jsonschema:"arguments for that tool"`
}

// Summary is what manual_find returns: metrics, not text.
type Summary struct {
	TraceID       string              `json:"trace_id" jsonschema:"pass to manual_hits to page through the candidates"`
	Intent        string              `json:"intent" jsonschema:"definition, procedure, exceptions, compare or lookup"`
	Terms         []string            `json:"terms" jsonschema:"the exact-match terms taken from the query"`
	Corrections   []rank.Correction   `json:"corrections,omitempty" jsonschema:"query words no section of the manual holds, and the spelling searched as well"`
	Candidates    int                 `json:"candidates" jsonschema:"sections found (after the candidate cap)"`
	Files         int                 `json:"files" jsonschema:"files holding candidates"`
	TopFileShare  float64             `json:"top_file_share" jsonschema:"share of candidates in the file holding most, 0 to 1"`
	ExceptionHits int                 `json:"exception_hits" jsonschema:"candidates holding exception vocabulary"`
	StagesRun     []string            `json:"stages_run" jsonschema:"stages that ran, in order"`
	StagesFailed  []string            `json:"stages_failed,omitempty" jsonschema:"stages that failed; the others' results still stand"`
	Retries       int                 `json:"retries" jsonschema:"widening passes (stage 4) run"`
	Stage4Reasons []string            `json:"stage4_reasons,omitempty" jsonschema:"why stage 4 widened the search"`
	Warnings      []string            `json:"warnings" jsonschema:"gaps, conflicts and limits found by the judgement (stage 3.5)"`
	Unscanned     int                 `json:"unscanned" jsonschema:"sections left out, listed by manual_hits(kind=unscanned): past the candidate cap (ranked below every candidate), or never searched"`
	Unsearched    int                 `json:"unsearched" jsonschema:"of them, sections never searched (time budget, limits, unreadable files): one of these could outrank the candidates"`
	Hits          []Candidate         `json:"hits" jsonschema:"the best candidates, as manual_hits lists them (hits of the request; manual_hits pages the rest)"`
	CutoffReason  string              `json:"cutoff_reason,omitempty" jsonschema:"time_budget or candidate_cap; only when the search was cut short"`
	ElapsedMS     int64               `json:"elapsed_ms" jsonschema:"time spent"`
	Thresholds    adaptive.Thresholds `json:"thresholds" jsonschema:"the stage 4 thresholds used"`
	EstTokensIn   int                 `json:"est_tokens_in" jsonschema:"ceil(request characters / 4)"`
	EstTokensOut  int                 `json:"est_tokens_out" jsonschema:"ceil(response characters / 4)"`
	EstTokens     int                 `json:"est_tokens" jsonschema:"ceil((request + response characters) / 4)"`
	NextActions   []NextAction        `json:"next_actions" jsonschema:"what to do next; manual_completed when nothing is left"`
	Dictionary    *DictionaryStatus   `json:"dictionary,omitempty" jsonschema:"the synonym dictionary used"`

	// Kept for the judgement and the trace, not returned.
	conflicts     map[string][]string // loose heading -> refs of candidates with it
	gapTerms      []string            // terms nothing matched
	unscannedList []Unscanned
	candidateList []Candidate
	expansions    map[string][]string // term -> the variants and synonyms searched
}

// DictionaryStatus says which synonym dictionary a search used.
type DictionaryStatus struct {
	Path   string `json:"path" jsonschema:"the dictionary file"`
	Groups int    `json:"groups" jsonschema:"synonym groups loaded; 0 when the file does not exist"`
}

// Baselines a Request may ask for instead of the staged search.
const (
	BaselineBM25      = "bm25"       // plain BM25: the words of the query as typed, any of them
	BaselineBM25Terms = "bm25-terms" // BM25 over the extracted terms, any of them: stage 0 before the ranking engine
)

// Finder runs manual_find over an Index.
type Finder struct {
	Index    *Index
	Synonyms *SynonymFile     // nil: no synonyms
	Stats    *adaptive.Stats  // nil: fixed default thresholds, nothing recorded
	Now      func() time.Time // nil: time.Now
	TraceTTL time.Duration    // 0: DefaultTraceTTL
	// Traces keeps the traces manual_hits pages; nil: a store of the
	// Finder's own with the default bounds, made on first use.
	Traces *Traces
	Log    *slog.Logger
	// Notes are the user's context notes: manual_hits returns those
	// covering its page, and a candidate under an aside note ranks after
	// the others unless the question uses a word of the note. nil: none.
	Notes *contextnote.Source

	tracesOnce sync.Once
	// idWriters are compressors for trace ids, reused: a new one allocates
	// over half a megabyte, more than the rest of a search.
	idWriters sync.Pool
}

// NoteSet is the context notes in force now (contextnote.Source.Current).
func (f *Finder) NoteSet() *contextnote.Set { return f.Notes.Current(f.log()) }

// traces is f.Traces, made on first use when the caller gave none.
func (f *Finder) traces() *Traces {
	f.tracesOnce.Do(func() {
		if f.Traces == nil {
			f.Traces = NewTraces(0, 0)
		}
	})
	return f.Traces
}

func (f *Finder) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

func (f *Finder) log() *slog.Logger {
	if f.Log != nil {
		return f.Log
	}
	return slog.New(slog.DiscardHandler)
}

// workNode is a node during a search. Searches over a whole manual share
// its snapshot's workNodes (nodeTree) and only read them.
type workNode struct {
	db.ManualNode
	snap   *manualSnapshot // the snapshot it is of
	idx    int32           // its place in the snapshot's nodes
	manual string
	parent *workNode
	root   *workNode   // top-level ancestor (itself at the top)
	kids   []*workNode // the nodes whose parent it is, in document order
	nodeTraits
}

// found is a candidate being built. A search over a large manual builds
// thousands: no maps of their own (three a candidate were a tenth of a
// manual_find over 5,000 files).
type found struct {
	n      *workNode
	stages uint8       // stageBit of each stage that found it
	terms  []termMatch // each term matched, once, in the order first matched
	named  []float64   // the IDFs of the terms its heading names, in query order
}

// termMatch is a term a candidate matched.
type termMatch struct {
	term string
	best rank.Sighting // the best way the section holds it
	via  string        // the text that matched it (variant or synonym), for the snippet
}

// term returns the candidate's match of t, or nil.
func (c *found) term(t string) *termMatch {
	for i := range c.terms {
		if c.terms[i].term == t {
			return &c.terms[i]
		}
	}
	return nil
}

// stageList is every stage, in the order candidates list them.
var stageList = []string{StageExact, StageNormalized, StageLoose, StageSynonym, StageHeading, StageException, StageWiden}

// NotableStages are the stages worth showing a reader of a candidate's:
// of exact, normalized and loose only the first that found it, since a
// term found as written is found normalised and without separators too
// ("exact+normalized+loose+heading" says no more than "exact+heading").
func NotableStages(stages []string) []string {
	out := make([]string, 0, len(stages))
	written := false
	for _, st := range stages {
		if st == StageExact || st == StageNormalized || st == StageLoose {
			if written {
				continue
			}
			written = true
		}
		out = append(out, st)
	}
	return out
}

func stageBit(st string) uint8 { return 1 << stageOrder(st) }

// stageRun is the state of one run of the stages for one phrasing of a
// Find (the query's, or one of its also phrasings).
type stageRun struct {
	f    *Finder
	req  Request
	plan queryplan.Plan
	// nodes are the nodes searched, the manuals' in turn; segs says which
	// snapshot each run of them comes from.
	nodes     []*workNode
	segs      []segment
	found     []*found          // by node position
	foundList []*found          // in the order found
	sets      map[setKey]bitset // the nodes holding a needle, by where and needle
	excNodes  bitset            // the nodes holding exception vocabulary
	normals   map[string]string // normalize.Normal, by text (search.normal)
	looses    map[string]string // normalize.Loose, by text (search.loose)
	deadline  time.Time
	cut       string
	unscanned []Unscanned
	// unsearchedBounds are, for each section never searched (not one
	// ranked below the candidate cap), what it would have been seen to
	// hold; nil when nothing is known (a time budget, an unreadable file).
	unsearchedBounds []*rank.ManualScores
	termBuf          []rank.TermEvidence // scores', reused
	// engineLists are stage 0's lists, fused with the stages' (ranked).
	engineLists []rank.List
	sum         *Summary
	idf         map[string]float64
	needles     map[string][]needle // term -> its normalised forms
	excTerms    []string
	// storeErr is the first failure of the store itself: the search then
	// fails as a whole, since "0 candidates" from an index that could not
	// be read would look like an answer.
	storeErr error
	failures []stageFailure
	// dropped is set when the search ran on snapshots the refresh beside
	// it found out of date (searchCurrent): it stops, and is not used.
	dropped atomic.Bool
	// ctx is the call's, from run on: a search whose call has ended
	// stops as a dropped one does, at the next look at the budget,
	// instead of running its in-memory stages out to the time budget.
	ctx context.Context
}

// needle is one form of a term to look for.
type needle struct {
	text  string // normalised
	loose string
	stage string // normalized (the term and its notation variants) or synonym
	// corrected: the term with a word stage 0 corrected (rank.Sighting)
	corrected bool
}

var numberedLine = regexp.MustCompile(`(?m)^\s*(?:\d+[.)．）]|[０-９]+[.．)）]|[①-⑳]|[-*+]\s|\(\d+\)|（[0-9０-９]+）)`)

// Shown hits: how many candidates an answer carries itself.
const (
	DefaultShownHits = 5
	MaxShownHits     = 20
)

// MaxAlso is how many other phrasings a request may add.
const MaxAlso = 4

// Find runs the staged search and stores its trace. With Also, each
// phrasing runs the whole staged search too, and the runs' lists are fused
// in one (stageRun.ranked).
func (f *Finder) Find(ctx context.Context, req Request) (Summary, error) {
	if len(req.Also) > MaxAlso {
		return Summary{}, apperr.New(apperr.InvalidArgument, "keep the best four", "also has %d phrasings; at most %d are allowed", len(req.Also), MaxAlso)
	}
	for i, a := range req.Also {
		if strings.TrimSpace(a) == "" {
			return Summary{}, apperr.New(apperr.InvalidArgument, "give each phrasing some words, or leave it out", "also[%d] is empty", i)
		}
	}
	start := f.now()
	runs := make([]*stageRun, 0, 1+len(req.Also))
	for i := range 1 + len(req.Also) {
		r := req
		if i > 0 {
			r.Query, r.Also = req.Also[i-1], nil
		}
		s, err := f.searchCurrent(ctx, r, start)
		if err != nil {
			if i > 0 {
				err = alsoError(i, err)
			}
			return Summary{}, err
		}
		if err := ctx.Err(); err != nil {
			return Summary{}, err
		}
		for _, e := range s.failures {
			f.log().Warn("manual_find stage failed", "stage", e.stage, "err", e.err)
		}
		if s.storeErr != nil {
			return Summary{}, s.storeErr
		}
		runs = append(runs, s)
	}
	s := runs[0]
	sum := s.finish(start, runs[1:])
	if err := f.store(ctx, req, s, sum); err != nil {
		return Summary{}, err
	}
	return *sum, nil
}

// alsoError names the phrasing an invalid argument came from.
func alsoError(i int, err error) error {
	if ae, ok := errors.AsType[*apperr.Error](err); ok && ae.Code == apperr.InvalidArgument {
		return apperr.Wrap(err, apperr.InvalidArgument, ae.Hint, "also[%d]: %s", i-1, ae.Message)
	}
	return err
}

// errStale says that a manual changed since the snapshot a search used.
var errStale = errors.New("manual changed")

// searchCurrent runs the search over the manuals as they are on disk.
//
// Seeing the folder as it is means a stat of every file and a read of the
// store's file list (Index.snapshot: some 20 ms at 5,000 files). That
// check runs beside a search of the snapshots already built, which it
// almost always confirms unchanged, so the search does not wait for it.
// When it finds a change, or fails, the early search is stopped and
// dropped, and the search runs after the refresh, as it would have without
// the head start: an answer is never of files older than the call.
func (f *Finder) searchCurrent(ctx context.Context, req Request, start time.Time) (*stageRun, error) {
	var used []*manualSnapshot // in the order prepare took them
	s, err := f.prepare(ctx, req, start, func(id string) (*manualSnapshot, error) {
		snap := f.Index.built(id)
		if snap == nil {
			return nil, errStale
		}
		used = append(used, snap)
		return snap, nil
	})
	if errors.Is(err, errStale) {
		return f.searchRefreshed(ctx, req, start, nil) // nothing to start from
	}
	if err != nil {
		return nil, err
	}
	early, stop := context.WithCancel(ctx)
	defer stop()
	type confirmed struct {
		now map[string]*manualSnapshot
		err error
	}
	checked := make(chan confirmed, 1)
	go func() {
		now, err := f.Index.confirm(ctx, used)
		if err != nil {
			s.dropped.Store(true)
			stop()
		}
		checked <- confirmed{now, err}
	}()
	s.run(early)
	c := <-checked
	switch {
	case c.err == nil:
		return s, nil
	case errors.Is(c.err, errStale):
		return f.searchRefreshed(ctx, req, start, c.now)
	}
	return nil, c.err
}

// searchRefreshed refreshes the manuals, then searches them; refreshed are
// snapshots just refreshed, by manual, not to refresh again.
func (f *Finder) searchRefreshed(ctx context.Context, req Request, start time.Time, refreshed map[string]*manualSnapshot) (*stageRun, error) {
	s, err := f.prepare(ctx, req, start, func(id string) (*manualSnapshot, error) {
		if snap := refreshed[id]; snap != nil {
			return snap, nil
		}
		return f.Index.snapshot(ctx, id)
	})
	if err != nil {
		return nil, err
	}
	s.run(ctx)
	return s, nil
}

// prepare checks the request and sets up its search over the manuals'
// snapshots, as snapshotOf gives them.
func (f *Finder) prepare(ctx context.Context, req Request, start time.Time, snapshotOf func(manualID string) (*manualSnapshot, error)) (*stageRun, error) {
	req.Query = strings.TrimSpace(req.Query)
	if req.TimeMS == 0 {
		req.TimeMS = DefaultTimeMS
	}
	if req.MaxCandidates == 0 {
		req.MaxCandidates = DefaultMaxCandidates
	}
	if req.TimeMS < 1 || req.TimeMS > MaxTimeMS {
		return nil, apperr.New(apperr.InvalidArgument, fmt.Sprintf("budget.time_ms is 1 to %d (default %d)", MaxTimeMS, DefaultTimeMS),
			"budget.time_ms %d is out of range", req.TimeMS)
	}
	if req.Hits < 0 || req.Hits > MaxShownHits {
		return nil, apperr.New(apperr.InvalidArgument, fmt.Sprintf("hits is 0 to %d (default %d)", MaxShownHits, DefaultShownHits),
			"hits %d is out of range", req.Hits)
	}
	if req.MaxCandidates < 1 || req.MaxCandidates > MaxMaxCandidates {
		return nil, apperr.New(apperr.InvalidArgument, fmt.Sprintf("budget.max_candidates is 1 to %d (default %d)", MaxMaxCandidates, DefaultMaxCandidates),
			"budget.max_candidates %d is out of range", req.MaxCandidates)
	}
	if req.ManualID != "" {
		// One index entry per manual, whichever Unicode form names it.
		id, err := f.Index.Library().ManualID(req.ManualID)
		if err != nil {
			return nil, err
		}
		req.ManualID = id
	}
	var only map[string]bool // refs, or manual+path+"#" for a whole file
	if req.OnlyUnscannedFromTraceID != "" {
		tr, err := f.loadTrace(ctx, req.OnlyUnscannedFromTraceID)
		if err != nil {
			return nil, err
		}
		if req.ManualID != "" && !slices.Contains(tr.ManualIDs, req.ManualID) {
			return nil, apperr.New(apperr.InvalidArgument, "leave manual_id out or use the trace's own manual",
				"trace %q searched %s, not %q", req.OnlyUnscannedFromTraceID, strings.Join(tr.ManualIDs, ", "), req.ManualID)
		}
		if req.Query == "" {
			req.Query = tr.Query
		}
		only = map[string]bool{}
		for _, u := range tr.Unscanned {
			only[u.ManualID+"\x00"+u.Path+"#"+u.NodeID] = true
		}
		if req.ManualID == "" && len(tr.ManualIDs) == 1 {
			req.ManualID = tr.ManualIDs[0]
		}
	}
	if req.Query == "" {
		return nil, apperr.New(apperr.InvalidArgument, `describe what to collect, such as "exceptions to the change freeze" or "解約の手続き"`, "empty query")
	}
	if n := utf8.RuneCountInString(req.Query); n > ftsquery.MaxQueryRunes {
		return nil, apperr.New(apperr.InvalidArgument, fmt.Sprintf("use at most %d characters", ftsquery.MaxQueryRunes),
			"query has %d characters", n)
	}
	plan := queryplan.Analyze(req.Query)
	if req.Intent != "" {
		in, err := queryplan.ParseIntent(req.Intent)
		if err != nil {
			return nil, err
		}
		plan.Intent = in
	}

	manualIDs := []string{req.ManualID}
	if req.ManualID == "" {
		ids, err := f.Index.Library().Manuals()
		if err != nil {
			return nil, err
		}
		manualIDs = ids
	}
	s := &stageRun{f: f, req: req, plan: plan,
		deadline: start.Add(time.Duration(req.TimeMS) * time.Millisecond),
		sum:      &Summary{Intent: string(plan.Intent), Terms: plan.Terms, Warnings: []string{}}}
	switch {
	case req.Thresholds != nil:
		s.sum.Thresholds = req.Thresholds.Clamped()
	case f.Stats != nil:
		s.sum.Thresholds = f.Stats.Thresholds()
	default:
		s.sum.Thresholds = adaptive.Defaults()
	}
	for _, id := range manualIDs {
		snap, err := snapshotOf(id)
		if err != nil {
			return nil, err
		}
		for _, sk := range snap.skipped {
			reason := ReasonHardLimit
			switch apperr.Code(sk.Reason) {
			case apperr.Undecodable:
				reason = ReasonUndecodable
			case apperr.NameConflict:
				reason = ReasonNameConflict
			}
			s.addUnscanned(Unscanned{ManualID: id, Path: sk.Path, Reason: reason})
			// Never silently unsearchable: the answer names the file.
			s.sum.Warnings = append(s.sum.Warnings, fmt.Sprintf("%s/%s was not searched: %s", id, sk.Path, sk.Detail))
		}
		seg := segment{snap: snap, start: len(s.nodes)}
		if only == nil && len(s.nodes)+len(snap.nodes) <= hardNodeLimit {
			// The whole manual: its snapshot's nodes, linked once.
			shared := snap.nodeTree().nodes
			if len(s.nodes) == 0 {
				s.nodes = shared[:len(shared):len(shared)] // an append copies
			} else {
				s.nodes = append(s.nodes, shared...)
			}
			seg.taken = len(shared)
			s.segs = append(s.segs, seg)
			continue
		}
		seg.pos = make([]int32, len(snap.nodes))
		var taken []*workNode
		for i := range snap.nodes {
			seg.pos[i] = -1
			n := &workNode{ManualNode: snap.nodes[i], snap: snap, idx: int32(i), manual: id, nodeTraits: snap.traits[i]}
			ref := id + "\x00" + n.Path + "#" + n.NodeID
			if only != nil && !only[ref] && !only[id+"\x00"+n.Path+"#"] {
				continue
			}
			if len(s.nodes) >= hardNodeLimit {
				s.addUnscanned(Unscanned{ManualID: id, Path: n.Path, NodeID: n.NodeID, Reason: ReasonHardLimit})
				continue
			}
			seg.pos[i] = int32(len(s.nodes))
			s.nodes = append(s.nodes, n)
			taken = append(taken, n)
		}
		link(taken)
		seg.taken = len(taken)
		s.segs = append(s.segs, seg)
	}
	s.found = make([]*found, len(s.nodes))
	return s, nil
}

func (s *stageRun) addUnscanned(u Unscanned) { s.addUnscannedBelow(u, nil) }

// addUnscannedBelow notes a section not searched that would have been seen
// to hold bound (nil: anything): a warning is given only for those that
// could have been shown (judge).
func (s *stageRun) addUnscannedBelow(u Unscanned, bound *rank.ManualScores) {
	s.sum.Unscanned++
	if u.Reason != ReasonCandidateCap {
		s.unsearchedBounds = append(s.unsearchedBounds, bound)
	}
	if len(s.unscanned) < maxUnscannedListed {
		s.unscanned = append(s.unscanned, u)
	}
}

// expired reports whether the time budget ran out, noting the cut; a
// search that will be dropped (searchCurrent), or whose call was cancelled
// or timed out, stops as if it had.
func (s *stageRun) expired() bool {
	if s.dropped.Load() || s.ctx != nil && s.ctx.Err() != nil {
		return true
	}
	if s.cut == ReasonTimeBudget {
		return true
	}
	if !s.f.now().Before(s.deadline) {
		s.cut = ReasonTimeBudget
		return true
	}
	return false
}

// scan calls fn for each node of visit, in order, checking the budget as a
// scan of every node does, before each run of 64 nodes; nodes left when the
// budget runs out are recorded unscanned for stage. visit holds the nodes
// fn has anything to do with: looked up in the manuals' indexes, so a stage
// costs what it finds, not the size of the manual, and is cut where a scan
// of every node would be.
func (s *stageRun) scan(stage string, visit bitset, fn func(p int, n *workNode)) {
	for w := 0; w*64 < len(s.nodes); w++ {
		if s.expired() {
			for _, m := range s.nodes[w*64:] {
				s.addUnscanned(Unscanned{ManualID: m.manual, Path: m.Path, NodeID: m.NodeID, Reason: ReasonTimeBudget, Stage: stage})
			}
			return
		}
		for b := visit[w]; b != 0; b &= b - 1 {
			p := w<<6 | bits.TrailingZeros64(b)
			fn(p, s.nodes[p])
		}
	}
}

// segment is a run of a search's nodes taken from one manual snapshot.
type segment struct {
	snap  *manualSnapshot
	start int     // position in search.nodes of its first node
	pos   []int32 // by snapshot node: its position in search.nodes, -1 if not taken; nil when all are, from start on
	taken int     // nodes taken
}

// at returns the position in search.nodes of the snapshot's node i, or -1.
func (g *segment) at(i int32) int {
	if g.pos == nil {
		return g.start + int(i)
	}
	return int(g.pos[i])
}

type setKey struct {
	hay    hay
	needle string
}

// where returns the nodes whose h holds needle, exactly what a scan of
// every node with the same test (snapshot.holds) finds: from each manual's
// substring index, the nodes sure to, and the candidates checked with that
// test. Kept for the rest of the search.
func (s *stageRun) where(h hay, needle string) bitset {
	key := setKey{h, needle}
	if b, ok := s.sets[key]; ok {
		return b
	}
	b := newBitset(len(s.nodes))
	for i := range s.segs {
		g := &s.segs[i]
		sure, maybe, all := g.snap.textIndex().lookup(h, needle)
		for _, n := range sure {
			if p := g.at(n); p >= 0 {
				b.set(p)
			}
		}
		check := func(n int32) {
			if p := g.at(n); p >= 0 && !b.has(p) && g.snap.holds(h, n, needle) {
				b.set(p)
			}
		}
		if all {
			for n := range int32(len(g.snap.nodes)) {
				check(n)
			}
			continue
		}
		for _, n := range maybe {
			check(n)
		}
	}
	if s.sets == nil {
		s.sets = map[setKey]bitset{}
	}
	s.sets[key] = b
	return b
}

// posOf returns the position in search.nodes of a node taken.
func (s *stageRun) posOf(n *workNode) int {
	for i := range s.segs {
		if g := &s.segs[i]; g.snap == n.snap {
			return g.at(n.idx)
		}
	}
	return -1
}

// foundOf returns the candidate of a node taken, or nil.
func (s *stageRun) foundOf(n *workNode) *found { return s.found[s.posOf(n)] }

// position returns the position in search.nodes of a manual's node with
// the store's row id, or -1 when the search did not take it.
func (s *stageRun) position(manual string, row int64) int {
	for i := range s.segs {
		g := &s.segs[i]
		if g.snap.manual != manual {
			continue
		}
		if n, ok := g.snap.nodeTree().rows[row]; ok {
			return g.at(n)
		}
		return -1
	}
	return -1
}

func (s *stageRun) add(n *workNode, stage, term string, how rank.Sighting, via string) *found {
	p := s.posOf(n)
	c := s.found[p]
	if c == nil {
		c = &found{n: n}
		s.found[p] = c
		s.foundList = append(s.foundList, c)
	}
	c.stages |= stageBit(stage)
	if term == "" {
		return c
	}
	if m := c.term(term); m == nil {
		c.terms = append(c.terms, termMatch{term: term, best: how, via: via})
	} else if how.Better(m.best) {
		m.best = how
		if via != "" {
			m.via = via
		}
	}
	return c
}

func (s *stageRun) run(ctx context.Context) {
	s.ctx = ctx
	s.stageExact(ctx)
	if s.req.Baseline != "" {
		return
	}
	s.buildNeedles()
	s.stageSubstrings(StageNormalized, false)
	s.stageSubstrings(StageLoose, false)
	s.stageSubstrings(StageSynonym, true)
	s.stageHeadings(ctx)
	s.stageExceptions(false)
	// Stage 3.5: judge; stage 4 when the judgement finds the net too thin.
	if reasons := s.stage4Reasons(); len(reasons) > 0 && !s.expired() {
		s.sum.Stage4Reasons = reasons
		s.sum.Retries++
		s.stageWiden()
	}
}

// storeFailure reports an error of the store rather than of the request or
// the budget.
func storeFailure(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	switch apperr.CodeOf(err) {
	case apperr.CorruptDatabase, apperr.Unavailable, apperr.Internal:
		return true
	}
	return false
}

func (s *stageRun) ran(stage string) {
	if !slices.Contains(s.sum.StagesRun, stage) {
		s.sum.StagesRun = append(s.sum.StagesRun, stage)
	}
}

// storeFailed records a query of the store that failed. A failure of the
// store itself (a corrupt or unreadable index) fails the whole search; a
// cancelled or timed-out query is only a failed stage.
func (s *stageRun) storeFailed(stage string, err error) {
	if storeFailure(err) && s.storeErr == nil {
		s.storeErr = err
	}
	s.failed(stage, err)
}

// failed records a stage that could not run (a synonym file that does not
// parse, say): a warning, and the other stages go on.
func (s *stageRun) failed(stage string, err error) {
	s.sum.StagesFailed = append(s.sum.StagesFailed, stage)
	s.sum.Warnings = append(s.sum.Warnings, fmt.Sprintf("stage %s failed: %v", stage, err))
	s.failures = append(s.failures, stageFailure{stage, err}) // logged by Find, for the search it keeps
}

type stageFailure struct {
	stage string
	err   error
}
