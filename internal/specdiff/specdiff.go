// Package specdiff computes what changed between two stored versions of one
// specification document: which sections were added, removed, renamed or
// changed, and for a changed text, which sentences changed and how, word by
// word.
//
// Sections are matched in three passes, each section at most once: by
// anchor; then, among the rest, by title when the texts are at least half
// alike; then by text alone when the texts are nearly the same (see
// Compare). Text is compared by its word bigrams (similarity.go), sentences
// and words by a minimal diff (myers.go), with bounds that keep a 50 KB
// section cheap however much it changed (Options).
package specdiff

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/langspec/langspec/internal/db"
)

// Kinds of Item and of SentenceChange.
const (
	KindAdded   = "added"
	KindRemoved = "removed"
	KindRenamed = "renamed" // Item only
	KindChanged = "changed"
	KindMoved   = "moved" // SentenceChange only: the sentence left another section for this one
)

// The bounds Options falls back to. 400 sentences is more than any section
// of the Go spec has (123 at most) and than all but one of the Rust
// Reference (its test summary table has 462 lines), and the bound applies
// only to what lies between the first and the last changed sentence; 2,000
// words is far beyond any sentence, reached only by a text without
// sentence ends.
const (
	DefaultMaxSentences = 400
	DefaultMaxWords     = 2000
)

// The matching thresholds (Compare).
const (
	// sameTitleSimilarity: under the same title, a section whose anchor
	// changed keeps at least half its text; less, and it is more likely a
	// new section that reuses a common title ("Examples").
	sameTitleSimilarity = 0.5
	// sameTextSimilarity: under a new title and anchor, only nearly the
	// same text says it is the same section.
	sameTextSimilarity = 0.8
	// minWordsForTextMatch: shorter texts ("Syntax", an empty chapter
	// heading) are alike in too many sections to identify one.
	minWordsForTextMatch = 8
)

// Options bounds the work of a sentence diff. Zero fields mean the
// defaults.
type Options struct {
	MaxSentences int `json:"max_sentences,omitempty" jsonschema:"most sentences per side of a section that go through the sentence diff (default 400)"`
	MaxWords     int `json:"max_words,omitempty" jsonschema:"most words per side of a sentence pair that go through the word diff (default 2000)"`
}

func (o Options) withDefaults() Options {
	if o.MaxSentences <= 0 {
		o.MaxSentences = DefaultMaxSentences
	}
	if o.MaxWords <= 0 {
		o.MaxWords = DefaultMaxWords
	}
	return o
}

// Diff is what changed between two versions of a document.
type Diff struct {
	Summary Summary `json:"summary" jsonschema:"counts of what changed, overall and per top-level chapter"`
	// Items are in the new version's document order; a removed section
	// comes right after the new place of the nearest section before it
	// in the old version that is in both.
	Items []Item `json:"items" jsonschema:"every section that is not unchanged, in the new version's document order; removed ones where they stood"`
}

// Unchanged reports whether the two versions have the same sections with
// the same titles and texts.
func (d Diff) Unchanged() bool { return len(d.Items) == 0 }

// Summary counts the sections of a Diff by what happened to them.
type Summary struct {
	Added     int       `json:"added" jsonschema:"sections only in the new version"`
	Removed   int       `json:"removed" jsonschema:"sections only in the old version"`
	Renamed   int       `json:"renamed" jsonschema:"sections with a new title or anchor, whether or not their text changed"`
	Changed   int       `json:"changed" jsonschema:"sections with the same title and anchor and a new text"`
	Unchanged int       `json:"unchanged" jsonschema:"sections with the same anchor, title and text"`
	Chapters  []Chapter `json:"chapters" jsonschema:"per top-level chapter with at least one change, in document order"`
	// Classes counts the sections by what the change means (Item.Class).
	Classes map[string]int `json:"classes,omitempty" jsonschema:"sections by class: rule, example, moved, editorial"`
}

// Chapter counts the changes under one top-level section.
type Chapter struct {
	ID      string `json:"id" jsonschema:"section id of the top-level chapter"`
	Title   string `json:"title" jsonschema:"title of the chapter"`
	Added   int    `json:"added,omitempty" jsonschema:"sections added under it"`
	Removed int    `json:"removed,omitempty" jsonschema:"sections removed from under it"`
	Renamed int    `json:"renamed,omitempty" jsonschema:"sections renamed under it"`
	Changed int    `json:"changed,omitempty" jsonschema:"sections whose text changed under it"`
	// Editorial counts those of them whose change is editorial only, so
	// that a page can list them last and still say where they are.
	Editorial int `json:"editorial,omitempty" jsonschema:"of those, sections whose change is editorial only"`
}

// Item is one section that is not unchanged.
type Item struct {
	Kind        string           `json:"kind" jsonschema:"added, removed, renamed (new title or anchor; text_changed says whether the text changed too) or changed (same title and anchor, new text)"`
	Old         *Ref             `json:"old,omitempty" jsonschema:"the section in the old version; absent when added"`
	New         *Ref             `json:"new,omitempty" jsonschema:"the section in the new version; absent when removed"`
	Chapter     string           `json:"chapter" jsonschema:"id of the top-level chapter it is under (in the old version when removed)"`
	Similarity  float64          `json:"similarity" jsonschema:"how alike the old and new texts are, 0 to 1 (shared word pairs); 0 when added or removed"`
	TextChanged bool             `json:"text_changed" jsonschema:"true when the text differs beyond white space"`
	Sentences   []SentenceChange `json:"sentences,omitempty" jsonschema:"the sentences that differ, in order, when the text changed; an added or removed section's sentences"`
	Truncated   bool             `json:"truncated,omitempty" jsonschema:"true when the text was too long to compare whole: sentences lists the changes found within the bounds"`
	// Class is what the change means (classify.go): the most substantial
	// class among its sentences.
	Class string `json:"class" jsonschema:"rule, example, moved or editorial"`
	// MovedOut counts the sentences that left this section for another,
	// which lists them (as KindMoved); they are not listed here as removed.
	MovedOut []MovedOut `json:"moved_out,omitempty" jsonschema:"sentences that left this section, by the section they went to"`
}

// MovedOut is a group of sentences that left a section for another one.
type MovedOut struct {
	To        string `json:"to" jsonschema:"section id they went to, in the new version"`
	Title     string `json:"title" jsonschema:"its title"`
	Sentences int    `json:"sentences" jsonschema:"how many"`
}

// Ref names a section in one version.
type Ref struct {
	SectionID string `json:"section_id" jsonschema:"the section's anchor"`
	Title     string `json:"title" jsonschema:"the section's heading"`
	Path      string `json:"path" jsonschema:"headings from the top, joined by ' > '"`
	URL       string `json:"url" jsonschema:"citation URL"`
	Version   string `json:"version" jsonschema:"the version this is from"`
}

// SentenceChange is one sentence removed, added or reworded.
type SentenceChange struct {
	Kind  string `json:"kind" jsonschema:"changed (reworded: both sides and marked), removed (old only), added (new only) or moved (new only; from names where it was)"`
	Class string `json:"class" jsonschema:"rule, example, moved or editorial"`
	Old   string `json:"old,omitempty" jsonschema:"the sentence in the old version"`
	New   string `json:"new,omitempty" jsonschema:"the sentence in the new version"`
	// From is, for a moved sentence, the section of the old version it
	// stood in.
	From string `json:"from,omitempty" jsonschema:"moved: the id of the section it left, in the old version"`
	// Marked is the word diff in the style of git diff --word-diff=plain;
	// Escape describes how text holding the marks is escaped.
	Marked string `json:"marked,omitempty" jsonschema:"for changed: the sentence with removed words as [-old-] and added ones as {+new+}; a backslash makes the next character literal"`
}

// Compare matches the sections of two versions of one document (each in
// document order, with unique ids) and lists what changed. Each section is
// matched at most once, in this order:
//
//  1. The same SectionID: the same section. It is renamed when its title
//     differs beyond case, white space and punctuation, and changed when
//     its text differs beyond white space.
//  2. Among the rest, the same title (so compared) and texts at least
//     sameTitleSimilarity alike: the same section under a new anchor,
//     renamed.
//  3. Among the rest with at least minWordsForTextMatch words, texts at
//     least sameTextSimilarity alike, the most alike pairs first (ties in
//     document order): the same text under a new title and anchor, renamed.
//  4. The old sections left are removed, the new ones added.
//
// Changed texts, renamed ones included, get their changed sentences
// (diffSentences), within opts' bounds.
//
// Errors: ctx.Err() once ctx ends. Comparing two large versions that share
// little takes a second or more, so the passes look at ctx every
// checkEvery sections and a cancelled comparison stops within a few
// milliseconds.
func Compare(ctx context.Context, oldVersion, newVersion []db.SectionRow, opts Options) (Diff, error) {
	c := newComparison(oldVersion, newVersion)
	c.matchByID()
	c.matchByTitle(ctx)
	c.matchByText(ctx)
	if err := ctx.Err(); err != nil {
		return Diff{}, err // the matching may have stopped half way
	}
	d := c.diff(ctx, opts.withDefaults())
	if err := ctx.Err(); err != nil {
		return Diff{}, err
	}
	markMoved(d.Items)
	d.Summary.Classes = map[string]int{}
	for i := range d.Items {
		it := &d.Items[i]
		it.Class = itemClass(it)
		d.Summary.Classes[it.Class]++
		if it.Class == ClassEditorial {
			for k := range d.Summary.Chapters {
				if d.Summary.Chapters[k].ID == it.Chapter {
					d.Summary.Chapters[k].Editorial++
				}
			}
		}
	}
	return d, nil
}

// checkEvery is how many sections a pass of Compare handles between looks
// at its context.
const checkEvery = 64

// section is one side's section as the matching sees it.
type section struct {
	row   *db.SectionRow
	title string   // normTitle
	bag   []uint64 // shingles, once needed
	words int
	ready bool // bag and words are computed
	match int  // index of the matched section on the other side, -1 when none
	sim   float64
}

func (s *section) shingles() {
	if !s.ready {
		s.bag, s.words = shingles(s.row.Text)
		s.ready = true
	}
}

type comparison struct {
	old, new []section
}

func newComparison(oldRows, newRows []db.SectionRow) *comparison {
	side := func(rows []db.SectionRow) []section {
		secs := make([]section, len(rows))
		for i := range rows {
			secs[i] = section{row: &rows[i], title: normTitle(rows[i].Title), match: -1}
		}
		return secs
	}
	return &comparison{old: side(oldRows), new: side(newRows)}
}

func (c *comparison) link(o, n int, sim float64) {
	c.old[o].match, c.new[n].match = n, o
	c.old[o].sim, c.new[n].sim = sim, sim
}

func (c *comparison) matchByID() {
	byID := make(map[string]int, len(c.new))
	for n := range c.new {
		if _, dup := byID[c.new[n].row.SectionID]; !dup {
			byID[c.new[n].row.SectionID] = n
		}
	}
	for o := range c.old {
		if n, ok := byID[c.old[o].row.SectionID]; ok && c.new[n].match < 0 {
			c.link(o, n, -1) // the similarity is computed if needed (diff)
		}
	}
}

// unmatched lists the unmatched sections of one side that keep holds for,
// their shingles computed; none once ctx has ended.
func unmatched(ctx context.Context, secs []section, keep func(*section) bool) []int {
	var out []int
	for i := range secs {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil
		}
		if s := &secs[i]; s.match < 0 && keep(s) {
			s.shingles()
			out = append(out, i)
		}
	}
	return out
}

func (c *comparison) matchByTitle(ctx context.Context) {
	// Only titles found on both sides can match: most sections are left
	// out before their shingles are computed.
	oldTitles := map[string]bool{}
	for i := range c.old {
		if c.old[i].match < 0 {
			oldTitles[c.old[i].title] = true
		}
	}
	bothTitles := map[string]bool{}
	for i := range c.new {
		if t := c.new[i].title; c.new[i].match < 0 && t != "" && oldTitles[t] {
			bothTitles[t] = true
		}
	}
	titled := func(s *section) bool { return bothTitles[s.title] }
	olds, news := unmatched(ctx, c.old, titled), unmatched(ctx, c.new, titled)
	if len(olds) == 0 || len(news) == 0 {
		return
	}
	// Texts without words have no shingles for similarPairs to meet on;
	// two of them under one title are alike (both empty: similarity 1),
	// and the greedy pick would pair them in document order, so they are
	// paired so directly: the k-th of the old side with the k-th of the new.
	var cands []candidate
	emptyOld := map[string][]int{}
	for _, o := range olds {
		if c.old[o].words == 0 {
			emptyOld[c.old[o].title] = append(emptyOld[c.old[o].title], o)
		}
	}
	for _, n := range news {
		if t := c.new[n].title; c.new[n].words == 0 && len(emptyOld[t]) > 0 {
			cands = append(cands, candidate{emptyOld[t][0], n, 1})
			emptyOld[t] = emptyOld[t][1:]
		}
	}
	sameTitle := func(o, n int) bool { return c.old[o].title == c.new[n].title }
	cands = append(cands, similarPairs(ctx, c.old, c.new, olds, news, sameTitleSimilarity, sameTitle)...)
	c.pickGreedily(cands)
}

func (c *comparison) matchByText(ctx context.Context) {
	long := func(s *section) bool {
		s.shingles()
		return s.words >= minWordsForTextMatch
	}
	olds, news := unmatched(ctx, c.old, long), unmatched(ctx, c.new, long)
	if len(olds) == 0 || len(news) == 0 {
		return
	}
	anyPair := func(int, int) bool { return true }
	c.pickGreedily(similarPairs(ctx, c.old, c.new, olds, news, sameTextSimilarity, anyPair))
}

// pickGreedily links candidates, the most similar first, ties in the new
// version's document order and then the old one's, skipping sections
// already linked.
func (c *comparison) pickGreedily(cands []candidate) {
	slices.SortFunc(cands, func(x, y candidate) int {
		if r := cmp.Compare(y.sim, x.sim); r != 0 {
			return r
		}
		if r := cmp.Compare(x.new, y.new); r != 0 {
			return r
		}
		return cmp.Compare(x.old, y.old)
	})
	for _, p := range cands {
		if c.old[p.old].match < 0 && c.new[p.new].match < 0 {
			c.link(p.old, p.new, p.sim)
		}
	}
}

// diff builds the Diff from the matching; it stops, its Diff partial, once
// ctx has ended.
func (c *comparison) diff(ctx context.Context, opts Options) Diff {
	oldTree, newTree := buildTree(c.old), buildTree(c.new)
	// Removed sections go after the new place of the nearest matched
	// section before them in the old version; those before any go first.
	var leading []int
	after := map[int][]int{}
	prev := -1
	for o := range c.old {
		switch {
		case c.old[o].match >= 0:
			prev = c.old[o].match
		case prev < 0:
			leading = append(leading, o)
		default:
			after[prev] = append(after[prev], o)
		}
	}

	d := Diff{Items: []Item{}, Summary: Summary{Chapters: []Chapter{}}}
	chapters := map[string]int{} // chapter id → index in d.Summary.Chapters
	add := func(it Item, chapter *db.SectionRow) {
		it.Chapter = chapter.SectionID
		k, ok := chapters[it.Chapter]
		if !ok {
			k = len(d.Summary.Chapters)
			chapters[it.Chapter] = k
			d.Summary.Chapters = append(d.Summary.Chapters, Chapter{ID: chapter.SectionID, Title: chapter.Title})
		}
		ch := &d.Summary.Chapters[k]
		switch it.Kind {
		case KindAdded:
			d.Summary.Added++
			ch.Added++
		case KindRemoved:
			d.Summary.Removed++
			ch.Removed++
		case KindRenamed:
			d.Summary.Renamed++
			ch.Renamed++
		case KindChanged:
			d.Summary.Changed++
			ch.Changed++
		}
		d.Items = append(d.Items, it)
	}
	removed := func(o int) {
		it := Item{Kind: KindRemoved, Old: ref(c.old[o].row)}
		for _, s := range splitSentences(c.old[o].row.Text) {
			it.Sentences = append(it.Sentences, SentenceChange{Kind: KindRemoved, Class: classifySentence(s, ""), Old: s})
		}
		add(it, oldTree.chapter(o))
	}

	for _, o := range leading {
		removed(o)
	}
	for n := range c.new {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return d
		}
		ns := &c.new[n]
		if ns.match < 0 {
			it := Item{Kind: KindAdded, New: ref(ns.row)}
			for _, s := range splitSentences(ns.row.Text) {
				it.Sentences = append(it.Sentences, SentenceChange{Kind: KindAdded, Class: classifySentence("", s), New: s})
			}
			add(it, newTree.chapter(n))
		} else if it, changed := c.pair(ns.match, n, opts); changed {
			add(it, newTree.chapter(n))
		} else {
			d.Summary.Unchanged++
		}
		for _, o := range after[n] {
			removed(o)
		}
	}
	return d
}

// pair describes a matched pair; changed is false when it is unchanged.
func (c *comparison) pair(o, n int, opts Options) (it Item, changed bool) {
	oldSec, newSec := &c.old[o], &c.new[n]
	renamed := oldSec.row.SectionID != newSec.row.SectionID || oldSec.title != newSec.title
	textChanged := !equalCollapsed(oldSec.row.Text, newSec.row.Text)
	if !renamed && !textChanged {
		return Item{}, false
	}
	it = Item{Kind: KindChanged, Old: ref(oldSec.row), New: ref(newSec.row), Similarity: newSec.sim, TextChanged: textChanged}
	if renamed {
		it.Kind = KindRenamed
	}
	if it.Similarity < 0 { // matched by id: not measured yet
		it.Similarity = 1
		if textChanged {
			oldSec.shingles()
			newSec.shingles()
			it.Similarity = dice(oldSec.bag, newSec.bag)
		}
	}
	if textChanged {
		it.Sentences, it.Truncated = diffSentences(oldSec.row.Text, newSec.row.Text, opts)
	}
	return it, true
}

func ref(r *db.SectionRow) *Ref {
	return &Ref{SectionID: r.SectionID, Title: r.Title, Path: r.Path, URL: r.URL, Version: r.Version}
}

// tree finds a section's top-level chapter by walking ParentID.
type tree struct {
	secs []section
	byID map[string]int
}

func buildTree(secs []section) tree {
	t := tree{secs: secs, byID: make(map[string]int, len(secs))}
	for i := range secs {
		if _, dup := t.byID[secs[i].row.SectionID]; !dup {
			t.byID[secs[i].row.SectionID] = i
		}
	}
	return t
}

// chapter is the ancestor of section i with no parent: the section itself
// at the top level, and the highest one found when a parent is missing.
func (t tree) chapter(i int) *db.SectionRow {
	// Bounded by the number of sections, in case ParentIDs form a cycle.
	for range t.secs {
		p, ok := t.byID[t.secs[i].row.ParentID]
		if t.secs[i].row.ParentID == "" || !ok {
			break
		}
		i = p
	}
	return t.secs[i].row
}

// normTitle is a title as compared for renames: lower-cased, its words
// (runs of letters and digits) joined by single spaces, so that case,
// spacing and punctuation ("Slice-expressions", "Slice expressions:") do
// not count.
func normTitle(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
