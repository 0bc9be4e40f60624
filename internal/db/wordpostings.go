package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// snapshotWords reads every word of a snapshot once for both things
// derived from them: the vocabulary with each word's section count (for
// typo correction, snapshot_terms) and the word postings (word_postings).
type snapshotWords struct {
	postings *wordindex.Builder
}

// postingsHeld is how many bytes of postings a snapshot's builder holds
// before it writes them to a file in the database's folder: a million
// sections' postings took half a gigabyte (docs/performance.md).
const postingsHeld = 8 << 20

func newSnapshotWords(spillDir string) *snapshotWords {
	w := &snapshotWords{postings: wordindex.NewBuilder()}
	w.postings.SpillTo(spillDir, postingsHeld)
	return w
}

// add reads the next section.
func (w *snapshotWords) add(s Section) {
	w.postings.Add(wordColumns(s.Title, s.Path, s.Text, s.Anchors))
}

// vocabulary is every word of the snapshot long enough to be corrected,
// with the number of sections holding it.
func (w *snapshotWords) vocabulary() map[string]int {
	df := map[string]int{}
	for folded, n := range w.postings.Words {
		if utf8.RuneCountInString(folded) >= minTermRunes {
			df[folded] = n
		}
	}
	return df
}

// wordColumns are a section's texts in the word index's column order
// (WordColumns), as sections_fts is filled from the sections table.
func wordColumns(title, path, body, anchors string) [wordindex.Columns]string {
	return [wordindex.Columns]string{title, path, body, anchors}
}

// writeWordPostings stores the postings b gathered for snapshot snapID,
// whose sections were stored under ids (in the order b saw them), with
// their skips (migration 0007).
func writeWordPostings(ctx context.Context, tx *sql.Tx, snapID int64, b *wordindex.Builder, ids []int64) error {
	return writePostings(ctx, tx, snapID, b, ids, true)
}

// writePostings is writeWordPostings, leaving skips out when the table
// has no column for them yet (migration 0006's step).
func writePostings(ctx context.Context, tx *sql.Tx, snapID int64, b *wordindex.Builder, ids []int64, skips bool) error {
	layout, err := b.Layout(ids)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO word_layouts (snapshot_id, sections, tokens, layout) VALUES (?, ?, ?, ?)`,
		snapID, b.Sections(), b.Tokens(), layout); err != nil {
		return fmt.Errorf("word layout: %w", err)
	}
	insert := `INSERT INTO word_postings (snapshot_id, term, df, postings, skips) VALUES (?, ?, ?, ?, ?)`
	if !skips {
		insert = `INSERT INTO word_postings (snapshot_id, term, df, postings) VALUES (?, ?, ?, ?)`
	}
	stmt, err := tx.PrepareContext(ctx, insert)
	if err != nil {
		return err
	}
	defer stmt.Close()
	return b.EachTerm(func(t wordindex.Term) error {
		args := []any{snapID, t.Text, t.DF, t.Postings}
		if skips {
			args = append(args, nilIfEmpty(t.Skips))
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("postings of %q: %w", t.Text, err)
		}
		return nil
	})
}

// fillWordPostings writes the word postings of the snapshots stored before
// migration 0006, one snapshot at a time.
func fillWordPostings(ctx context.Context, tx *sql.Tx) error {
	var snapshots []int64
	rows, err := tx.QueryContext(ctx, `SELECT id FROM snapshots ORDER BY id`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		snapshots = append(snapshots, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, snapID := range snapshots {
		rows, err := tx.QueryContext(ctx, `SELECT id, coalesce(title, ''), coalesce(section_path, ''), coalesce(body, ''), coalesce(anchors, '')
			FROM sections WHERE snapshot_id = ? ORDER BY id`, snapID)
		if err != nil {
			return err
		}
		b := wordindex.NewBuilder()
		var ids []int64
		for rows.Next() {
			var id int64
			var title, path, body, anchors string
			if err := rows.Scan(&id, &title, &path, &body, &anchors); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
			b.Add(wordColumns(title, path, body, anchors))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if err := writePostings(ctx, tx, snapID, b, ids, false); err != nil {
			return fmt.Errorf("snapshot %d: %w", snapID, err)
		}
	}
	return nil
}

// nilIfEmpty stores an empty list of skips as NULL.
func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// fillWordSkips writes the skips of the posting lists stored before
// migration 0007 (wordindex.Skips); short lists have none.
func fillWordSkips(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT rowid, postings FROM word_postings WHERE df > ?`, wordindex.SkipEvery)
	if err != nil {
		return err
	}
	skips := map[int64][]byte{}
	for rows.Next() {
		var id int64
		var postings []byte
		if err := rows.Scan(&id, &postings); err != nil {
			rows.Close()
			return err
		}
		s, err := wordindex.Skips(postings)
		if err != nil {
			rows.Close()
			return fmt.Errorf("postings row %d: %w", id, err)
		}
		skips[id] = nilIfEmpty(s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for id, s := range skips {
		if _, err := tx.ExecContext(ctx, `UPDATE word_postings SET skips = ? WHERE rowid = ?`, s, id); err != nil {
			return err
		}
	}
	return nil
}

// wordTerm is one phrase of a word list, as the word index stores it: one
// stem for a word, several for a phrase ("must_use", "type parameter"), or
// a prefix ("except*") that stands for every term starting with it.
type wordTerm struct {
	stems  []string
	text   string // as typed, for FTS5's phrase match
	prefix string // for a prefix, what the terms start with
}

// wordTerms reads a list of words and phrases; ok is false for anything
// else (a prefix), which only FTS5 answers.
func wordTerms(e ftsquery.Expr) (terms []wordTerm, ok bool) {
	words := e.Words()
	if len(words) == 0 {
		return nil, false
	}
	for _, w := range words {
		toks := tokenize.Tokenize(w.Text)
		if len(toks) == 0 || w.Prefix && len(toks) != 1 {
			return nil, false
		}
		if w.Prefix {
			terms = append(terms, wordTerm{text: w.Text, prefix: toks[0].Folded})
			continue
		}
		t := wordTerm{text: w.Text}
		for _, tok := range toks {
			t.stems = append(t.stems, tokenize.Stem(tok.Folded))
		}
		terms = append(terms, t)
	}
	return terms, true
}

// parseWeights reads back the weights bm25Weights wrote, so that Go ranks
// with exactly the numbers FTS5 is given.
func parseWeights(text string) ([wordindex.Columns]float64, bool) {
	var w [wordindex.Columns]float64
	parts := strings.Split(text, ", ")
	if len(parts) != wordindex.Columns {
		return w, false
	}
	for i, p := range parts {
		x, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return w, false
		}
		w[i] = x
	}
	return w, true
}

// rankWords answers Words from word_postings: the same sections, scores
// and order as bm25() over sections_fts, without reading FTS5's doclists.
// ok is false when it cannot (an expression or scope only FTS5 serves, a
// snapshot without postings), and the caller asks FTS5.
func (s *Scoped) rankWords(ctx context.Context, e ftsquery.Expr, weightsText string, limit int) (out []Posting, ok bool, err error) {
	terms, ok := wordTerms(e)
	if !ok || s.prefix != "" {
		return nil, false, nil
	}
	weights, ok := parseWeights(weightsText)
	if !ok {
		return nil, false, nil
	}
	layouts := make(map[int64]*wordindex.Snapshot, len(s.set.byID))
	for id, info := range s.set.byID {
		l, err := s.d.layout(ctx, id, info)
		if err != nil {
			return nil, false, err
		}
		if l == nil {
			return nil, false, nil
		}
		layouts[id] = l
	}
	var stems []string
	expanded := make([][]string, len(terms)) // a prefix's terms
	for i, t := range terms {
		if t.prefix != "" {
			if expanded[i], err = s.prefixTerms(ctx, t.prefix); err != nil {
				return nil, false, err
			}
			stems = append(stems, expanded[i]...)
			continue
		}
		stems = append(stems, t.stems...)
	}
	lists, dfs, err := s.postings(ctx, stems)
	if err != nil {
		return nil, false, err
	}
	// A phrase: the sections FTS5 finds holding its words next to each
	// other, by snapshot and ordinal, scored from its words' postings
	// (wordindex.PhraseList).
	phraseOrds := make([]map[int64][]int, len(terms))
	for i, t := range terms {
		if len(t.stems) > 1 {
			if phraseOrds[i], err = s.phraseOrdinals(ctx, t.text, layouts); err != nil {
				return nil, false, err
			}
		}
	}
	top := wordindex.NewTop(limit)
	scorer, _ := s.d.scorers.Get().(*wordindex.Scorer)
	if scorer == nil {
		scorer = new(wordindex.Scorer)
	}
	defer s.d.scorers.Put(scorer)
	// Each document (snapshot) is ranked with its own statistics — its
	// sections, their average length, and how many of them hold each term
	// — never the whole store's: a language's answers must not change
	// when another language is stored beside it. Their hits then meet in
	// one list by score.
	for id, snap := range layouts {
		rows := int64(len(snap.IDs))
		if rows == 0 {
			continue
		}
		q := wordindex.Query{Weights: weights, AvgLen: float64(snap.Tokens) / float64(rows), IDF: make([]float64, len(terms)), EveryPosting: s.d.everyPosting.Load()}
		perPhrase := make([]wordindex.List, len(terms))
		any := false
		for i, t := range terms {
			var df int64
			if t.prefix != "" {
				var parts []wordindex.List
				for _, st := range expanded[i] {
					if l, ok := lists[id][st]; ok {
						parts = append(parts, l)
					}
				}
				var n int
				if perPhrase[i], n, err = wordindex.UnionList(parts); err != nil {
					return nil, false, fmt.Errorf("snapshot %d: %w", id, err)
				}
				df = int64(n)
			} else if len(t.stems) == 1 {
				df, perPhrase[i] = dfs[id][t.stems[0]], lists[id][t.stems[0]]
			} else if ords := phraseOrds[i][id]; len(ords) > 0 {
				tokens := make([]wordindex.List, len(t.stems))
				for k, st := range t.stems {
					tokens[k] = lists[id][st]
				}
				if perPhrase[i], err = wordindex.PhraseList(tokens, ords); err != nil {
					return nil, false, fmt.Errorf("snapshot %d: %w", id, err)
				}
				df = int64(len(ords))
			}
			if df == 0 {
				continue // no postings here: its IDF is never used
			}
			if q.IDF[i], err = s.d.idf(ctx, rows, df); err != nil {
				return nil, false, err
			}
			any = true
		}
		if !any {
			continue
		}
		before := scorer.RankedByHeads()
		if err := scorer.Rank(snap, q, perPhrase, top); err != nil {
			return nil, false, fmt.Errorf("snapshot %d: %w", id, err)
		}
		s.d.rankings.Add(1)
		if scorer.RankedByHeads() > before {
			s.d.byHeads.Add(1)
		}
	}
	for _, h := range top.Hits() {
		out = append(out, Posting{ID: h.ID, Score: h.Score})
	}
	return out, true, nil
}

// maxPrefixTerms bounds the terms a prefix stands for; "a*" stops there.
const maxPrefixTerms = 1000

// prefixTerms are the terms of the scope's snapshots that start with
// prefix, as FTS5 expands a prefix query.
func (s *Scoped) prefixTerms(ctx context.Context, prefix string) ([]string, error) {
	rows, err := s.d.query(ctx, `SELECT DISTINCT term FROM word_postings
		WHERE term >= ?1 AND term < ?1 || char(1114111) AND snapshot_id IN (SELECT value FROM json_each(?2))
		ORDER BY term LIMIT ?3`, prefix, s.set.json, maxPrefixTerms)
	if err != nil {
		return nil, s.d.classify(err, "search")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, s.d.classify(err, "search")
		}
		out = append(out, t)
	}
	return out, s.d.classify(rows.Err(), "search")
}

// phraseOrdinals finds the sections of the scope holding phrase as a
// phrase (FTS5's phrase match: the words next to each other, in order),
// as ordinals by snapshot; kept for the store's generation, as the
// postings are, since a phrase query costs FTS5 a read of every position
// list of its words.
func (s *Scoped) phraseOrdinals(ctx context.Context, phrase string, layouts map[int64]*wordindex.Snapshot) (map[int64][]int, error) {
	key := ordinalKey(s.set, "phrase", phrase)
	if ords, ok := s.gen.ordinalsOf(key); ok {
		return ords, nil
	}
	ords, err := s.readPhraseOrdinals(ctx, phrase, layouts)
	if err != nil {
		return nil, err
	}
	s.gen.keepOrdinals(key, ords)
	return ords, nil
}

func (s *Scoped) readPhraseOrdinals(ctx context.Context, phrase string, layouts map[int64]*wordindex.Snapshot) (map[int64][]int, error) {
	rows, err := s.d.query(ctx, `SELECT sections_fts.rowid FROM sections_fts JOIN sections sec ON sec.id = sections_fts.rowid
		WHERE sections_fts MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))`,
		ftsquery.AnyWord([]ftsquery.Word{{Text: phrase}}).String(), s.set.json)
	if err != nil {
		return nil, s.d.classify(err, "search")
	}
	defer rows.Close()
	out := map[int64][]int{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, s.d.classify(err, "search")
		}
		for snapID, snap := range layouts {
			if o, ok := slices.BinarySearch(snap.IDs, id); ok {
				out[snapID] = append(out[snapID], o)
				break
			}
		}
	}
	for _, ords := range out {
		slices.Sort(ords)
	}
	return out, s.d.classify(rows.Err(), "search")
}

// postings reads, for each of terms, its postings and its document
// frequency in each snapshot of the scope, in one query.
func (s *Scoped) postings(ctx context.Context, terms []string) (map[int64]map[string]wordindex.List, map[int64]map[string]int64, error) {
	byTerm := make(map[string]termPostings, len(terms))
	var missing []string
	for _, t := range terms {
		if p, ok := s.gen.termPostings(memoKey(s.set, t)); ok {
			byTerm[t] = p
		} else if !slices.Contains(missing, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		read, err := s.readPostings(ctx, missing)
		if err != nil {
			return nil, nil, err
		}
		for _, t := range missing {
			p := read[t] // empty when no section holds it
			s.gen.keepPostings(memoKey(s.set, t), p)
			byTerm[t] = p
		}
	}
	lists := map[int64]map[string]wordindex.List{}
	dfs := map[int64]map[string]int64{}
	for term, p := range byTerm {
		for snapID, l := range p.lists {
			if lists[snapID] == nil {
				lists[snapID] = map[string]wordindex.List{}
				dfs[snapID] = map[string]int64{}
			}
			lists[snapID][term] = l
			dfs[snapID][term] = p.dfs[snapID]
		}
	}
	return lists, dfs, nil
}

// readPostings reads terms' entries from the store.
func (s *Scoped) readPostings(ctx context.Context, terms []string) (map[string]termPostings, error) {
	list, _ := json.Marshal(terms) // []string always marshals
	rs, err := s.d.query(ctx, `SELECT term, snapshot_id, df, postings, skips FROM word_postings
		WHERE term IN (SELECT value FROM json_each(?1)) AND snapshot_id IN (SELECT value FROM json_each(?2))`, string(list), s.set.json)
	if err != nil {
		return nil, s.d.classify(err, "search")
	}
	defer rs.Close()
	out := map[string]termPostings{}
	for rs.Next() {
		var term string
		var snapID, df int64
		var l wordindex.List
		if err := rs.Scan(&term, &snapID, &df, &l.Postings, &l.Skips); err != nil {
			return nil, s.d.classify(err, "search")
		}
		p := out[term]
		if p.lists == nil {
			p.lists, p.dfs = map[int64]wordindex.List{}, map[int64]int64{}
		}
		if df >= wordindex.ImpactFrom {
			l.Impacts = new(wordindex.Impacts)
		}
		p.lists[snapID], p.dfs[snapID] = l, df
		out[term] = p
	}
	return out, s.d.classify(rs.Err(), "search")
}

// idfKey is what an IDF depends on: the table's rows and a term's.
type idfKey struct{ rows, hits int64 }

// maxCachedIDFs bounds the IDF cache; it is emptied when full (a store
// changes its row count at every ingest, so old keys die anyway).
const maxCachedIDFs = 1 << 14

// idf is FTS5's IDF for a term held by hits of rows rows, its logarithm
// taken by SQLite's ln(), the C library's log that bm25() calls: Go's
// math.Log may differ from it in the last bit, and scores that differ there
// can swap two sections. A query for one number costs more than ranking a
// small document, so each is asked once and kept.
func (d *DB) idf(ctx context.Context, rows, hits int64) (float64, error) {
	key := idfKey{rows, hits}
	d.idfs.mu.Lock()
	x, ok := d.idfs.byKey[key]
	d.idfs.mu.Unlock()
	if ok {
		return x, nil
	}
	r, err := d.query(ctx, `SELECT ln((?1 - ?2 + 0.5) / (?2 + 0.5))`, rows, hits)
	if err != nil {
		return 0, d.classify(err, "search")
	}
	defer r.Close()
	if r.Next() {
		if err := r.Scan(&x); err != nil {
			return 0, d.classify(err, "search")
		}
	}
	if err := r.Err(); err != nil {
		return 0, d.classify(err, "search")
	}
	x = wordindex.FloorIDF(x)
	d.idfs.mu.Lock()
	if d.idfs.byKey == nil || len(d.idfs.byKey) >= maxCachedIDFs {
		d.idfs.byKey = map[idfKey]float64{}
	}
	d.idfs.byKey[key] = x
	d.idfs.mu.Unlock()
	return x, nil
}

// queryRow runs a one-row read query into dest.
func (s *Scoped) queryRow(ctx context.Context, text string, dest ...any) error {
	rows, err := s.d.query(ctx, text)
	if err != nil {
		return s.d.classify(err, "search")
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return s.d.classify(err, "search")
		}
	}
	return s.d.classify(rows.Err(), "search")
}

// layout returns a snapshot's word layout, read once per DB (snapshots
// never change); nil when the snapshot has none.
func (d *DB) layout(ctx context.Context, snapshotID int64, info VersionInfo) (*wordindex.Snapshot, error) {
	return d.layouts.get(snapshotKeys(map[int64]VersionInfo{snapshotID: info}), func() (*wordindex.Snapshot, error) {
		rows, err := d.query(ctx, `SELECT layout FROM word_layouts WHERE snapshot_id = ?`, snapshotID)
		if err != nil {
			return nil, d.classify(err, "search")
		}
		defer rows.Close()
		if !rows.Next() {
			return nil, d.classify(rows.Err(), "search")
		}
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return nil, d.classify(err, "search")
		}
		snap, err := wordindex.DecodeLayout(data)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", snapshotID, err)
		}
		return snap, nil
	})
}
