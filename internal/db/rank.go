package db

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Filter narrows a search: the versions of Scope, and sections whose path
// starts with PathPrefix (case-insensitive, ASCII).
type Filter struct {
	Scope
	PathPrefix string
}

// Posting is a section a ranking channel matched, with the channel's own
// score (higher is better; comparable only within one channel).
type Posting struct {
	ID    int64 // the section's row id, for Sections
	Score float64
}

// Column weights for bm25 over sections_fts (title, section_path, body,
// anchors): a word in the title says most, a word others use to link to the
// section nearly as much, the path more than the body.
const wordWeights = "10.0, 4.0, 1.0, 6.0"

// Columns of the word index, for the ranking engine's field weights.
const (
	ColumnTitle   = "title"
	ColumnPath    = "section_path"
	ColumnBody    = "body"
	ColumnAnchors = "anchors"
)

// Scoped is a search scope resolved once, so that the channels of one query
// (internal/rank) read the same snapshots without resolving them again.
type Scoped struct {
	d      *DB
	gen    *generation // what the store held when the scope was resolved
	set    snapshotSet
	prefix string
	// rows, when set, is the row id range of the scope's one snapshot: its
	// sections are stored in one transaction and so hold consecutive ids,
	// and FTS5 skips every other row of its indexes on a rowid range
	// instead of scoring them and then dropping them in a join.
	rows *idRange
}

type idRange struct{ lo, hi int64 }

// Scope resolves f for a ranked search. Errors: apperr.NotFound for an
// unknown language or version.
func (d *DB) Scope(ctx context.Context, f Filter) (*Scoped, error) {
	g, err := d.generation(ctx)
	if err != nil {
		return nil, err
	}
	all, err := d.versionsIn(ctx, g, "")
	if err != nil {
		return nil, err
	}
	vs, err := pickSnapshots(all, f.Scope)
	if err != nil {
		return nil, err
	}
	set := newSnapshotSet(vs)
	s := &Scoped{d: d, gen: g, set: set, prefix: f.PathPrefix}
	if len(set.byID) == 1 && f.PathPrefix == "" {
		key := set.key
		r, err := d.ranges.get(key, func() (*idRange, error) {
			for id := range set.byID {
				return d.rowRange(ctx, id)
			}
			return nil, nil
		})
		if err != nil {
			return nil, err
		}
		s.rows = r
	}
	return s, nil
}

// rowRange is the row id range of a snapshot's sections, nil when they are
// not consecutive.
func (d *DB) rowRange(ctx context.Context, snapshotID int64) (*idRange, error) {
	var lo, hi, n sql.NullInt64
	rows, err := d.query(ctx, `SELECT min(id), max(id), count(*) FROM sections WHERE snapshot_id = ?`, snapshotID)
	if err != nil {
		return nil, d.classify(err, "read sections from")
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&lo, &hi, &n); err != nil {
			return nil, d.classify(err, "read sections from")
		}
	}
	if err := rows.Err(); err != nil {
		return nil, d.classify(err, "read sections from")
	}
	if !lo.Valid || hi.Int64-lo.Int64+1 != n.Int64 {
		return nil, nil
	}
	return &idRange{lo.Int64, hi.Int64}, nil
}

// WordColumns are the word index's columns in order, for Words' weights.
func WordColumns() []string { return []string{ColumnTitle, ColumnPath, ColumnBody, ColumnAnchors} }

// Columns are the word index's columns in order (WordColumns).
func (s *Scoped) Columns() []string { return WordColumns() }

// Words runs e against the word index, best first by bm25 with the given
// per-column weights (in WordColumns order; nil for the defaults).
//
// A list of plain words is ranked in Go from the word postings (rankWords),
// with the same answer; everything else goes to FTS5.
func (s *Scoped) Words(ctx context.Context, e ftsquery.Expr, weights []float64, limit int) ([]Posting, error) {
	w := bm25Weights(weights, len(WordColumns()), wordWeights)
	if e.IsZero() || limit <= 0 {
		return nil, nil
	}
	if out, ok, err := s.rankWords(ctx, e, w, limit); ok || err != nil {
		return out, err
	}
	return s.match(ctx, "sections_fts", w, e, limit)
}

// bm25Weights writes weights as bm25's arguments, or returns def unless
// there is one weight per column. The text is built from numbers only.
func bm25Weights(weights []float64, columns int, def string) string {
	if len(weights) != columns {
		return def
	}
	parts := make([]string, len(weights))
	for i, x := range weights {
		parts[i] = strconv.FormatFloat(x, 'f', 3, 64)
	}
	return strings.Join(parts, ", ")
}

// substringCandidates is how many sections holding all of a needle's
// trigrams are read for each one kept: the trigrams of a code word or a CJK
// run seldom meet apart, so most candidates hold the needle.
const substringCandidates = 4

// Substrings finds the sections holding any of needles as a substring of
// their title, path or text, case aside, best first by bm25 over the
// trigram index. That index holds only each section's literals (runs of
// text with code or CJK in them, text/shape.Literals), which every needle
// with neither white space nor a plain word alone falls in, and keeps no
// positions (migration 0004): it yields the sections holding all of a
// needle's trigrams, and the needle itself is checked here in the best of
// them.
func (s *Scoped) Substrings(ctx context.Context, needles []string, limit int) ([]Posting, error) {
	var kept []string
	for _, n := range needles {
		if utf8.RuneCountInString(n) >= ftsquery.MinSubstringRunes && !slices.Contains(kept, strings.ToLower(n)) {
			kept = append(kept, strings.ToLower(n))
		}
	}
	e := ftsquery.AllTrigrams(kept)
	if e.IsZero() || limit <= 0 {
		return nil, nil
	}
	// Scored by where the needles occur, as the bm25 weights of this
	// index weigh its columns (title 10, path 4, text 1), counted in the
	// sections themselves: never the store's statistics, so a document's
	// ranking is its own whatever else is stored. A section whose
	// trigrams hold a needle's but whose text does not (the trigrams
	// apart) scores 0 and is left out.
	args := []any{e.String(), s.set.json, s.prefix, limit}
	var score []string
	for _, n := range kept {
		args = append(args, n)
		p := "?" + strconv.Itoa(len(args))
		count := func(col string) string {
			return "(length(lower(" + col + ")) - length(replace(lower(" + col + "), " + p + ", ''))) / length(" + p + ")"
		}
		score = append(score, "10 * "+count("sec.title")+" + 4 * "+count("sec.section_path")+" + "+count("sec.body"))
	}
	rows, err := s.d.query(ctx, `SELECT id, score FROM (
		SELECT sec.id AS id, sec.ord AS ord, (`+strings.Join(score, " + ")+`) AS score
		FROM sections_trigram JOIN sections sec ON sec.id = sections_trigram.rowid
		WHERE sections_trigram MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
		  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3)))
		WHERE score > 0 ORDER BY score DESC, ord LIMIT ?4`, args...)
	return s.d.collectPostings(rows, err)
}

// Title match strengths, the scores of TitleMatches.
const (
	TitleContains = 1.0 // the title holds the query as written, case aside
	TitleStarts   = 2.0 // … at its start
	TitleEquals   = 3.0 // the title is the query, set aside case, numbers, articles and endings (TitleKey)
)

// maxTitleCandidates bounds the sections whose titles TitleMatches reads:
// the first in document order of those whose titles hold every word.
const maxTitleCandidates = 200

// TitleMatches finds the sections whose title holds query as written (case
// aside) — "#[repr(C)]" in "#[repr(C)] Structs" — or is it (TitleKey),
// scored TitleEquals, TitleStarts or TitleContains; ties in document
// order. The candidates are the sections whose title holds every word of
// the query (the word index's title column), so neither the candidates nor
// the scores depend on anything but the document. A query under three
// runes, or of no word, matches nothing.
func (s *Scoped) TitleMatches(ctx context.Context, query string, limit int) ([]Posting, error) {
	query = strings.TrimSpace(query)
	toks := tokenize.Tokenize(query)
	if utf8.RuneCountInString(query) < ftsquery.MinSubstringRunes || len(toks) == 0 || limit <= 0 {
		return nil, nil
	}
	var stems []string
	for _, t := range toks {
		if st := tokenize.Stem(t.Folded); !slices.Contains(stems, st) {
			stems = append(stems, st)
		}
	}
	titled := make([]map[int64][]int, len(stems))
	for i, st := range stems {
		var err error
		if titled[i], err = s.titleOrdinals(ctx, st); err != nil {
			return nil, err
		}
	}
	var ids []int64
	for id, info := range s.set.byID {
		snap, err := s.d.layout(ctx, id, info)
		if err != nil || snap == nil {
			return nil, err
		}
		var common []int
		for i := range stems {
			ords, ok := titled[i][id]
			if !ok {
				common = nil
				break
			}
			switch {
			case i == 0:
				common = ords
			case i == len(stems)-1:
				// Only the first maxTitleCandidates are kept: a title word
				// of a hundred thousand sections need not be read past them.
				common = intersectSorted(common, ords, maxTitleCandidates)
			default:
				common = intersectSorted(common, ords, -1)
			}
			if len(common) == 0 {
				break
			}
		}
		for _, o := range common[:min(len(common), maxTitleCandidates)] {
			ids = append(ids, snap.IDs[o])
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.Sections(ctx, ids)
	if err != nil {
		return nil, err
	}
	lower, key := strings.ToLower(query), TitleKey(query)
	var out []Posting
	for _, id := range ids {
		r, ok := rows[id]
		if !ok {
			continue
		}
		title := strings.ToLower(r.Title)
		switch {
		case key != "" && TitleKey(r.Title) == key:
			out = append(out, Posting{ID: id, Score: TitleEquals})
		case strings.HasPrefix(title, lower):
			out = append(out, Posting{ID: id, Score: TitleStarts})
		case strings.Contains(title, lower):
			out = append(out, Posting{ID: id, Score: TitleContains})
		}
	}
	slices.SortStableFunc(out, func(a, b Posting) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out[:min(limit, len(out))], nil
}

// titleOrdinals are the sections of each snapshot of the scope whose
// title holds term, from its postings' title column; kept for the store's
// generation, since a common word's list is long to decode.
func (s *Scoped) titleOrdinals(ctx context.Context, term string) (map[int64][]int, error) {
	key := ordinalKey(s.set, "title", term)
	if ords, ok := s.gen.ordinalsOf(key); ok {
		return ords, nil
	}
	lists, _, err := s.postings(ctx, []string{term})
	if err != nil {
		return nil, err
	}
	ords := map[int64][]int{}
	for id, byTerm := range lists {
		l, ok := byTerm[term]
		if !ok {
			continue
		}
		os, err := wordindex.InColumn(l, titleColumn)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", id, err)
		}
		if len(os) > 0 {
			ords[id] = os
		}
	}
	s.gen.keepOrdinals(key, ords)
	return ords, nil
}

// titleColumn is the title's column in the word index (WordColumns).
const titleColumn = 0

// intersectSorted is the values both ascending lists hold: the first
// limit of them, or all when limit is negative.
func intersectSorted(a, b []int, limit int) []int {
	var out []int
	for i, j := 0, 0; i < len(a) && j < len(b) && len(out) != limit; {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// Phrases finds the sections holding any of pairs ("object safety") as a
// phrase — the words next to each other, in that order, stemmed as the
// word index stems them — scored by the pairs each holds, each weighed by
// how rare it is in the section's own document (log(1 + sections /
// sections holding it)); ties in document order. Only the document's own
// statistics count, so its phrase ranking is its own.
func (s *Scoped) Phrases(ctx context.Context, pairs []string, limit int) ([]Posting, error) {
	if len(pairs) == 0 || limit <= 0 {
		return nil, nil
	}
	layouts := make(map[int64]*wordindex.Snapshot, len(s.set.byID))
	for id, info := range s.set.byID {
		l, err := s.d.layout(ctx, id, info)
		if err != nil || l == nil {
			return nil, err
		}
		layouts[id] = l
	}
	// Each snapshot's sections holding a pair, pair by pair.
	bySnap := map[int64][]heldPhrase{}
	for _, p := range pairs {
		ords, err := s.phraseOrdinals(ctx, p, layouts)
		if err != nil {
			return nil, err
		}
		for snapID, os := range ords {
			idf := math.Log(1 + float64(len(layouts[snapID].IDs))/float64(len(os)))
			bySnap[snapID] = append(bySnap[snapID], heldPhrase{os, idf})
		}
	}
	return bestPhraseHits(bySnap, layouts, limit), nil
}

// heldPhrase is the sections of a snapshot holding a phrase, as ascending
// ordinals, and what each adds to their score.
type heldPhrase struct {
	ords []int
	idf  float64
}

// bestPhraseHits returns the best limit sections of bySnap by the sum of
// the idfs of the phrases they hold (added in the phrases' order), then by
// row id. The lists are merged in ordinal order (row ids grow with it): a
// phrase in a hundred thousand sections costs one pass over their
// ordinals, and where a snapshot has one phrase only its first limit, since
// every score is the same there and the lowest ids win.
func bestPhraseHits(bySnap map[int64][]heldPhrase, layouts map[int64]*wordindex.Snapshot, limit int) []Posting {
	top := wordindex.NewTop(limit)
	for snapID, lists := range bySnap {
		ids := layouts[snapID].IDs
		if len(lists) == 1 {
			for _, o := range lists[0].ords[:min(limit, len(lists[0].ords))] {
				top.Push(wordindex.Hit{ID: ids[o], Score: lists[0].idf})
			}
			continue
		}
		next := make([]int, len(lists))
		for {
			ord := -1
			for i, l := range lists {
				if next[i] < len(l.ords) && (ord < 0 || l.ords[next[i]] < ord) {
					ord = l.ords[next[i]]
				}
			}
			if ord < 0 {
				break
			}
			score := 0.0
			for i, l := range lists {
				if next[i] < len(l.ords) && l.ords[next[i]] == ord {
					score += l.idf
					next[i]++
				}
			}
			top.Push(wordindex.Hit{ID: ids[ord], Score: score})
		}
	}
	out := make([]Posting, 0, limit)
	for _, h := range top.Hits() {
		out = append(out, Posting{ID: h.ID, Score: h.Score})
	}
	return out
}

// holdsAny reports whether the title, path or text of r holds one of the
// lowered needles, case aside, as the trigram index compares them.
func holdsAny(r SectionRow, lowered []string) bool {
	for _, field := range []string{r.Title, r.Path, r.Text} {
		f := strings.ToLower(field)
		for _, n := range lowered {
			if n != "" && strings.Contains(f, n) {
				return true
			}
		}
	}
	return false
}

// Shapes finds the sections whose shape (text/shape) holds any of needles
// (each of three runes or more), through the trigram index of shapes, best
// first by how often they hold them, then in document order. The score
// counts occurrences, as ScanShapes does, never the store's statistics, so
// a document's ranking is its own whatever else is stored.
func (s *Scoped) Shapes(ctx context.Context, needles []string, limit int) ([]Posting, error) {
	// The shape index keeps no positions (migration 0012): it yields the
	// sections holding every trigram of a needle, and a section is kept
	// only when its shape holds one of the needles the index was asked
	// for (three runes or more), as a phrase match of the trigrams did.
	e := ftsquery.AllTrigrams(needles)
	if e.IsZero() || limit <= 0 {
		return nil, nil
	}
	args := []any{e.String(), s.set.json, s.prefix, limit}
	var score, holds []string
	for _, n := range needles {
		args = append(args, n)
		p := "?" + strconv.Itoa(len(args))
		score = append(score, "(length(sec.shapes) - length(replace(sec.shapes, "+p+", ''))) / length("+p+")")
		if utf8.RuneCountInString(n) >= ftsquery.MinSubstringRunes {
			holds = append(holds, "instr(sec.shapes, "+p+") > 0")
		}
	}
	rows, err := s.d.query(ctx, `SELECT sec.id, (`+strings.Join(score, " + ")+`) AS score
		FROM sections_shapes JOIN sections sec ON sec.id = sections_shapes.rowid
		WHERE sections_shapes MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
		  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3))
		  AND (`+strings.Join(holds, " OR ")+`)
		ORDER BY score DESC, sec.ord LIMIT ?4`, args...)
	return s.d.collectPostings(rows, err)
}

// match is shared by the indexes; table and weights are constants above,
// never user input.
func (s *Scoped) match(ctx context.Context, table, weights string, e ftsquery.Expr, limit int) ([]Posting, error) {
	if e.IsZero() || limit <= 0 {
		return nil, nil
	}
	rank := "bm25(" + table + ", " + weights + ")"
	var rows *sql.Rows
	var err error
	switch {
	case s.rows != nil:
		rows, err = s.d.query(ctx, `SELECT rowid, -`+rank+` FROM `+table+`
			WHERE `+table+` MATCH ?1 AND rowid BETWEEN ?2 AND ?3
			ORDER BY `+rank+` LIMIT ?4`, e.String(), s.rows.lo, s.rows.hi, limit)
	case s.prefix == "":
		rows, err = s.d.query(ctx, `SELECT `+table+`.rowid, -`+rank+` FROM `+table+`
			JOIN sections sec ON sec.id = `+table+`.rowid
			WHERE `+table+` MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
			ORDER BY `+rank+` LIMIT ?3`, e.String(), s.set.json, limit)
	default:
		rows, err = s.d.query(ctx, `SELECT `+table+`.rowid, -`+rank+` FROM `+table+`
			JOIN sections sec ON sec.id = `+table+`.rowid
			WHERE `+table+` MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
			  AND lower(substr(sec.section_path, 1, length(?4))) = lower(?4)
			ORDER BY `+rank+` LIMIT ?3`, e.String(), s.set.json, limit, s.prefix)
	}
	return s.d.collectPostings(rows, err)
}

// ScanShapes finds sections whose shape holds every needle, scored by how
// often they occur. It reads the shape of every section in scope, so it is
// meant for shapes too short for the trigram index ("::", ":=").
func (s *Scoped) ScanShapes(ctx context.Context, needles []string, limit int) ([]Posting, error) {
	if len(needles) == 0 || limit <= 0 {
		return nil, nil
	}
	args := []any{s.set.json, s.prefix, limit}
	var where, score []string
	for _, n := range needles {
		args = append(args, n)
		p := "?" + strconv.Itoa(len(args))
		where = append(where, "instr(sec.shapes, "+p+") > 0")
		score = append(score, "(length(sec.shapes) - length(replace(sec.shapes, "+p+", ''))) / length("+p+")")
	}
	rows, err := s.d.query(ctx, `SELECT sec.id, (`+strings.Join(score, " + ")+`) AS score
		FROM sections sec
		WHERE sec.snapshot_id IN (SELECT value FROM json_each(?1))
		  AND (?2 = '' OR lower(substr(sec.section_path, 1, length(?2))) = lower(?2))
		  AND `+strings.Join(where, " AND ")+`
		ORDER BY score DESC, sec.ord LIMIT ?3`, args...)
	return s.d.collectPostings(rows, err)
}

func (d *DB) collectPostings(rows *sql.Rows, err error) ([]Posting, error) {
	if err != nil {
		return nil, d.classify(err, "search")
	}
	defer rows.Close()
	var out []Posting
	for rows.Next() {
		var p Posting
		if err := rows.Scan(&p.ID, &p.Score); err != nil {
			return nil, d.classify(err, "search")
		}
		out = append(out, p)
	}
	return out, d.classify(rows.Err(), "search")
}

// Sections reads the sections with the given row ids, by row id; ids
// outside the scope (or deleted meanwhile) are not in the map.
func (s *Scoped) Sections(ctx context.Context, ids []int64) (map[int64]SectionRow, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	byRow := make(map[int64]SectionRow, len(ids))
	var missing []int64
	for _, id := range ids {
		if r, ok := s.gen.row(id); !ok {
			missing = append(missing, id)
		} else if _, in := s.set.byID[r.snapshotID]; in {
			byRow[id] = r
		}
	}
	if len(missing) == 0 {
		return byRow, nil
	}
	b := make([]byte, 0, len(missing)*8)
	b = append(b, '[')
	for i, id := range missing {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, ']')
	// Every row asked for is read, in scope or not, so the memo can keep
	// it for any scope; the versions of this generation name its document.
	rows, err := s.d.query(ctx, `SELECT `+sectionColumns+`, sec.id FROM sections sec
		WHERE sec.id IN (SELECT value FROM json_each(?1))`, string(b))
	if err != nil {
		return nil, s.d.classify(err, "read sections from")
	}
	defer rows.Close()
	versions := s.set.byID
	for rows.Next() {
		var id int64
		r, err := scanSection(rows, versions, &id)
		if err != nil {
			return nil, s.d.classify(err, "read sections from")
		}
		if _, in := versions[r.snapshotID]; !in {
			continue
		}
		s.gen.keepRow(id, r)
		byRow[id] = r
	}
	return byRow, s.d.classify(rows.Err(), "read sections from")
}

// Vocabulary is the words of a corpus (folded, three letters or more) with
// the number of sections holding each, indexed for typo correction.
type Vocabulary struct {
	df     map[string]int
	stemDF map[string]int // by porter stem, as the word index stems
	byLen  [][]string     // ASCII words by byte length, each list sorted
}

// NewVocabulary indexes df.
func NewVocabulary(df map[string]int) *Vocabulary {
	v := &Vocabulary{df: df, stemDF: map[string]int{}}
	for t, n := range df {
		v.stemDF[tokenize.Stem(t)] += n
		if !isASCII(t) {
			continue
		}
		for len(v.byLen) <= len(t) {
			v.byLen = append(v.byLen, nil)
		}
		v.byLen[len(t)] = append(v.byLen[len(t)], t)
	}
	for _, ts := range v.byLen {
		slices.Sort(ts)
	}
	return v
}

// DF is the number of sections holding term.
func (v *Vocabulary) DF(term string) int { return v.df[term] }

// StemDF is how often words with this porter stem occur (summed over the
// words, so an upper bound on the sections holding any of them).
func (v *Vocabulary) StemDF(stem string) int { return v.stemDF[stem] }

// ASCIIWords returns the ASCII words of n bytes that start with first,
// sorted; callers must not change the slice. Typo correction keeps the
// first letter, so it reads only the words that could be the one meant: the
// list is sorted, and those words are one run of it, found by binary search
// instead of a scan that grows with the corpus.
func (v *Vocabulary) ASCIIWords(n int, first byte) []string {
	if n < 1 || n >= len(v.byLen) {
		return nil
	}
	words := v.byLen[n]
	lo, _ := slices.BinarySearch(words, string(first))
	hi := lo + sort.Search(len(words)-lo, func(i int) bool { return words[lo+i][0] != first })
	return words[lo:hi]
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// WordCounts are how many sections of a scope hold each of some words, and
// how many sections the scope has.
type WordCounts struct {
	DF       map[string]int
	Sections int
}

// Counts returns how many of the scope's sections hold each of words
// (folded, as the vocabulary keeps them). It reads only those words, so a
// search that needs no correction never loads a whole vocabulary; once one
// is loaded, it answers from it.
func (s *Scoped) Counts(ctx context.Context, words []string) (WordCounts, error) {
	wc := WordCounts{DF: make(map[string]int, len(words))}
	for _, info := range s.set.byID {
		wc.Sections += info.SectionCount
	}
	if v, ok := s.d.vocab.peek(s.set.key); ok {
		for _, w := range words {
			wc.DF[w] = v.DF(w)
		}
		return wc, nil
	}
	var missing []string
	for _, w := range words {
		if n, ok := s.gen.count(memoKey(s.set, w)); ok {
			if n > 0 {
				wc.DF[w] = n
			}
		} else if !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) == 0 {
		return wc, nil
	}
	list, _ := json.Marshal(missing) // []string always marshals
	rows, err := s.d.query(ctx, `SELECT term, sum(df) FROM snapshot_terms
		WHERE snapshot_id IN (SELECT value FROM json_each(?1)) AND term IN (SELECT value FROM json_each(?2))
		GROUP BY term`, s.set.json, string(list))
	if err != nil {
		return wc, s.d.classify(err, "read the vocabulary of")
	}
	defer rows.Close()
	found := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return wc, s.d.classify(err, "read the vocabulary of")
		}
		wc.DF[t] = n
		found[t] = n
	}
	if err := rows.Err(); err != nil {
		return wc, s.d.classify(err, "read the vocabulary of")
	}
	for _, w := range missing {
		s.gen.keepCount(memoKey(s.set, w), found[w]) // 0: no section holds it
	}
	return wc, nil
}

// Vocabulary returns the words of the scope's snapshots with the number of
// sections holding each (summed over snapshots). Snapshots never change, so
// a vocabulary is read and indexed once per DB and kept.
func (s *Scoped) Vocabulary(ctx context.Context) (*Vocabulary, error) {
	return s.d.vocab.get(s.set.key, func() (*Vocabulary, error) {
		df := map[string]int{}
		for id := range s.set.byID {
			if err := readTerms(ctx, s.d, id, df); err != nil {
				return nil, err
			}
		}
		return NewVocabulary(df), nil
	})
}

// snapshotCache keeps what is derived from stored snapshots (their
// vocabulary, their row range), which never change once stored. A
// snapshot's row id can be reused after it is pruned, so keys name each
// snapshot's version, fetch time and size too (snapshotKeys).
type snapshotCache[T any] struct {
	mu    sync.Mutex
	byKey map[string]T
}

// peek returns the value kept for key, if any.
func (c *snapshotCache[T]) peek(key string) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.byKey[key]
	return v, ok
}

// get returns the value for key, building it on first use; a failed build
// is not kept.
func (c *snapshotCache[T]) get(key string, build func() (T, error)) (T, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.byKey[key]; ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return v, err
	}
	if c.byKey == nil {
		c.byKey = map[string]T{}
	}
	c.byKey[key] = v
	return v, nil
}

// snapshotKeys names a set of snapshots for snapshotCache.
func snapshotKeys(set map[int64]VersionInfo) string {
	var key strings.Builder
	for _, id := range slices.Sorted(maps.Keys(set)) {
		fmt.Fprintf(&key, "%d/%s/%d/%d;", id, set[id].Version, set[id].FetchedAt.UnixNano(), set[id].SectionCount)
	}
	return key.String()
}

// readTerms adds the vocabulary of one snapshot to df.
func readTerms(ctx context.Context, d *DB, snapshotID int64, df map[string]int) error {
	rows, err := d.query(ctx, `SELECT term, df FROM snapshot_terms WHERE snapshot_id = ?`, snapshotID)
	if err != nil {
		return d.classify(err, "read the vocabulary of")
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return d.classify(err, "read the vocabulary of")
		}
		df[t] += n
	}
	return d.classify(rows.Err(), "read the vocabulary of")
}
