package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
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
	return rank.VocabularyWords(w.postings.Words)
}

// wordColumns are a section's texts in the word index's column order, the
// order the engine weighs them in (rank.SectionFields), as sections_fts is
// filled from the sections table.
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

// Layouts returns the word layouts of the scope's snapshots, by snapshot
// (rank.SectionSource), read once for the scope. Errors: a snapshot
// without one, which migration 0006 fills and every write keeps.
func (s *Scoped) Layouts(ctx context.Context) (map[int64]*wordindex.Snapshot, error) {
	s.layoutsOnce.Do(func() {
		layouts := make(map[int64]*wordindex.Snapshot, len(s.set.byID))
		for id, info := range s.set.byID {
			l, err := s.d.layout(ctx, id, info)
			if err == nil && l == nil {
				err = fmt.Errorf("snapshot %d has no word layout", id)
			}
			if err != nil {
				s.layoutsErr = err
				return
			}
			layouts[id] = l
		}
		s.layouts = layouts
	})
	return s.layouts, s.layoutsErr
}

// Within returns, when the scope has a path filter, the sections under the
// path as ascending ordinals by snapshot (rank.SectionSource); nil without
// one. Kept for the store's generation.
func (s *Scoped) Within(ctx context.Context) (map[int64][]int, error) {
	if s.prefix == "" {
		return nil, nil
	}
	key := ordinalKey(s.set, "within", s.prefix)
	if ords, ok := s.gen.ordinalsOf(key); ok {
		return ords, nil
	}
	layouts, err := s.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.d.query(ctx, `SELECT sec.id FROM sections sec
		WHERE sec.snapshot_id IN (SELECT value FROM json_each(?1))
		  AND lower(substr(sec.section_path, 1, length(?2))) = lower(?2)`, s.set.json, s.prefix)
	ords, err := s.d.ordinals(rows, err, layouts)
	if err != nil {
		return nil, err
	}
	s.gen.keepOrdinals(key, ords)
	return ords, nil
}

// Postings returns the posting lists of terms by term, then by snapshot
// (rank.SectionSource), each term's from the store's generation when it
// holds it, the others read in one query.
func (s *Scoped) Postings(ctx context.Context, terms []string) (map[string]map[int64]wordindex.List, error) {
	out := make(map[string]map[int64]wordindex.List, len(terms))
	var missing []string
	for _, t := range terms {
		if p, ok := s.gen.termPostings(memoKey(s.set, t)); ok {
			out[t] = p
		} else if !slices.Contains(missing, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.readPostings(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, t := range missing {
		p := read[t] // empty when no section holds it
		s.gen.keepPostings(memoKey(s.set, t), p)
		out[t] = p
	}
	return out, nil
}

// readPostings reads terms' entries from the store. A list of
// wordindex.ImpactFrom postings or more gets a place for its impact head,
// which lives as long as the generation keeps the list.
func (s *Scoped) readPostings(ctx context.Context, terms []string) (map[string]map[int64]wordindex.List, error) {
	list, _ := json.Marshal(terms) // []string always marshals
	rs, err := s.d.query(ctx, `SELECT term, snapshot_id, df, postings, skips FROM word_postings
		WHERE term IN (SELECT value FROM json_each(?1)) AND snapshot_id IN (SELECT value FROM json_each(?2))`, string(list), s.set.json)
	if err != nil {
		return nil, s.d.classify(err, "search")
	}
	defer rs.Close()
	out := map[string]map[int64]wordindex.List{}
	for rs.Next() {
		var term string
		var snapID int64
		var l wordindex.List
		if err := rs.Scan(&term, &snapID, &l.DF, &l.Postings, &l.Skips); err != nil {
			return nil, s.d.classify(err, "search")
		}
		if l.DF >= wordindex.ImpactFrom {
			l.Impacts = new(wordindex.Impacts)
		}
		if out[term] == nil {
			out[term] = map[int64]wordindex.List{}
		}
		out[term][snapID] = l
	}
	return out, s.d.classify(rs.Err(), "search")
}

// maxPrefixTerms bounds the terms a prefix stands for; "a*" stops there.
const maxPrefixTerms = 1000

// PrefixTerms are the terms of the scope's snapshots that start with
// prefix, as FTS5 expands a prefix query (rank.SectionSource).
func (s *Scoped) PrefixTerms(ctx context.Context, prefix string) ([]string, error) {
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

// Phrase returns the sections of the scope holding t as a phrase (FTS5's
// phrase match: the words next to each other, in order; the last one a
// prefix when t is), as ascending ordinals by snapshot (rank.SectionSource).
// Kept for the store's generation, as the postings are, since a phrase
// query costs FTS5 a read of every position list of its words.
func (s *Scoped) Phrase(ctx context.Context, t rank.Term) (map[int64][]int, error) {
	phrase := t.Text
	if t.Prefix {
		phrase += "*"
	}
	key := ordinalKey(s.set, "phrase", phrase)
	if ords, ok := s.gen.ordinalsOf(key); ok {
		return ords, nil
	}
	layouts, err := s.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.d.query(ctx, `SELECT sections_fts.rowid FROM sections_fts JOIN sections sec ON sec.id = sections_fts.rowid
		WHERE sections_fts MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))`,
		ftsquery.AnyWord([]ftsquery.Word{{Text: t.Text, Prefix: t.Prefix}}).String(), s.set.json)
	ords, err := s.d.ordinals(rows, err, layouts)
	if err != nil {
		return nil, err
	}
	s.gen.keepOrdinals(key, ords)
	return ords, nil
}

// ordinals reads rows of section ids into ascending ordinals by snapshot.
func (d *DB) ordinals(rows *sql.Rows, err error, layouts map[int64]*wordindex.Snapshot) (map[int64][]int, error) {
	if err != nil {
		return nil, d.classify(err, "search")
	}
	defer rows.Close()
	out := map[int64][]int{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, d.classify(err, "search")
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
	return out, d.classify(rows.Err(), "search")
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
