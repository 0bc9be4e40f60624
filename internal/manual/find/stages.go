package find

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/manual/find/queryplan"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/normalize"
)

// stageExact is stage 0: the query's terms through the ranking engine's
// channels (internal/rank) over the headings, the text and the file name.
// Their lists are kept for the one fusion of the search's lists (ranked);
// the sections on them are candidates. The baselines keep plain BM25 so
// the evaluation can compare with it.
func (s *stageRun) stageExact(ctx context.Context) {
	if s.expired() {
		return
	}
	s.ran(StageExact)
	norms := make([]string, len(s.plan.Terms))
	for i, t := range s.plan.Terms {
		norms[i] = normalize.Normal(t)
	}
	for _, manual := range s.manualIDs() {
		lists, err := s.exactCandidates(ctx, manual)
		if err != nil {
			s.storeFailed(StageExact, err)
			return
		}
		for _, l := range lists {
			// Kept by the nodes' positions in the search, and only the
			// sections it took: an only_unscanned scope leaves the rest
			// out of the fusion too.
			kept := l.Postings[:0]
			for _, h := range l.Postings {
				if p := s.position(manual, h.ID); p >= 0 {
					kept = append(kept, rank.Posting{ID: int64(p), Score: h.Score})
				}
			}
			l.Postings = kept
			s.engineLists = append(s.engineLists, l)
			for _, h := range l.Postings {
				n := s.nodes[h.ID]
				s.add(n, StageExact, "", rank.Sighting{}, "")
				for i, t := range s.plan.Terms {
					if strings.Contains(n.Norm, norms[i]) {
						s.add(n, StageExact, t, rank.Sighting{Where: rank.WhereText}, t)
					}
				}
			}
		}
	}
}

// exactCandidates are stage 0's lists for one manual, unfused, their ids
// the nodes' rows: the engine's channels over the manual's MemorySource,
// each at most its depth, or for a baseline its word channel alone (plain
// bm25), at most hardNodeLimit.
func (s *stageRun) exactCandidates(ctx context.Context, manual string) ([]rank.List, error) {
	snap := s.snapshotOf(manual)
	if snap == nil {
		return nil, nil
	}
	src, err := snap.source()
	if err != nil {
		return nil, err
	}
	engine := rank.New(rank.ManualWeights())
	var terms []rank.Term
	switch s.req.Baseline {
	case BaselineBM25:
		q, err := ftsquery.Parse(s.req.Query)
		if err != nil {
			return nil, err
		}
		// BM25 proper scores a bag of words: any of them may match (a
		// phrase's or a hyphenated word's too, each on its own), the stop
		// words left out unless there is nothing else.
		for _, t := range q.WordTerms() {
			toks := rank.NewTerm(t.Text, t.Prefix).Tokens
			for i, tok := range toks {
				terms = append(terms, rank.Term{Text: tok.Folded, Prefix: t.Prefix && i == len(toks)-1, Tokens: []rank.Token{tok}})
			}
		}
	case BaselineBM25Terms:
		for _, t := range s.plan.Terms {
			terms = append(terms, rank.NewTerm(t, false))
		}
	}
	if s.req.Baseline != "" {
		ps, err := engine.Words(ctx, src, terms, hardNodeLimit)
		return []rank.List{{Channel: rank.ChannelWords, Postings: ps}}, err
	}
	q := ftsquery.Query{Raw: s.req.Query}
	for _, t := range s.plan.Terms {
		q.Terms = append(q.Terms, ftsquery.Term{Text: t, Phrase: true})
	}
	if len(q.Terms) == 0 {
		return nil, nil
	}
	res, lists, err := engine.Lists(ctx, src, q)
	if err != nil {
		return nil, err
	}
	for _, c := range res.Corrections {
		if !slices.Contains(s.sum.Corrections, c) {
			s.sum.Corrections = append(s.sum.Corrections, c)
		}
	}
	return lists, nil
}

// snapshotOf is the snapshot of manual the search holds, nil if none.
func (s *stageRun) snapshotOf(manual string) *manualSnapshot {
	for _, g := range s.segs {
		if g.snap.manual == manual {
			return g.snap
		}
	}
	return nil
}

// buildNeedles gathers each term's notation variants and synonyms, and the
// terms' weights: a term few sections hold says more than one most hold.
func (s *stageRun) buildNeedles() {
	s.needles = map[string][]needle{}
	s.sum.expansions = map[string][]string{}
	dict, status, err := s.f.Synonyms.Load()
	if err != nil {
		s.failed(StageSynonym, err)
	}
	s.sum.Dictionary = status
	for _, t := range s.plan.Terms {
		forms := []needle{{text: normalize.Normal(t), loose: normalize.Loose(t), stage: StageNormalized}}
		for _, v := range queryplan.Variants(t) {
			forms = append(forms, needle{text: normalize.Normal(v), loose: normalize.Loose(v), stage: StageNormalized})
			s.sum.expansions[t] = append(s.sum.expansions[t], v)
		}
		// A word stage 0 corrected (none of the manual holds it) is looked
		// for as corrected: the term as the manual would spell it.
		for _, c := range s.sum.Corrections {
			if v := strings.ReplaceAll(t, c.Word, c.To); v != t {
				forms = append(forms, needle{text: normalize.Normal(v), loose: normalize.Loose(v), stage: StageNormalized, corrected: true})
				s.sum.expansions[t] = append(s.sum.expansions[t], v)
			}
		}
		for _, syn := range dict.Expand(t) {
			forms = append(forms, needle{text: normalize.Normal(syn), loose: normalize.Loose(syn), stage: StageSynonym})
			for _, v := range queryplan.Variants(syn) {
				forms = append(forms, needle{text: normalize.Normal(v), loose: normalize.Loose(v), stage: StageNormalized, corrected: true})
			}
			s.sum.expansions[t] = append(s.sum.expansions[t], syn)
		}
		s.needles[t] = forms
	}
	s.idf = map[string]float64{}
	for _, t := range s.plan.Terms {
		holding := newBitset(len(s.nodes)) // the nodes holding any form of t
		for _, nd := range s.needles[t] {
			if nd.text != "" {
				holding.or(s.where(hayNorm, nd.text))
			}
		}
		s.idf[t] = rank.ManualIDF(len(s.nodes), holding.count())
	}
	s.excTerms = exceptionForms()
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
func (s *stageRun) stageSubstrings(stage string, synonyms bool) {
	if s.expired() {
		return
	}
	s.ran(stage)
	loose := stage == StageLoose
	// Each term's forms in order, with the nodes holding each: a node is
	// credited with its first form that it holds.
	type probe struct {
		via string
		in  bitset
		how rank.Sighting
	}
	probes := make([][]probe, len(s.plan.Terms))
	visit := newBitset(len(s.nodes))
	for i, t := range s.plan.Terms {
		for _, nd := range s.needles[t] {
			if (nd.stage == StageSynonym) != synonyms {
				continue
			}
			text, h := nd.text, hayNorm
			if loose || synonyms && utf8.RuneCountInString(nd.loose) >= 2 {
				text, h = nd.loose, hayLoose
			}
			how := rank.Sighting{Where: rank.WhereText, Synonym: nd.stage == StageSynonym, Corrected: nd.corrected, Loose: loose}
			if utf8.RuneCountInString(text) < 2 && !isWordRune(text) {
				continue
			}
			in := s.where(h, text)
			visit.or(in)
			probes[i] = append(probes[i], probe{nd.text, in, how})
		}
	}
	s.scan(stage, visit, func(p int, n *workNode) {
		for i, t := range s.plan.Terms {
			for _, pr := range probes[i] {
				if pr.in.has(p) {
					s.add(n, stage, t, pr.how, pr.via)
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
func (s *stageRun) stageHeadings(ctx context.Context) {
	if s.expired() {
		return
	}
	s.ran(StageHeading)
	// Each term's forms in order, with the nodes whose title holds each
	// (named) and the headings each holds (within): a node is credited
	// with its first form that does either.
	type probe struct {
		named, within bitset
		nd            needle
	}
	probes := make([][]probe, len(s.plan.Terms))
	visit := newBitset(len(s.nodes))
	for i, t := range s.plan.Terms {
		for _, nd := range s.needles[t] {
			pr := probe{nd: nd}
			if nd.text != "" {
				pr.named = s.where(hayTitle, nd.text)
				visit.or(pr.named)
			}
			// A heading that is part of the term names the thing itself:
			// the glossary's 地震火災費用 for 地震火災費用特約.
			pr.within = s.where(hayTitleIn, nd.loose)
			visit.or(pr.within)
			probes[i] = append(probes[i], pr)
		}
	}
	var heads []*workNode
	visit.each(func(p int) {
		n := s.nodes[p]
		for i, t := range s.plan.Terms {
			for _, pr := range probes[i] {
				if pr.named.has(p) {
					c := s.add(n, StageHeading, t, rank.Sighting{Where: rank.WhereHeading, Synonym: pr.nd.stage == StageSynonym, Corrected: pr.nd.corrected}, pr.nd.text)
					c.named = append(c.named, s.idf[t])
					heads = append(heads, n)
					break
				}
				if pr.within.has(p) {
					s.add(n, StageHeading, t, rank.Sighting{Where: rank.WhereHeadingWithin, Synonym: pr.nd.stage == StageSynonym, Corrected: pr.nd.corrected}, "")
					heads = append(heads, n)
					break
				}
			}
		}
	})
	limit := s.req.MaxCandidates / 2
	added := 0
	var walk func(n *workNode, term string, depth int)
	walk = func(n *workNode, term string, depth int) {
		for _, c := range n.kids {
			if s.foundOf(c) == nil {
				if added >= limit {
					s.addUnscannedBelow(Unscanned{ManualID: c.manual, Path: c.Path, NodeID: c.NodeID, Reason: ReasonStageCap, Stage: StageHeading},
						s.scoreIf(c, StageHeading, term, rank.Sighting{Where: rank.WhereUnderHeading, Depth: depth}))
					continue
				}
				added++
			}
			s.add(c, StageHeading, term, rank.Sighting{Where: rank.WhereUnderHeading, Depth: depth}, "")
			walk(c, term, depth+1)
		}
	}
	for _, h := range heads {
		for _, m := range s.foundOf(h).terms {
			walk(h, m.term, 1)
		}
	}
	// Fuzzy lookup for the terms still without a match.
	matched := map[string]bool{}
	for _, c := range s.foundList {
		for _, m := range c.terms {
			matched[m.term] = true
		}
	}
	for _, t := range s.plan.Terms {
		if matched[t] || utf8.RuneCountInString(normalize.Normal(t)) < 4 {
			continue
		}
		for _, snap := range s.snapshots() {
			hits, err := s.fuzzyHits(ctx, snap, normalize.Normal(t), fuzzyPerTerm)
			if err != nil {
				s.storeFailed(StageHeading, err)
				return
			}
			for _, h := range hits {
				if p := s.position(snap.manual, h.ID); p >= 0 && rank.NearHeading(normalize.Normal(t), s.nodes[p].Norm) {
					s.add(s.nodes[p], StageHeading, t, rank.Sighting{Where: rank.WhereNearHeading}, "")
				}
			}
		}
	}
}

// manualIDs are the manuals of the nodes searched, in their order.
func (s *stageRun) manualIDs() []string {
	var out []string
	for _, g := range s.segs {
		if g.taken > 0 && !slices.Contains(out, g.snap.manual) {
			out = append(out, g.snap.manual)
		}
	}
	return out
}

// snapshots are the snapshots of the nodes searched, one a manual, in
// manualIDs' order.
func (s *stageRun) snapshots() []*manualSnapshot {
	var out []*manualSnapshot
	for _, g := range s.segs {
		if g.taken > 0 && !slices.ContainsFunc(out, func(sn *manualSnapshot) bool { return sn.manual == g.snap.manual }) {
			out = append(out, g.snap)
		}
	}
	return out
}

// stageExceptions is stage 3's exception-vocabulary scan: sections with
// "except", "unless", 対象外, ただし… in the same top-level section as a
// candidate (or, when everywhere is set or the intent is exceptions, in the
// same file). An exception rarely repeats the name of what it limits.
func (s *stageRun) stageExceptions(everywhere bool) {
	if s.expired() {
		return
	}
	stage := StageException
	if everywhere {
		stage = StageWiden
	}
	s.ran(stage)
	roots, files := map[*workNode]bool{}, map[fileRef]bool{}
	for _, c := range s.foundList {
		n := c.n
		if len(c.terms) == 0 {
			continue
		}
		roots[n.root] = true
		files[fileRef{n.manual, n.Path}] = true
	}
	wide := everywhere || s.plan.Intent == queryplan.IntentExceptions
	limit := s.req.MaxCandidates / 2
	added := 0
	s.scan(stage, s.exceptionNodes(), func(_ int, n *workNode) {
		if !n.hasExc {
			return
		}
		if !roots[n.root] && !(wide && files[fileRef{n.manual, n.Path}]) {
			return
		}
		if s.foundOf(n) == nil {
			if added >= limit {
				s.addUnscannedBelow(Unscanned{ManualID: n.manual, Path: n.Path, NodeID: n.NodeID, Reason: ReasonStageCap, Stage: stage},
					s.scoreIf(n, stage, "", rank.Sighting{}))
				return
			}
			added++
		}
		s.add(n, stage, "", rank.Sighting{}, "")
	})
}

// exceptionNodes returns the nodes holding exception vocabulary.
func (s *stageRun) exceptionNodes() bitset {
	if s.excNodes == nil {
		s.excNodes = newBitset(len(s.nodes))
		for i := range s.segs {
			g := &s.segs[i]
			for _, n := range g.snap.nodeTree().exc {
				if p := g.at(n); p >= 0 {
					s.excNodes.set(p)
				}
			}
		}
	}
	return s.excNodes
}

// stage4Reasons is the oversight check of stage 3.5, before the widening: too
// few candidates, candidates piled in one file, or an exceptions question
// with no exception found.
func (s *stageRun) stage4Reasons() []string {
	th := s.sum.Thresholds
	n := len(s.foundList)
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

// fileRef is a file of a manual.
type fileRef struct{ manual, path string }

func (s *stageRun) topFile() (float64, string) {
	per := map[fileRef]int{}
	for _, c := range s.foundList {
		n := c.n
		per[fileRef{n.manual, n.Path}]++
	}
	best, file := 0, ""
	for f, c := range per {
		if c < best {
			continue
		}
		if name := f.manual + "/" + f.path; c > best || name < file {
			best, file = c, name
		}
	}
	if len(s.foundList) == 0 {
		return 0, ""
	}
	return float64(best) / float64(len(s.foundList)), file
}

func (s *stageRun) exceptionHits() int {
	k := 0
	for _, c := range s.foundList {
		n := c.n
		if n.hasExc {
			k++
		}
	}
	return k
}

// stageWiden is stage 4: fragments of the terms (words of a phrase, parts
// of a Japanese compound), the parents of what was found, and exception
// vocabulary across every file with a candidate.
func (s *stageRun) stageWiden() {
	s.ran(StageWiden)
	type frag struct{ term, text, loose string }
	var frags []frag
	for _, t := range s.plan.Terms {
		for _, fr := range queryplan.Fragments(t) {
			frags = append(frags, frag{t, normalize.Normal(fr), normalize.Loose(fr)})
		}
	}
	limit := max(s.req.MaxCandidates/4, 10)
	added := 0
	addCapped := func(n *workNode, term string, how rank.Sighting) {
		if s.foundOf(n) == nil {
			if added >= limit {
				s.addUnscannedBelow(Unscanned{ManualID: n.manual, Path: n.Path, NodeID: n.NodeID, Reason: ReasonStageCap, Stage: StageWiden},
					s.scoreIf(n, StageWiden, term, how))
				return
			}
			added++
		}
		s.add(n, StageWiden, term, how, "")
	}
	type probe struct{ norm, loose bitset }
	probes := make([]probe, len(frags))
	visit := newBitset(len(s.nodes))
	for i, fr := range frags {
		if fr.text == "" {
			continue
		}
		probes[i].norm = s.where(hayNorm, fr.text)
		visit.or(probes[i].norm)
		if fr.loose != "" {
			probes[i].loose = s.where(hayLoose, fr.loose)
			visit.or(probes[i].loose)
		}
	}
	s.scan(StageWiden, visit, func(p int, n *workNode) {
		for i, fr := range frags {
			if fr.text != "" && (probes[i].norm.has(p) || fr.loose != "" && probes[i].loose.has(p)) {
				addCapped(n, fr.term, rank.Sighting{Where: rank.WhereFragment})
				return
			}
		}
	})
	for _, c := range s.foundList {
		n := c.n
		if n.parent != nil && len(c.terms) > 0 && s.foundOf(n.parent) == nil {
			addCapped(n.parent, "", rank.Sighting{})
		}
	}
	s.stageExceptions(true)
}
