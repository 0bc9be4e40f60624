package find

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest/manualfile"
	"github.com/langspec/langspec/internal/manual"
	"github.com/langspec/langspec/internal/manual/find/queryplan"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/normalize"
)

// scores are a candidate's scores in the stages' channels, from what they
// saw of it (rank.ManualEvidence).
func (s *stageRun) scores(c *found) rank.ManualScores {
	e := rank.ManualEvidence{Named: c.named, Asked: asks[s.plan.Intent],
		HasExceptions: c.n.hasExc, IsList: c.n.isList, ByHeading: c.stages&stageBit(StageHeading) != 0}
	// One buffer for every candidate's terms: a search scores thousands.
	s.termBuf = s.termBuf[:0]
	for _, m := range c.terms {
		s.termBuf = append(s.termBuf, rank.TermEvidence{IDF: s.idf[m.term], Best: m.best})
	}
	e.Terms = s.termBuf
	return e.Scores()
}

// asks are the intents as the ranking knows them.
var asks = map[queryplan.Intent]rank.Ask{
	queryplan.IntentDefinition: rank.AskDefinition,
	queryplan.IntentProcedure:  rank.AskProcedure,
	queryplan.IntentExceptions: rank.AskExceptions,
}

// scoreIf is what n would have been seen to hold, found by nothing but
// stage (holding term as how; "" for found as context): the bound of a
// section a stage's cap left out.
func (s *stageRun) scoreIf(n *workNode, stage, term string, how rank.Sighting) *rank.ManualScores {
	c := &found{n: n, stages: stageBit(stage)}
	if term != "" {
		c.terms = []termMatch{{term: term, best: how}}
	}
	sc := s.scores(c)
	return &sc
}

// rankedCandidate is a candidate in rank order, with the search that found
// it (its terms and forms make its snippet).
type rankedCandidate struct {
	*found
	score     float64
	owner     *stageRun
	phrasings []int // with also: the runs that found it, 0 the query
}

// lists are s's ranked lists as phrasing's: stage 0's (the engine's
// channels) and the stages' (rank.ManualScores), and a heading list of the
// sections the query names (rank.ExactTitles), which come first. The
// section at position p of s's nodes is named idAt[p].
func (s *stageRun) lists(phrasing int, idAt []int64) []rank.List {
	var out []rank.List
	for _, l := range s.engineLists {
		m := rank.List{Channel: l.Channel, Phrasing: phrasing, Postings: make([]rank.Posting, len(l.Postings))}
		for i, p := range l.Postings {
			m.Postings[i] = rank.Posting{ID: idAt[p.ID], Score: p.Score}
		}
		out = append(out, m)
	}
	if s.req.Baseline != "" {
		return out // plain BM25, for the evaluation to compare with
	}
	stages := rank.ManualLists(phrasing, len(s.foundList))
	heading := rank.List{Channel: rank.ChannelHeading, Phrasing: phrasing}
	exact := rank.NewExactTitles(s.plan.Query)
	for p, c := range s.found {
		if c == nil {
			continue
		}
		s.scores(c).Lists(stages, idAt[p])
		if exact.Names(c.n.Title, c.n.titleKey) {
			heading.Postings = append(heading.Postings, rank.Posting{ID: idAt[p], Score: rank.TitleEquals})
		}
	}
	// A list of nothing changes no answer: it is left out.
	for _, l := range append(stages, heading) {
		if len(l.Postings) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// ranked fuses the lists of s and of the runs of other phrasings (alts) in
// one rank.Fuse, as every search's lists are fused, and returns the
// candidates best first. Sections are numbered in s's manual, path and
// document order, then each phrasing's new ones so: of equal scores, the
// word channel's better comes first, then the lower number. A section
// several runs found keeps the query's entry if the query found it (its
// terms make the snippet), else the first run's that found it.
func (s *stageRun) ranked(alts []*stageRun) ([]rankedCandidate, []rank.List) {
	type key struct{ manual, path, node string }
	var ids map[key]int64 // by section, when several runs name them
	if len(alts) > 0 {
		ids = map[key]int64{}
	}
	runs := append([]*stageRun{s}, alts...)
	n := 0
	for _, run := range runs {
		n += len(run.foundList)
	}
	byID := make([]rankedCandidate, 0, n)
	var lists []rank.List
	for r, run := range runs {
		idAt := make([]int64, len(run.found))
		for _, p := range run.inDocumentOrder() {
			c := run.found[p]
			k := key{c.n.manual, c.n.Path, c.n.NodeID}
			if id := ids[k]; id > 0 {
				idAt[p] = id
				continue
			}
			byID = append(byID, rankedCandidate{found: c, owner: run})
			idAt[p] = int64(len(byID))
			if ids != nil {
				ids[k] = idAt[p]
			}
		}
		lists = append(lists, run.lists(r, idAt)...)
	}
	hits := rank.New(rank.ManualWeights()).Fuse(lists, len(byID))
	out := make([]rankedCandidate, len(hits))
	for i, h := range hits {
		out[i] = byID[h.ID-1]
		out[i].score, out[i].phrasings = h.Score, h.Phrasings
	}
	return out, lists
}

// inDocumentOrder are the positions of s's candidates in manual, path and
// document order. Within a manual whose nodes are so ordered
// (snapshot.ordered) a node's position says it, and no sort is needed.
func (s *stageRun) inDocumentOrder() []int {
	out := make([]int, 0, len(s.foundList))
	for p, c := range s.found {
		if c != nil {
			out = append(out, p)
		}
	}
	for _, g := range s.segs {
		if !g.snap.ordered() {
			slices.SortFunc(out, func(a, b int) int {
				x, y := s.nodes[a], s.nodes[b]
				return cmp.Or(strings.Compare(x.manual, y.manual), strings.Compare(x.Path, y.Path), cmp.Compare(x.Ord, y.Ord))
			})
			break
		}
	}
	return out
}

// finish ranks, caps and judges (stage 3.5) and fills the summary. With the
// runs of other phrasings (alts), the candidates are theirs and s's, fused
// (ranked); the rest of the summary is s's.
func (s *stageRun) finish(start time.Time, alts []*stageRun) *Summary {
	sum := s.sum
	own, lists := s.ranked(nil)
	sum.Unsearched = s.unsearchedAbove(own, lists)
	cands := own
	if len(alts) > 0 {
		cands, _ = s.ranked(alts)
	}
	cands = s.setAside(cands, alts)
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
	titles := map[string][]*workNode{}
	for i, c := range cands {
		files[c.n.manual+"/"+c.n.Path]++
		for _, m := range c.terms {
			matchedTerms[m.term] = true
		}
		if c.n.hasExc {
			sum.ExceptionHits++
		}
		if len(c.terms) > 0 && c.n.Kind == manualfile.KindHeading {
			key := normalize.Loose(c.n.Title)
			titles[key] = append(titles[key], c.n)
		}
		// The first page's snippets are the best lines; past it, the first
		// line holding a term will do: a search renders hundreds.
		cand := c.owner.candidate(c.found, math.Round(c.score*1000)/1000, i < DefaultHitsLimit, i == 0)
		if len(alts) > 0 {
			for _, p := range c.phrasings {
				if p == 0 {
					cand.Phrasings = append(cand.Phrasings, "query")
				} else {
					cand.Phrasings = append(cand.Phrasings, fmt.Sprintf("also:%d", p))
				}
			}
		}
		sum.candidateList = append(sum.candidateList, cand)
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
	for k, nodes := range titles {
		if refs := conflicting(nodes); refs != nil {
			sum.conflicts[k] = refs
		}
	}
	sum.unscannedList = s.unscanned
	sum.Hits = slices.Clone(sum.candidateList[:min(s.req.Hits, len(sum.candidateList))])
	sum.ElapsedMS = s.f.now().Sub(start).Milliseconds()
	sum.Warnings = append(sum.Warnings, s.judge(cands)...)
	return sum
}

// unsearchedAbove counts the sections never searched that could have been
// among the hits shown (own, ranked from lists): those whose best possible
// score — what they would have been seen to hold, fused with lists
// (rank.Engine.Bound) — reaches the lowest score shown (all of them when
// fewer candidates than that were found, or when nothing is known of
// them). A stage's cap that left out only sections ranked below every hit
// changes nothing a reader should do.
func (s *stageRun) unsearchedAbove(own []rankedCandidate, lists []rank.List) int {
	shown := s.req.Hits
	if shown == 0 {
		shown = DefaultHitsLimit
	}
	floor := math.Inf(-1)
	if len(own) >= shown {
		floor = math.Inf(1)
		for _, c := range own[:shown] {
			floor = min(floor, c.score)
		}
	}
	var bound func(rank.ManualScores) float64
	n := 0
	for _, b := range s.unsearchedBounds {
		if b == nil {
			n++
			continue
		}
		if bound == nil {
			bound = rank.New(rank.ManualWeights()).Bound(lists)
		}
		if bound(*b) >= floor {
			n++
		}
	}
	return n
}

// setAside moves the candidates under an aside note (material beside the
// manual's subject: another product compared, an old edition) after the
// others, each part in its order, unless the question — or one of its
// phrasings — uses a term of the note: then the user asked about it. They
// stay candidates: recall is unchanged, the first page is the subject's.
func (s *stageRun) setAside(cands []rankedCandidate, alts []*stageRun) []rankedCandidate {
	set := s.f.NoteSet()
	var asides []contextnote.Note
	for _, n := range set.All() {
		if n.Aside {
			asides = append(asides, n)
		}
	}
	if len(asides) == 0 {
		return cands
	}
	plans := []queryplan.Plan{s.plan}
	for _, a := range alts {
		plans = append(plans, a.plan)
	}
	named := map[string]bool{}
	for _, n := range asides {
		named[n.Target] = usesNote(plans, n.Text)
	}
	var kept, aside []rankedCandidate
	for _, c := range cands {
		put := false
		for _, n := range set.ForManualFile(c.n.manual, c.n.Path) {
			if n.Aside && !named[n.Target] {
				put = true
				break
			}
		}
		if put {
			aside = append(aside, c)
		} else {
			kept = append(kept, c)
		}
	}
	return append(kept, aside...)
}

// usesNote reports whether a term of one of the plans (the question's
// terms, as the stages search them) occurs in the note, both normalised
// the loose way (width, case and separators aside).
func usesNote(plans []queryplan.Plan, note string) bool {
	text := normalize.Loose(note)
	for _, p := range plans {
		for _, t := range p.Terms {
			if lt := normalize.Loose(t); utf8.RuneCountInString(lt) >= 2 && strings.Contains(text, lt) {
				return true
			}
		}
	}
	return false
}

// conflicting returns two sections with the same heading, in different
// files, that give different figures for the same thing (30 days here, 60
// there), or nil. A figure is taken as said of the words around it
// (figureSlot): "within 30 days" and "within 60 days" disagree, while
// "Default: 100" under one class and "Default: 1000" before other words
// under another say different things. The same heading with the same or no
// figures is a rule restated, not a conflict: a rider repeating
// "保険金を支払う場合" is expected; nor is a heading that two unrelated
// sections share (every "Example", "Event: 'exit'" of two classes), which
// rarely puts a figure in the same words.
func conflicting(nodes []*workNode) []string {
	for i, a := range nodes {
		for _, b := range nodes[i+1:] {
			if a.manual+a.Path == b.manual+b.Path {
				continue
			}
			if disagree(a.figures, b.figures) {
				return []string{a.manual + "/" + a.Path + "#" + a.NodeID, b.manual + "/" + b.Path + "#" + b.NodeID}
			}
		}
	}
	return nil
}

// figureSlot is a figure with the letters around it: up to slotBefore
// letters before it and slotAfter after, other characters (spaces,
// punctuation, digits) skipped, so that "within 30 days", "within **60**
// days" and "から30日以内" each name the thing the figure is of.
type figureSlot struct{ context, figure string }

const slotBefore, slotAfter = 4, 2

// disagree reports whether two sorted slot lists give a figure for the same
// words and no figure in common there.
func disagree(a, b []figureSlot) bool {
	for i := 0; i < len(a); {
		ctx := a[i].context
		j := i
		for j < len(a) && a[j].context == ctx {
			j++
		}
		lo, _ := slices.BinarySearchFunc(b, ctx, func(s figureSlot, c string) int { return strings.Compare(s.context, c) })
		hi := lo
		for hi < len(b) && b[hi].context == ctx {
			hi++
		}
		if hi > lo && !shareFigure(a[i:j], b[lo:hi]) {
			return true
		}
		i = j
	}
	return false
}

func shareFigure(a, b []figureSlot) bool {
	for _, x := range a {
		for _, y := range b {
			if x.figure == y.figure {
				return true
			}
		}
	}
	return false
}

var figure = regexp.MustCompile(`\d+(?:[.,]\d+)*`)

// figureSlots are the figures a normalised text states, each with its
// context, sorted and distinct; kanji numerals are left to the reader.
func figureSlots(norm string) []figureSlot {
	var out []figureSlot
	for _, m := range figure.FindAllStringIndex(norm, -1) {
		// A copy, not a slice of norm: a node's traits live as long as
		// its manual's snapshot, and norm is its whole prose.
		out = append(out, figureSlot{context: lettersBefore(norm[:m[0]], slotBefore) + "|" + lettersAfter(norm[m[1]:], slotAfter), figure: strings.Clone(norm[m[0]:m[1]])})
	}
	slices.SortFunc(out, func(x, y figureSlot) int {
		return cmp.Or(strings.Compare(x.context, y.context), strings.Compare(x.figure, y.figure))
	})
	return slices.Compact(out)
}

// lettersBefore is the last n letters of s, in order; lettersAfter the
// first n.
func lettersBefore(s string, n int) string {
	var rs []rune
	for len(s) > 0 && len(rs) < n {
		r, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
		if unicode.IsLetter(r) {
			rs = append(rs, r)
		}
	}
	slices.Reverse(rs)
	return string(rs)
}

func lettersAfter(s string, n int) string {
	var rs []rune
	for _, r := range s {
		if len(rs) == n {
			break
		}
		if unicode.IsLetter(r) {
			rs = append(rs, r)
		}
	}
	return string(rs)
}

// proseFigures are the figures of a section's prose: a version history in
// an HTML comment, front matter, code and link definitions state no rule.
func proseFigures(n *db.ManualNode) []figureSlot {
	lines := strings.Split(strings.TrimSuffix(n.Body, "\n"), "\n")
	prose := proseLines(lines, n.Kind == manualfile.KindHeading, n.LineStart == 1)
	var b strings.Builder
	for i, l := range lines {
		if prose[i] {
			b.WriteString(normalize.Normal(l))
			b.WriteByte('\n')
		}
	}
	return figureSlots(b.String())
}

// judge is stage 3.5's verdict over the ranked candidates: the next
// actions, and a warning for each. A warning is given only when it changes
// what a reader of the answer should do: sections never searched, which
// could outrank the candidates (not those past the candidate cap, ranked
// below all of them); a term no section holds, when the best candidate
// lacks most of the terms; two sections that disagree, when both are among
// the candidates the reader sees first.
func (s *stageRun) judge(cands []rankedCandidate) []string {
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
	shown := s.req.Hits
	if shown == 0 {
		shown = DefaultHitsLimit // the first page of manual_hits
	}
	seen := map[string]bool{}
	for _, c := range sum.candidateList[:min(shown, len(sum.candidateList))] {
		seen[c.ManualID+"/"+c.Path+"#"+c.NodeID] = true
	}
	var shownConflicts []string
	for _, k := range slices.Sorted(maps.Keys(sum.conflicts)) {
		if refs := sum.conflicts[k]; seen[refs[0]] && seen[refs[1]] {
			shownConflicts = append(shownConflicts, k)
		}
	}
	if len(shownConflicts) > 0 {
		act(NextAction{Action: ActionConflicts, Tool: "manual_read",
			Reason: fmt.Sprintf("%d headings appear in more than one file with different figures (e.g. %s); read both and check which applies", len(shownConflicts), strings.Join(sum.conflicts[shownConflicts[0]], " and "))})
	}
	var gaps []string
	unmatched := len(sum.gapTerms) > 0 && (len(cands) == 0 || 2*len(cands[0].terms) < len(s.plan.Terms))
	if unmatched {
		gaps = append(gaps, fmt.Sprintf("no section matched %s", quoteAll(sum.gapTerms)))
	}
	noExceptions := s.plan.Intent == queryplan.IntentExceptions && sum.ExceptionHits == 0
	if noExceptions {
		gaps = append(gaps, "no exception wording found near the candidates")
	}
	if sum.Unsearched > 0 {
		gaps = append(gaps, fmt.Sprintf("%d sections were not searched", sum.Unsearched))
	}
	if len(gaps) > 0 {
		// The tool that fills the gap: the sections never searched; the
		// exception clauses; else a word the manual does not use, which
		// only the manual's own word for it finds (manual_excepts, once
		// proposed for every gap, has nothing to say about a missing word).
		a := NextAction{Action: ActionFillGaps, Reason: strings.Join(gaps, "; ")}
		switch {
		case sum.Unsearched > 0:
			a.Tool = "manual_find"
			a.Arguments = map[string]any{"only_unscanned_from_trace_id": ""}
		case noExceptions:
			a.Tool = "manual_excepts"
		default: // unmatched
			a.Tool = "manual_find"
			a.Reason += ": search again with the manual's own words for them in also"
		}
		act(a)
	}
	// Most candidates in one file is worth a look at the others only when
	// the hits a reader sees all come from that file (hits from several
	// files already show the others), and the file is not what the query
	// names: a question about an HTTP server rightly finds most in
	// http.md.
	if shownHits := sum.candidateList[:min(shown, len(sum.candidateList))]; sum.Candidates >= 5 && sum.TopFileShare >= th.FileBias && s.severalFiles() &&
		oneFile(shownHits) && !s.namesFile(shownHits[0].Path) {
		act(NextAction{Action: ActionReduceFileBias, Tool: "manual_ls",
			Reason: fmt.Sprintf("%.0f%% of candidates sit in one file; check the other files of the manual", sum.TopFileShare*100)})
	}
	if len(sum.NextActions) == 0 {
		sum.NextActions = append(sum.NextActions, NextAction{Action: ActionCompleted, Tool: "manual_hits",
			Reason: fmt.Sprintf("%d candidates in %d files; page them with manual_hits and read with manual_read", sum.Candidates, sum.Files)})
	}
	return warn
}

// namesFile reports whether a term of the query names the manual file p:
// is its name (without folder and extension; "child process" names
// child_process.md), one of its words ("http" names http.md), or, in
// Japanese, part of it (解約 names 中途解約の手続き.md).
func (s *stageRun) namesFile(p string) bool {
	base := path.Base(p)
	base = strings.TrimSuffix(base, path.Ext(base))
	name := s.loose(base)
	words := strings.FieldsFunc(s.normal(base), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, t := range s.plan.Terms {
		lt := s.loose(t)
		if lt == "" {
			continue
		}
		if lt == name || slices.Contains(words, s.normal(t)) {
			return true
		}
		if lt[0] >= utf8.RuneSelf && utf8.RuneCountInString(lt) >= 2 && strings.Contains(name, lt) {
			return true
		}
	}
	return false
}

// oneFile reports whether the candidates all come from one file.
func oneFile(cs []Candidate) bool {
	for _, c := range cs {
		if c.ManualID != cs[0].ManualID || c.Path != cs[0].Path {
			return false
		}
	}
	return true
}

// severalFiles reports whether the nodes searched come from more than one
// file.
func (s *stageRun) severalFiles() bool {
	for _, n := range s.nodes {
		if n.manual != s.nodes[0].manual || n.Path != s.nodes[0].Path {
			return true
		}
	}
	return false
}

func quoteAll(ts []string) string {
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(q, ", ")
}

// snippetLinesRead bounds the prose lines read for a better snippet after
// the first that holds a matched form.
const snippetLinesRead = 60

// candidate renders a found node with its snippet: the line of its own
// prose holding the most of its matched terms (with best; else the first
// holding one), else its first line of text. With second (the first hit
// shown), a second sentence follows when another line holds terms the
// first lacks: "keep-alive timeout … **Default:** `5000`" answers a
// question about a default without a manual_read.
func (s *stageRun) candidate(c *found, score float64, best, second bool) Candidate {
	n := c.n
	out := Candidate{Ref: manual.FormatRef(n.manual, n.Path, n.NodeID), ManualID: n.manual, Path: n.Path, NodeID: n.NodeID, Title: n.Title,
		LineStart: n.LineStart, LineEnd: n.LineEnd, Score: score, Exception: n.hasExc}
	for i, st := range stageList {
		if c.stages&(1<<i) != 0 {
			out.Stages = append(out.Stages, st)
		}
	}
	for _, t := range s.plan.Terms {
		if c.term(t) != nil {
			out.Matched = append(out.Matched, t)
		}
	}
	// Every form of each term: the synonym or variant that matched it, the
	// term, and the term's other forms.
	type termForms struct {
		weight       float64 // the term's idf: a rare term says more
		forms, loose []string
		asksValue    bool // a word asking for a value (valueWords)
	}
	var terms []termForms
	for _, t := range out.Matched {
		tf := termForms{weight: cmp.Or(s.idf[t], 1), asksValue: valueWords[s.normal(t)]}
		if via := c.term(t).via; via != "" {
			tf.forms = append(tf.forms, via)
		}
		tf.forms = append(tf.forms, s.normal(t))
		for _, nd := range s.needles[t] {
			tf.forms = append(tf.forms, nd.text)
		}
		terms = append(terms, tf)
	}
	if c.n.hasExc && len(terms) == 0 {
		terms = append(terms, termForms{weight: 1, forms: s.excTerms})
	}
	anyForm := false
	for i := range terms {
		for _, f := range terms[i].forms {
			if lf := s.loose(f); utf8.RuneCountInString(lf) >= 2 {
				terms[i].loose = append(terms[i].loose, lf)
			}
		}
		anyForm = anyForm || containsAny(n.Norm, terms[i].forms) || containsAny(n.Loose, terms[i].loose)
	}
	if !anyForm {
		// No line can hold a form the whole text lacks: the first line
		// will do, and no line needs normalising.
		terms = nil
	}
	lines := strings.Split(strings.TrimSuffix(n.Body, "\n"), "\n")
	kinds := lineKinds(lines, n.Kind == manualfile.KindHeading, n.LineStart == 1)
	prose := proseOf(kinds)
	// The snippet is the prose line holding the most of the terms, the
	// rarer counting more ("recursive" over "path"), the first of equals;
	// the lines after the first holding one are read up to a bound, for a
	// section of thousands of lines.
	first, anyLine, most, read := -1, -1, 0.0, 0
	all := 0.0
	for _, tf := range terms {
		all += tf.weight
	}
	// With second, which terms each line read holds (the first 64 terms).
	type lineHeld struct {
		line int
		mask uint64
	}
	var held []lineHeld
	var firstMask uint64
	for i, l := range lines {
		if strings.TrimSpace(l) == "" || i == 0 && n.Kind == manualfile.KindHeading {
			continue
		}
		if anyLine < 0 && kinds[i] != lineMarkup {
			anyLine = i
		}
		if !prose[i] {
			continue
		}
		if first < 0 {
			first = i
		}
		if len(terms) == 0 {
			break
		}
		if most > 0 {
			if read++; !best || read > snippetLinesRead {
				break
			}
		}
		// The loose form only when a term's forms are not in the normal
		// one: most lines settle on the normal text alone.
		norm, loose := normalize.Normal(l), ""
		weight, mask := 0.0, uint64(0)
		for k, tf := range terms {
			hit := containsAny(norm, tf.forms)
			if !hit && len(tf.loose) > 0 {
				if loose == "" {
					loose = normalize.Loose(l)
				}
				hit = containsAny(loose, tf.loose)
			}
			if hit {
				weight += tf.weight
				if k < 64 {
					mask |= 1 << k
				}
			}
		}
		if second && mask != 0 {
			held = append(held, lineHeld{i, mask})
		}
		if weight > most {
			first, most, firstMask = i, weight, mask
			if weight == all {
				break // no line holds more
			}
		}
	}
	if first < 0 {
		first = anyLine // a section of code alone; of markup alone, none
	}
	if first >= 0 && second {
		if text, from, ok := shortProse(lines, prose); ok {
			out.Snippet, out.SnippetLine = text, n.LineStart+from
			return out
		}
	}
	if first >= 0 {
		start, end, text := sentenceSpan(lines, prose, first)
		out.Snippet = cutRunes(text, sentenceRunes)
		out.SnippetLine = n.LineStart + start
		// The line holding the most of what the first sentence and the
		// title (shown beside it) lack, in another sentence. A word asking
		// for a value ("by default") weighs as the rarest term: the answer
		// is the line stating it, however common the word is.
		shown, rarest := firstMask, 0.0
		for _, h := range held {
			if h.line >= start && h.line <= end {
				shown |= h.mask // the first sentence's other lines
			}
		}
		if len(held) > 0 {
			title := s.normal(n.Title)
			for k := range min(len(terms), 64) {
				rarest = max(rarest, terms[k].weight)
				if containsAny(title, terms[k].forms) {
					shown |= 1 << k
				}
			}
		}
		more, next := 0.0, -1
		for _, h := range held {
			if h.line >= start && h.line <= end {
				continue // in the first sentence
			}
			w := 0.0
			for k := range min(len(terms), 64) {
				if h.mask&^shown&(1<<k) != 0 {
					w += terms[k].weight
					if terms[k].asksValue {
						w += rarest
					}
				}
			}
			// Of equals, the nearest after it: "**Default:** `1024 * 1024`"
			// ends the list item the first sentence is about, where the
			// section's other defaults are its other items'.
			if w > 0 && (w > more || w == more && after(h.line, first) < after(next, first)) {
				if s2, e2, _ := sentenceSpan(lines, prose, h.line); e2 < start || s2 > end {
					more, next = w, h.line
				}
			}
		}
		if next >= 0 {
			// Its line, as the first's is given: "… line 202:" says where
			// it stands, not only that it stands apart.
			start2, text2 := sentenceAround(lines, prose, next)
			out.Snippet += fmt.Sprintf(" … line %d: %s", n.LineStart+start2, cutRunes(strings.TrimPrefix(text2, "…"), snippetRunes))
		}
	}
	if out.Snippet == "" && len(n.kids) > 0 {
		// A heading with no line of its own (its subsections hold it all)
		// showed nothing: what it holds lets the reader pick a subsection
		// without a manual_toc.
		titles := make([]string, len(n.kids))
		for i, k := range n.kids {
			titles[i] = k.Title
		}
		out.Snippet = cutRunes("sections: "+strings.Join(titles, "; "), snippetRunes)
		out.SnippetLine = n.kids[0].LineStart
	}
	return out
}

// sentenceRunes bounds a snippet widened to its sentence, and
// maxSentenceLines how far from its line a sentence is followed.
const (
	sentenceRunes    = 2 * snippetRunes
	maxSentenceLines = 6
)

// sentenceAround is line i widened to the sentence it is part of, within
// its paragraph or list item and its prose: the lines before it while the
// one before does not end a sentence, the lines after while it does not
// ("processing, the Writable destination is not closed automatically. If
// an" is read from "If the Readable stream emits an error during" on). A
// sentence longer than sentenceRunes keeps line i's part: the lines before
// go first, and the text then starts with "…". A quotation's markers ("> ")
// are not text. Returns the first line's index and the text.
func sentenceAround(lines []string, prose []bool, i int) (int, string) {
	start, _, text := sentenceSpan(lines, prose, i)
	return start, text
}

// sentenceSpan is sentenceAround with the index of the sentence's last line.
func sentenceSpan(lines []string, prose []bool, i int) (int, int, string) {
	line := func(k int) string { return unquote(strings.TrimSpace(lines[k])) }
	if !prose[i] {
		return i, i, line(i)
	}
	// The paragraph is bounded by blank lines; a sentence is not looked
	// for further than a few lines off.
	lo, hi := i, i+1
	for lo > 0 && i-lo < maxSentenceLines && strings.TrimSpace(lines[lo-1]) != "" {
		lo--
	}
	for hi < len(lines) && hi-i < maxSentenceLines && strings.TrimSpace(lines[hi]) != "" {
		hi++
	}
	start, end := i, i
	for start > lo && prose[start-1] && !endsSentence(line(start-1)) && !listItem.MatchString(lines[start]) {
		start--
	}
	for end+1 < hi && prose[end+1] && !endsSentence(line(end)) && !listItem.MatchString(lines[end+1]) {
		end++
	}
	// Lines join with a space, except between two wide characters:
	// Japanese breaks a line anywhere and puts no space between words.
	join := func(a, b int) string {
		var sb strings.Builder
		for k := a; k <= b; k++ {
			joinLine(&sb, line(k))
		}
		return sb.String()
	}
	from := start
	for start < i && utf8.RuneCountInString(join(start, end)) > sentenceRunes {
		start++
	}
	if start > from {
		return start, end, "…" + join(start, end)
	}
	return start, end, join(start, end)
}

// joinLine adds a line to a text: with a space, except between two wide
// characters (Japanese breaks a line anywhere and puts no space between
// words).
func joinLine(sb *strings.Builder, l string) {
	if sb.Len() > 0 {
		prev, _ := utf8.DecodeLastRuneInString(sb.String())
		next, _ := utf8.DecodeRuneInString(l)
		if prev <= unicode.MaxASCII || next <= unicode.MaxASCII {
			sb.WriteByte(' ')
		}
	}
	sb.WriteString(l)
}

// shortProse is a section's whole prose, its lines joined, when it is at
// most shortProseRunes long: the first hit shows a short section whole
// rather than two of its sentences. What the prose leaves out is marked
// where it stood (" [code] " for a fenced block), and two paragraphs whose
// first does not end a sentence are parted with " ¶ ": joined bare, "…a
// loop: Alternatively, one could…" hid the example the colon introduced,
// and "* Returns: {Timeout} a reference to `timeout` Sets the timer's…"
// ran a list item into the next paragraph. Returns the index of its first
// line too.
func shortProse(lines []string, prose []bool) (string, int, bool) {
	var sb strings.Builder
	from := -1
	mark, para := "", false // what was left out since the last prose line; a blank line since
	for k, l := range lines {
		t := strings.TrimSpace(l)
		if !prose[k] {
			switch {
			case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
				mark = "[code]"
			case t == "":
				para = true
			}
			continue
		}
		if t = unquote(t); t == "" {
			continue
		}
		if from < 0 {
			from, mark, para = k, "", false
		}
		switch {
		case mark != "":
			joinLine(&sb, mark)
		case para && !endsSentence(sb.String()):
			joinLine(&sb, "¶")
		}
		mark, para = "", false
		joinLine(&sb, t)
		if utf8.RuneCountInString(sb.String()) > shortProseRunes {
			return "", 0, false
		}
	}
	if mark != "" && from >= 0 {
		joinLine(&sb, mark)
	}
	return sb.String(), from, from >= 0
}

// shortProseRunes is the longest prose shortProse shows whole: about what
// two sentences of a longer section take.
const shortProseRunes = sentenceRunes + snippetRunes

// unquote is a line without its block quotation markers ("> > text").
func unquote(l string) string {
	for strings.HasPrefix(l, ">") {
		l = strings.TrimSpace(l[1:])
	}
	return l
}

// endsSentence reports whether a line ends a sentence: a full stop, a
// question or exclamation mark, a colon (a list or a block follows), in
// ASCII or full width, maybe inside closing quotes or brackets.
func endsSentence(l string) bool {
	l = strings.TrimRight(l, "*_`\"')]）」』")
	r, _ := utf8.DecodeLastRuneInString(l)
	return strings.ContainsRune(".!?:。！？：", r)
}

// linkDefinition is a Markdown link reference definition ("[`fs.stat()`]:
// fs.md#fsstat"): the targets of a page's links, usually listed at its end.
var linkDefinition = regexp.MustCompile(`^\[[^\]]+\]:\s*\S`)

// htmlBlockTag is a line opening or closing an HTML block (CommonMark's
// block tags: a table and its rows and cells, lists, div, details …): the
// markup of a table such as Node.js's crypto constants, not prose to quote.
var htmlBlockTag = regexp.MustCompile(`(?i)^</?(table|thead|tbody|tfoot|caption|colgroup|col|tr|td|th|div|p|ul|ol|li|dl|dt|dd|pre|details|summary|section|figure|figcaption|center|br|hr|img)[\s/>]`)

// lineKind is what a line of a section's text is to a reader.
type lineKind uint8

const (
	lineOther  lineKind = iota // blank, the heading, code: no prose, yet code may be shown
	lineProse                  // prose: what a snippet quotes
	lineMarkup                 // markup only: worth no reader's eye, even with no prose around
)

// proseLines marks the lines of a section's text that are its prose
// (lineKinds).
func proseLines(lines []string, heading, fileStart bool) []bool {
	return proseOf(lineKinds(lines, heading, fileStart))
}

// proseOf marks the prose of kinds.
func proseOf(kinds []lineKind) []bool {
	out := make([]bool, len(kinds))
	for i, k := range kinds {
		out[i] = k == lineProse
	}
	return out
}

// lineKinds tells the prose of a section's text from the rest. Markup is
// a link definition, an HTML comment (a version history such as Node.js's
// <!-- YAML changes: … -->, a source link, <!--type=misc-->, every line of
// it), front matter, a table's rule and a line of an HTML block's markup
// (htmlBlockTag); a fenced code block is neither prose nor markup. A
// snippet is the first prose line holding a matched form: what answers,
// not the metadata around it. heading says the first line is the
// section's heading; fileStart that the section starts the file, where
// front matter may stand.
func lineKinds(lines []string, heading, fileStart bool) []lineKind {
	out := make([]lineKind, len(lines))
	inComment, fence := false, ""
	start := 0
	if heading {
		start = 1
	}
	if fileStart && len(lines) > start && strings.TrimSpace(lines[start]) == "---" {
		for i := start + 1; i < len(lines); i++ {
			if t := strings.TrimSpace(lines[i]); t == "---" || t == "..." {
				for j := start; j <= i; j++ {
					out[j] = lineMarkup
				}
				start = i + 1
				break
			}
		}
	}
	for i := start; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		case inComment:
			inComment = !strings.Contains(t, "-->")
			out[i] = lineMarkup
			continue
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
			continue
		case strings.HasPrefix(t, "<!--"):
			inComment = !strings.Contains(t[4:], "-->")
			out[i] = lineMarkup
			continue
		case t == "":
			continue
		case strings.Trim(t, "|-: ") == "", linkDefinition.MatchString(t), htmlBlockTag.MatchString(t):
			out[i] = lineMarkup
			continue
		}
		out[i] = lineProse
	}
	return out
}

// normal and loose are normalize.Normal and normalize.Loose, kept for the
// search: every candidate's snippet looks for the same few forms.
func (s *stageRun) normal(t string) string { return memo(&s.normals, t, normalize.Normal) }
func (s *stageRun) loose(t string) string  { return memo(&s.looses, t, normalize.Loose) }

func memo(m *map[string]string, k string, fn func(string) string) string {
	if v, ok := (*m)[k]; ok {
		return v
	}
	if *m == nil {
		*m = map[string]string{}
	}
	v := fn(k)
	(*m)[k] = v
	return v
}

func stageOrder(st string) int {
	return slices.Index(stageList, st)
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// after is how far line is from first, lines after it coming before any
// line before it.
func after(line, first int) int {
	if line > first {
		return line - first
	}
	return first - line + 1<<20
}

// valueWords ask for a value a manual states on a line of its own
// ("**Default:** `5000`", "既定値: 30日"): the first hit's second sentence
// looks for it.
var valueWords = map[string]bool{"default": true, "defaults": true, "デフォルト": true, "既定": true, "既定値": true, "初期値": true}
