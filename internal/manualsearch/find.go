package manualsearch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/adaptive"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ftsquery"
	"github.com/langspec/langspec/internal/manuals"
	"github.com/langspec/langspec/internal/queryplan"
	"github.com/langspec/langspec/internal/textnorm"
)

// Budgets (seed 002 §6.1).
const (
	DefaultTimeMS        = 60_000
	MaxTimeMS            = 600_000
	DefaultMaxCandidates = 200
	MaxMaxCandidates     = 1000
	// DefaultTraceTTL is how long manual_hits can page a trace.
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
	ManualID      string // "" searches every manual
	Query         string
	Intent        string // "" lets the query decide
	TimeMS        int    // 0: DefaultTimeMS
	MaxCandidates int    // 0: DefaultMaxCandidates
	// OnlyUnscannedFromTraceID searches only that trace's unscanned sections.
	OnlyUnscannedFromTraceID string
	// Baseline runs a baseline instead of the staged search, for the
	// evaluation to compare with: ModeBM25 (BM25 over the words of the query
	// as typed, stop words dropped) or ModeBM25Terms (stage 0 alone: BM25
	// over the terms the query analysis extracts). Tools never set it.
	Baseline string
}

// Candidate is one section the search found.
type Candidate struct {
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
	Snippet     string   `json:"snippet,omitempty" jsonschema:"the first matching line, cut to 160 characters"`
	SnippetLine int      `json:"snippet_line,omitempty" jsonschema:"that line's number"`
}

// Unscanned is a section (or a whole file, node_id empty) the search did
// not get to, and why.
type Unscanned struct {
	ManualID string `json:"manual_id" jsonschema:"the manual"`
	Path     string `json:"path" jsonschema:"file relative to the manual's folder"`
	NodeID   string `json:"node_id,omitempty" jsonschema:"section id; absent when the whole file was not scanned"`
	Reason   string `json:"reason" jsonschema:"time_budget, candidate_cap, stage_cap or hard_limit"`
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
	Candidates    int                 `json:"candidates" jsonschema:"sections found (after the candidate cap)"`
	Files         int                 `json:"files" jsonschema:"files holding candidates"`
	TopFileShare  float64             `json:"top_file_share" jsonschema:"share of candidates in the file holding most, 0 to 1"`
	ExceptionHits int                 `json:"exception_hits" jsonschema:"candidates holding exception vocabulary"`
	StagesRun     []string            `json:"stages_run" jsonschema:"stages that ran, in order"`
	StagesFailed  []string            `json:"stages_failed,omitempty" jsonschema:"stages that failed; the others' results still stand"`
	Retries       int                 `json:"retries" jsonschema:"widening passes (stage 4) run"`
	Stage4Reasons []string            `json:"stage4_reasons,omitempty" jsonschema:"why stage 4 widened the search"`
	Warnings      []string            `json:"warnings" jsonschema:"gaps, conflicts and limits found by the judgement (stage 3.5)"`
	Unscanned     int                 `json:"unscanned" jsonschema:"sections not searched, listed by manual_hits(kind=unscanned)"`
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

// Finder runs manual_find over an Index.
type Finder struct {
	Index    *Index
	Synonyms *SynonymFile     // nil: no synonyms
	Stats    *adaptive.Stats  // nil: fixed default thresholds, nothing recorded
	Now      func() time.Time // nil: time.Now
	TraceTTL time.Duration    // 0: DefaultTraceTTL
	Log      *slog.Logger
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

// workNode is a node during one search.
type workNode struct {
	db.ManualNode
	manual string
	ref    string // manual + "\x00" + path + "#" + node id
	parent *workNode
	root   *workNode // top-level ancestor (itself at the top)
	hasExc bool      // holds exception vocabulary
	isList bool      // holds a numbered or bulleted procedure
}

// found is a candidate being built.
type found struct {
	n       *workNode
	stages  map[string]bool
	terms   map[string]float64 // term -> best stage factor
	bm25    float64
	extra   float64
	matched map[string]string // term -> the text that matched it (variant or synonym), for the snippet
}

// search is the state of one Find.
type search struct {
	f         *Finder
	req       Request
	plan      queryplan.Plan
	nodes     []*workNode
	found     map[*workNode]*found
	deadline  time.Time
	cut       string
	unscanned []Unscanned
	sum       *Summary
	idf       map[string]float64
	needles   map[string][]needle // term -> its normalised forms
	excTerms  []string
}

// needle is one form of a term to look for.
type needle struct {
	text   string // normalised
	loose  string
	stage  string // normalized (the term and its notation variants) or synonym
	factor float64
}

var numberedLine = regexp.MustCompile(`(?m)^\s*(?:\d+[.)．）]|[０-９]+[.．)）]|[①-⑳]|[-*+]\s|\(\d+\)|（[0-9０-９]+）)`)

// Find runs the staged search and stores its trace.
func (f *Finder) Find(ctx context.Context, req Request) (Summary, error) {
	start := f.now()
	s, err := f.prepare(ctx, req, start)
	if err != nil {
		return Summary{}, err
	}
	s.run(ctx)
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	sum := s.finish(start)
	if err := f.store(ctx, req, s, sum); err != nil {
		return Summary{}, err
	}
	return *sum, nil
}

func (f *Finder) prepare(ctx context.Context, req Request, start time.Time) (*search, error) {
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
	if req.MaxCandidates < 1 || req.MaxCandidates > MaxMaxCandidates {
		return nil, apperr.New(apperr.InvalidArgument, fmt.Sprintf("budget.max_candidates is 1 to %d (default %d)", MaxMaxCandidates, DefaultMaxCandidates),
			"budget.max_candidates %d is out of range", req.MaxCandidates)
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
	s := &search{f: f, req: req, plan: plan, found: map[*workNode]*found{},
		deadline: start.Add(time.Duration(req.TimeMS) * time.Millisecond),
		sum:      &Summary{Intent: string(plan.Intent), Terms: plan.Terms, Warnings: []string{}}}
	if f.Stats != nil {
		s.sum.Thresholds = f.Stats.Thresholds()
	} else {
		s.sum.Thresholds = adaptive.Defaults()
	}
	for _, id := range manualIDs {
		nodes, skipped, err := f.Index.Nodes(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, sk := range skipped {
			s.addUnscanned(Unscanned{ManualID: id, Path: sk.Path, Reason: ReasonHardLimit})
		}
		byID := map[string]*workNode{}
		for i := range nodes {
			n := &workNode{ManualNode: nodes[i], manual: id}
			n.ref = id + "\x00" + n.Path + "#" + n.NodeID
			if only != nil && !only[n.ref] && !only[id+"\x00"+n.Path+"#"] {
				continue
			}
			if len(s.nodes) >= hardNodeLimit {
				s.addUnscanned(Unscanned{ManualID: id, Path: n.Path, NodeID: n.NodeID, Reason: ReasonHardLimit})
				continue
			}
			byID[n.Path+"#"+n.NodeID] = n
			s.nodes = append(s.nodes, n)
		}
		for _, n := range s.nodes {
			if n.manual != id {
				continue
			}
			if n.ParentID != "" {
				n.parent = byID[n.Path+"#"+n.ParentID]
			}
		}
	}
	for _, n := range s.nodes {
		r := n
		for r.parent != nil {
			r = r.parent
		}
		n.root = r
	}
	return s, nil
}

func (s *search) addUnscanned(u Unscanned) {
	s.sum.Unscanned++
	if len(s.unscanned) < maxUnscannedListed {
		s.unscanned = append(s.unscanned, u)
	}
}

// expired reports whether the time budget ran out, noting the cut.
func (s *search) expired() bool {
	if s.cut == ReasonTimeBudget {
		return true
	}
	if !s.f.now().Before(s.deadline) {
		s.cut = ReasonTimeBudget
		return true
	}
	return false
}

// scan calls fn for each node, checking the budget; nodes left when the
// budget runs out are recorded unscanned for stage.
func (s *search) scan(stage string, nodes []*workNode, fn func(*workNode)) {
	for i, n := range nodes {
		if i%64 == 0 && s.expired() {
			for _, m := range nodes[i:] {
				s.addUnscanned(Unscanned{ManualID: m.manual, Path: m.Path, NodeID: m.NodeID, Reason: ReasonTimeBudget, Stage: stage})
			}
			return
		}
		fn(n)
	}
}

func (s *search) add(n *workNode, stage, term string, factor float64, via string) *found {
	c := s.found[n]
	if c == nil {
		c = &found{n: n, stages: map[string]bool{}, terms: map[string]float64{}, matched: map[string]string{}}
		s.found[n] = c
	}
	c.stages[stage] = true
	if term != "" && factor > c.terms[term] {
		c.terms[term] = factor
		if via != "" {
			c.matched[term] = via
		}
	}
	return c
}

func (s *search) run(ctx context.Context) {
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

func (s *search) ran(stage string) {
	if !slices.Contains(s.sum.StagesRun, stage) {
		s.sum.StagesRun = append(s.sum.StagesRun, stage)
	}
}

func (s *search) failed(stage string, err error) {
	s.sum.StagesFailed = append(s.sum.StagesFailed, stage)
	s.sum.Warnings = append(s.sum.Warnings, fmt.Sprintf("stage %s failed: %v", stage, err))
	s.f.log().Warn("manual_find stage failed", "stage", stage, "err", err)
}

// stageExact is stage 0: the terms as phrases against the word index, BM25.
func (s *search) stageExact(ctx context.Context) {
	if s.expired() {
		return
	}
	s.ran(StageExact)
	expr := ftsquery.AnyPhrase(s.plan.Terms)
	if s.req.Baseline == ModeBM25 {
		q, err := ftsquery.Parse(s.req.Query)
		if err != nil {
			s.failed(StageExact, err)
			return
		}
		// BM25 proper scores a bag of words: any of them may match.
		if expr = q.AnyTerm(); expr.IsZero() {
			expr = q.AllTerms() // one word
		}
	}
	if expr.IsZero() {
		return
	}
	byRow := make(map[int64]*workNode, len(s.nodes))
	manualsSeen := map[string]bool{}
	for _, n := range s.nodes {
		byRow[n.RowID] = n
		manualsSeen[n.manual] = true
	}
	for manual := range manualsSeen {
		hits, err := s.f.Index.store.MatchManualWords(ctx, manual, expr, hardNodeLimit)
		if err != nil {
			s.failed(StageExact, err)
			return
		}
		best := 0.0
		for _, h := range hits {
			best = max(best, h.Score)
		}
		for _, h := range hits {
			n := byRow[h.RowID]
			if n == nil {
				continue // outside an only_unscanned scope
			}
			c := s.add(n, StageExact, "", 0, "")
			if best > 0 {
				c.bm25 = max(c.bm25, h.Score/best)
			}
			for _, t := range s.plan.Terms {
				if strings.Contains(n.Norm, textnorm.Normal(t)) {
					s.add(n, StageExact, t, 1, t)
				}
			}
		}
	}
}

// buildNeedles gathers each term's notation variants and synonyms, and the
// terms' weights: a term few sections hold says more than one most hold.
func (s *search) buildNeedles() {
	s.needles = map[string][]needle{}
	s.sum.expansions = map[string][]string{}
	dict, status, err := s.f.Synonyms.Load()
	if err != nil {
		s.failed(StageSynonym, err)
	}
	s.sum.Dictionary = status
	for _, t := range s.plan.Terms {
		forms := []needle{{text: textnorm.Normal(t), loose: textnorm.Loose(t), stage: StageNormalized, factor: 1}}
		for _, v := range queryplan.Variants(t) {
			forms = append(forms, needle{text: textnorm.Normal(v), loose: textnorm.Loose(v), stage: StageNormalized, factor: 1})
			s.sum.expansions[t] = append(s.sum.expansions[t], v)
		}
		for _, syn := range dict.Expand(t) {
			forms = append(forms, needle{text: textnorm.Normal(syn), loose: textnorm.Loose(syn), stage: StageSynonym, factor: 0.8})
			for _, v := range queryplan.Variants(syn) {
				forms = append(forms, needle{text: textnorm.Normal(v), loose: textnorm.Loose(v), stage: StageSynonym, factor: 0.8})
			}
			s.sum.expansions[t] = append(s.sum.expansions[t], syn)
		}
		s.needles[t] = forms
	}
	s.idf = map[string]float64{}
	total := float64(len(s.nodes))
	for _, t := range s.plan.Terms {
		df := 0
		for _, n := range s.nodes {
			for _, nd := range s.needles[t] {
				if nd.text != "" && strings.Contains(n.Norm, nd.text) {
					df++
					break
				}
			}
		}
		s.idf[t] = math.Log(1 + total/float64(1+df))
	}
	excs := manuals.ExceptionTerms()
	s.excTerms = make([]string, len(excs))
	for i, e := range excs {
		s.excTerms[i] = textnorm.Normal(e)
	}
	for _, n := range s.nodes {
		n.hasExc = containsAny(n.Norm, s.excTerms)
		n.isList = numberedLine.MatchString(n.Body)
	}
}

func containsAny(s string, needles []string) bool {
	for _, nd := range needles {
		if strings.Contains(s, nd) {
			return true
		}
	}
	return false
}

// stageSubstrings is stage 1 (normalized: the terms and their notation
// variants in the normalised text; loose: the same with separators removed)
// and stage 2 (synonym: the dictionary's expansions, both ways).
func (s *search) stageSubstrings(stage string, synonyms bool) {
	if s.expired() {
		return
	}
	s.ran(stage)
	loose := stage == StageLoose
	s.scan(stage, s.nodes, func(n *workNode) {
		for _, t := range s.plan.Terms {
			for _, nd := range s.needles[t] {
				if (nd.stage == StageSynonym) != synonyms {
					continue
				}
				text, hay, factor := nd.text, n.Norm, nd.factor
				if loose || synonyms && utf8.RuneCountInString(nd.loose) >= 2 {
					text, hay = nd.loose, n.Loose
				}
				if loose {
					factor *= 0.9
				}
				if utf8.RuneCountInString(text) < 2 && !isWordRune(text) {
					continue
				}
				if strings.Contains(hay, text) {
					s.add(n, stage, t, factor, nd.text)
					break
				}
			}
		}
	})
}

// isWordRune allows a one-character needle only when it is a kanji, which
// can be a word on its own (火, 水).
func isWordRune(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && r >= 0x4E00 && r <= 0x9FFF
}

// stageHeadings is stage 3's table-of-contents completion: a section whose
// heading names a term brings its subsections, which rarely repeat the
// term; a term nothing matched is looked up fuzzily (shared trigrams) so a
// typo or an unfamiliar spelling never ends the search at zero.
func (s *search) stageHeadings(ctx context.Context) {
	if s.expired() {
		return
	}
	s.ran(StageHeading)
	children := map[*workNode][]*workNode{}
	for _, n := range s.nodes {
		if n.parent != nil {
			children[n.parent] = append(children[n.parent], n)
		}
	}
	var heads []*workNode
	for _, n := range s.nodes {
		title, looseTitle := textnorm.Normal(n.Title), textnorm.Loose(n.Title)
		for _, t := range s.plan.Terms {
			for _, nd := range s.needles[t] {
				if nd.text != "" && strings.Contains(title, nd.text) {
					s.add(n, StageHeading, t, nd.factor, nd.text).extra += 0.5 * s.idf[t]
					heads = append(heads, n)
					break
				}
				// A heading that is part of the term names the thing itself:
				// the glossary's 地震火災費用 for 地震火災費用特約.
				if n.Kind == manuals.KindHeading && utf8.RuneCountInString(looseTitle) >= minTitleInTerm && strings.Contains(nd.loose, looseTitle) {
					s.add(n, StageHeading, t, 0.6*nd.factor, "")
					heads = append(heads, n)
					break
				}
			}
		}
	}
	limit := s.req.MaxCandidates / 2
	added := 0
	var walk func(n *workNode, term string, depth int)
	walk = func(n *workNode, term string, depth int) {
		for _, c := range children[n] {
			if s.found[c] == nil {
				if added >= limit {
					s.addUnscanned(Unscanned{ManualID: c.manual, Path: c.Path, NodeID: c.NodeID, Reason: ReasonStageCap, Stage: StageHeading})
					continue
				}
				added++
			}
			s.add(c, StageHeading, term, 0.6/float64(depth), "")
			walk(c, term, depth+1)
		}
	}
	for _, h := range heads {
		for t := range s.found[h].terms {
			walk(h, t, 1)
		}
	}
	// Fuzzy lookup for the terms still without a match.
	matched := map[string]bool{}
	for _, c := range s.found {
		for t := range c.terms {
			matched[t] = true
		}
	}
	byRow := make(map[int64]*workNode, len(s.nodes))
	for _, n := range s.nodes {
		byRow[n.RowID] = n
	}
	for _, t := range s.plan.Terms {
		if matched[t] || utf8.RuneCountInString(textnorm.Normal(t)) < 4 {
			continue
		}
		for _, manual := range s.manualIDs() {
			hits, err := s.f.Index.store.MatchManualTrigrams(ctx, manual, ftsquery.AnyTrigram(textnorm.Normal(t)), fuzzyPerTerm)
			if err != nil {
				s.failed(StageHeading, err)
				return
			}
			for _, h := range hits {
				if n := byRow[h.RowID]; n != nil && trigramOverlap(textnorm.Normal(t), n.Norm) >= 0.5 {
					s.add(n, StageHeading, t, 0.4, "")
				}
			}
		}
	}
}

func (s *search) manualIDs() []string {
	var out []string
	for _, n := range s.nodes {
		if !slices.Contains(out, n.manual) {
			out = append(out, n.manual)
		}
	}
	return out
}

// trigramOverlap is the share of term's trigrams found in text.
func trigramOverlap(term, text string) float64 {
	grams := ftsquery.Trigrams(term)
	if len(grams) == 0 {
		return 0
	}
	hit := 0
	for _, g := range grams {
		if strings.Contains(text, g) {
			hit++
		}
	}
	return float64(hit) / float64(len(grams))
}

// stageExceptions is stage 3's exception-vocabulary scan: sections with
// "except", "unless", 対象外, ただし… in the same top-level section as a
// candidate (or, when everywhere is set or the intent is exceptions, in the
// same file). An exception rarely repeats the name of what it limits.
func (s *search) stageExceptions(everywhere bool) {
	if s.expired() {
		return
	}
	stage := StageException
	if everywhere {
		stage = StageWiden
	}
	s.ran(stage)
	roots, files := map[*workNode]bool{}, map[string]bool{}
	for n, c := range s.found {
		if len(c.terms) == 0 {
			continue
		}
		roots[n.root] = true
		files[n.manual+"\x00"+n.Path] = true
	}
	wide := everywhere || s.plan.Intent == queryplan.IntentExceptions
	limit := s.req.MaxCandidates / 2
	added := 0
	s.scan(stage, s.nodes, func(n *workNode) {
		if !n.hasExc {
			return
		}
		if !roots[n.root] && !(wide && files[n.manual+"\x00"+n.Path]) {
			return
		}
		if s.found[n] == nil {
			if added >= limit {
				s.addUnscanned(Unscanned{ManualID: n.manual, Path: n.Path, NodeID: n.NodeID, Reason: ReasonStageCap, Stage: stage})
				return
			}
			added++
		}
		s.add(n, stage, "", 0, "")
	})
}

// stage4Reasons is the oversight check of stage 3.5 (seed 002 §6.1): too
// few candidates, candidates piled in one file, or an exceptions question
// with no exception found.
func (s *search) stage4Reasons() []string {
	th := s.sum.Thresholds
	n := len(s.found)
	var out []string
	switch {
	case n == 0:
		out = append(out, "no candidates")
	case n < th.CandidateLow:
		out = append(out, fmt.Sprintf("%d candidates, fewer than %d", n, th.CandidateLow))
	}
	if share, file := s.topFile(); n >= 5 && share >= th.FileBias {
		out = append(out, fmt.Sprintf("%.0f%% of candidates in %s", share*100, file))
	}
	if s.plan.Intent == queryplan.IntentExceptions && s.exceptionHits() == 0 {
		out = append(out, "exceptions asked for, none found")
	}
	return out
}

func (s *search) topFile() (float64, string) {
	per := map[string]int{}
	for n := range s.found {
		per[n.manual+"/"+n.Path]++
	}
	best, file := 0, ""
	for f, c := range per {
		if c > best || c == best && f < file {
			best, file = c, f
		}
	}
	if len(s.found) == 0 {
		return 0, ""
	}
	return float64(best) / float64(len(s.found)), file
}

func (s *search) exceptionHits() int {
	k := 0
	for n := range s.found {
		if n.hasExc {
			k++
		}
	}
	return k
}

// stageWiden is stage 4: fragments of the terms (words of a phrase, parts
// of a Japanese compound), the parents of what was found, and exception
// vocabulary across every file with a candidate.
func (s *search) stageWiden() {
	s.ran(StageWiden)
	type frag struct{ term, text, loose string }
	var frags []frag
	for _, t := range s.plan.Terms {
		for _, fr := range queryplan.Fragments(t) {
			frags = append(frags, frag{t, textnorm.Normal(fr), textnorm.Loose(fr)})
		}
	}
	limit := max(s.req.MaxCandidates/4, 10)
	added := 0
	addCapped := func(n *workNode, term string, factor float64) {
		if s.found[n] == nil {
			if added >= limit {
				s.addUnscanned(Unscanned{ManualID: n.manual, Path: n.Path, NodeID: n.NodeID, Reason: ReasonStageCap, Stage: StageWiden})
				return
			}
			added++
		}
		s.add(n, StageWiden, term, factor, "")
	}
	s.scan(StageWiden, s.nodes, func(n *workNode) {
		for _, fr := range frags {
			if fr.text != "" && (strings.Contains(n.Norm, fr.text) || fr.loose != "" && strings.Contains(n.Loose, fr.loose)) {
				addCapped(n, fr.term, 0.3)
				return
			}
		}
	})
	for n, c := range s.found {
		if n.parent != nil && len(c.terms) > 0 && s.found[n.parent] == nil {
			addCapped(n.parent, "", 0)
		}
	}
	s.stageExceptions(true)
}

// score ranks a candidate: each term it matched, weighted by how rare the
// term is and by how directly it matched, plus BM25's say and the intent.
func (s *search) score(c *found) float64 {
	sc := c.bm25 + c.extra
	for t, factor := range c.terms {
		idf := s.idf[t]
		if idf == 0 {
			idf = 1
		}
		sc += factor * idf
	}
	if len(c.terms) == 0 {
		sc += 0.2 // found only as context (an exception nearby, a parent)
	}
	switch s.plan.Intent {
	case queryplan.IntentExceptions:
		if c.n.hasExc {
			sc += 1
		}
	case queryplan.IntentProcedure:
		if c.n.isList {
			sc += 0.5
		}
	case queryplan.IntentDefinition:
		if c.stages[StageHeading] && len(c.terms) > 0 {
			sc += 0.5
		}
	}
	return math.Round(sc*1000) / 1000
}

// finish ranks, caps and judges (stage 3.5) and fills the summary.
func (s *search) finish(start time.Time) *Summary {
	sum := s.sum
	cands := make([]*found, 0, len(s.found))
	for _, c := range s.found {
		cands = append(cands, c)
	}
	scores := make(map[*found]float64, len(cands))
	for _, c := range cands {
		scores[c] = s.score(c)
	}
	slices.SortFunc(cands, func(a, b *found) int {
		if d := scores[b] - scores[a]; d != 0 {
			if d > 0 {
				return 1
			}
			return -1
		}
		if a.n.manual != b.n.manual {
			return strings.Compare(a.n.manual, b.n.manual)
		}
		if a.n.Path != b.n.Path {
			return strings.Compare(a.n.Path, b.n.Path)
		}
		return a.n.Ord - b.n.Ord
	})
	if len(cands) > s.req.MaxCandidates {
		for _, c := range cands[s.req.MaxCandidates:] {
			s.addUnscanned(Unscanned{ManualID: c.n.manual, Path: c.n.Path, NodeID: c.n.NodeID, Reason: ReasonCandidateCap})
		}
		cands = cands[:s.req.MaxCandidates]
		if s.cut == "" {
			s.cut = ReasonCandidateCap
		}
	}
	sum.CutoffReason = s.cut
	files := map[string]int{}
	matchedTerms := map[string]bool{}
	titles := map[string][]string{}
	for _, c := range cands {
		files[c.n.manual+"/"+c.n.Path]++
		for t := range c.terms {
			matchedTerms[t] = true
		}
		if c.n.hasExc {
			sum.ExceptionHits++
		}
		if len(c.terms) > 0 && c.n.Kind == manuals.KindHeading {
			key := textnorm.Loose(c.n.Title)
			titles[key] = append(titles[key], c.n.manual+"/"+c.n.Path+"#"+c.n.NodeID)
		}
		sum.candidateList = append(sum.candidateList, s.candidate(c, scores[c]))
	}
	sum.Candidates = len(cands)
	sum.Files = len(files)
	top := 0
	for _, k := range files {
		top = max(top, k)
	}
	if len(cands) > 0 {
		sum.TopFileShare = math.Round(float64(top)/float64(len(cands))*100) / 100
	}
	for _, t := range s.plan.Terms {
		if !matchedTerms[t] {
			sum.gapTerms = append(sum.gapTerms, t)
		}
	}
	sum.conflicts = map[string][]string{}
	for k, refs := range titles {
		if len(refs) > 1 && distinctFiles(refs) {
			sum.conflicts[k] = refs
		}
	}
	sum.unscannedList = s.unscanned
	sum.ElapsedMS = s.f.now().Sub(start).Milliseconds()
	sum.Warnings = append(sum.Warnings, s.judge()...)
	return sum
}

func distinctFiles(refs []string) bool {
	file := func(r string) string { return r[:strings.IndexByte(r, '#')] }
	for _, r := range refs[1:] {
		if file(r) != file(refs[0]) {
			return true
		}
	}
	return false
}

// judge is stage 3.5's verdict: the next actions, and a warning for each.
func (s *search) judge() []string {
	sum := s.sum
	th := sum.Thresholds
	var warn []string
	act := func(a NextAction) {
		sum.NextActions = append(sum.NextActions, a)
		warn = append(warn, a.Reason)
	}
	if sum.Candidates < th.CandidateLow {
		act(NextAction{Action: ActionInsufficient, Tool: "manual_toc",
			Reason: fmt.Sprintf("only %d candidates (fewer than %d) even after widening; browse the table of contents or rephrase", sum.Candidates, th.CandidateLow)})
	}
	if len(sum.conflicts) > 0 {
		keys := slices.Sorted(mapKeys(sum.conflicts))
		act(NextAction{Action: ActionConflicts, Tool: "manual_read",
			Reason: fmt.Sprintf("%d headings appear in more than one file (e.g. %s); read both and check they agree", len(keys), strings.Join(sum.conflicts[keys[0]], " and "))})
	}
	var gaps []string
	if len(sum.gapTerms) > 0 {
		gaps = append(gaps, fmt.Sprintf("no section matched %s", quoteAll(sum.gapTerms)))
	}
	if s.plan.Intent == queryplan.IntentExceptions && sum.ExceptionHits == 0 {
		gaps = append(gaps, "no exception wording found near the candidates")
	}
	if sum.Unscanned > 0 {
		gaps = append(gaps, fmt.Sprintf("%d sections were not searched", sum.Unscanned))
	}
	if len(gaps) > 0 {
		a := NextAction{Action: ActionFillGaps, Reason: strings.Join(gaps, "; "), Tool: "manual_excepts"}
		if sum.Unscanned > 0 {
			a.Tool = "manual_find"
			a.Arguments = map[string]any{"only_unscanned_from_trace_id": ""}
		}
		act(a)
	}
	if sum.Candidates >= 5 && sum.TopFileShare >= th.FileBias && len(s.manualFiles()) > 1 {
		act(NextAction{Action: ActionReduceFileBias, Tool: "manual_ls",
			Reason: fmt.Sprintf("%.0f%% of candidates sit in one file; check the other files of the manual", sum.TopFileShare*100)})
	}
	if len(sum.NextActions) == 0 {
		sum.NextActions = append(sum.NextActions, NextAction{Action: ActionCompleted, Tool: "manual_hits",
			Reason: fmt.Sprintf("%d candidates in %d files; page them with manual_hits and read with manual_read", sum.Candidates, sum.Files)})
	}
	return warn
}

func (s *search) manualFiles() map[string]bool {
	out := map[string]bool{}
	for _, n := range s.nodes {
		out[n.manual+"/"+n.Path] = true
	}
	return out
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func quoteAll(ts []string) string {
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(q, ", ")
}

// candidate renders a found node with its snippet: the first line of its
// own text holding a matched form, else its first line of text.
func (s *search) candidate(c *found, score float64) Candidate {
	n := c.n
	out := Candidate{ManualID: n.manual, Path: n.Path, NodeID: n.NodeID, Title: n.Title,
		LineStart: n.LineStart, LineEnd: n.LineEnd, Score: score, Exception: n.hasExc}
	for st := range c.stages {
		out.Stages = append(out.Stages, st)
	}
	slices.SortFunc(out.Stages, func(a, b string) int { return stageOrder(a) - stageOrder(b) })
	for _, t := range s.plan.Terms {
		if _, ok := c.terms[t]; ok {
			out.Matched = append(out.Matched, t)
		}
	}
	var forms []string
	for _, t := range out.Matched {
		for _, nd := range s.needles[t] {
			forms = append(forms, nd.text)
		}
		if s.needles == nil {
			forms = append(forms, textnorm.Normal(t))
		}
	}
	if c.n.hasExc && len(forms) == 0 {
		forms = s.excTerms
	}
	lines := strings.Split(strings.TrimSuffix(n.Body, "\n"), "\n")
	first := -1
	for i, l := range lines {
		if i == 0 && n.Kind == manuals.KindHeading {
			continue // the heading line itself
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		if first < 0 {
			first = i
		}
		if len(forms) > 0 && containsAny(textnorm.Normal(l), forms) {
			first = i
			break
		}
	}
	if first >= 0 {
		out.Snippet = cutRunes(strings.TrimSpace(lines[first]), snippetRunes)
		out.SnippetLine = n.LineStart + first
	}
	return out
}

func stageOrder(st string) int {
	return slices.Index([]string{StageExact, StageNormalized, StageLoose, StageSynonym, StageHeading, StageException, StageWiden}, st)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// newTraceID returns a random trace id.
func newTraceID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "mf_" + hex.EncodeToString(b[:])
}

// tracePayload is what a trace stores.
type tracePayload struct {
	Query      string              `json:"query"`
	ManualIDs  []string            `json:"manual_ids"`
	Intent     string              `json:"intent"`
	Terms      []string            `json:"terms"`
	Expansions map[string][]string `json:"expansions,omitempty"`
	Candidates []Candidate         `json:"candidates"`
	Unscanned  []Unscanned         `json:"unscanned"`
	Summary    Summary             `json:"summary"`
}

// store fills the trace id and token estimates, saves the trace and records
// the statistics.
func (f *Finder) store(ctx context.Context, req Request, s *search, sum *Summary) error {
	now := f.now()
	sum.TraceID = newTraceID()
	for i := range sum.NextActions {
		a := &sum.NextActions[i]
		switch a.Tool {
		case "manual_hits":
			a.Arguments = map[string]any{"trace_id": sum.TraceID, "kind": "candidates"}
		case "manual_find":
			a.Arguments = map[string]any{"only_unscanned_from_trace_id": sum.TraceID}
		}
	}
	in, _ := json.Marshal(req)
	out, _ := json.Marshal(sum)
	sum.EstTokensIn, sum.EstTokensOut, sum.EstTokens = adaptive.EstTokens(len(in), len(out))
	ids := s.manualIDs()
	if req.ManualID != "" {
		ids = []string{req.ManualID}
	}
	payload, err := json.Marshal(tracePayload{Query: s.req.Query, ManualIDs: ids, Intent: string(s.plan.Intent),
		Terms: s.plan.Terms, Expansions: sum.expansions, Candidates: sum.candidateList, Unscanned: sum.unscannedList, Summary: *sum})
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "", "encode trace")
	}
	ttl := f.TraceTTL
	if ttl <= 0 {
		ttl = DefaultTraceTTL
	}
	if err := f.Index.store.PutTrace(ctx, db.Trace{ID: sum.TraceID, ManualID: strings.Join(ids, ","), CreatedAt: now, ExpiresAt: now.Add(ttl), Payload: payload}); err != nil {
		return err
	}
	if f.Stats != nil {
		refs := make([]string, len(sum.candidateList))
		for i, c := range sum.candidateList {
			refs[i] = adaptive.Ref(c.ManualID, c.Path, c.NodeID)
		}
		if err := f.Stats.RecordFind(adaptive.FindRecord{TraceID: sum.TraceID, Intent: sum.Intent, Candidates: sum.Candidates,
			Files: sum.Files, Stage4: sum.Retries > 0, CutoffReason: sum.CutoffReason, CharsIn: len(in), CharsOut: len(out),
			Refs: refs, DurationMS: sum.ElapsedMS}); err != nil {
			// Statistics are an optimisation; a full disk must not fail the search.
			f.log().Warn("adaptive stats not recorded", "err", err)
		}
	}
	return nil
}

func (f *Finder) loadTrace(ctx context.Context, id string) (tracePayload, error) {
	var p tracePayload
	if !validTraceID(id) {
		return p, apperr.New(apperr.InvalidArgument, "pass the trace_id a manual_find returned (mf_ and 20 hex digits)", "trace_id %q is not a trace id", cutRunes(id, 64))
	}
	t, err := f.Index.store.GetTrace(ctx, id, f.now())
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(t.Payload, &p); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "run manual_find again", "trace %q cannot be read", id)
	}
	return p, nil
}

func validTraceID(id string) bool {
	rest, ok := strings.CutPrefix(id, "mf_")
	if !ok || len(rest) != 20 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}
