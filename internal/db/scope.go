package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/ftsquery"
)

// A scope is what the ranking engine reads of the spec sections: Scoped
// implements rank.SectionSource. It reads and keeps — postings, layouts,
// the sections holding a phrase, occurrences, titles, rows — and the
// engine scores.

// Filter narrows a search: the versions of Scope, and sections whose path
// starts with PathPrefix (case-insensitive, ASCII).
type Filter struct {
	Scope
	PathPrefix string
}

// Scoped is a search scope resolved once, so that the channels of one query
// (internal/rank) read the same snapshots without resolving them again.
type Scoped struct {
	d      *DB
	gen    *generation // what the store held when the scope was resolved
	set    snapshotSet
	prefix string
	// layouts are the scope's word layouts once read (Layouts): every
	// channel of a search asks for them.
	layoutsOnce sync.Once
	layouts     map[int64]*wordindex.Snapshot
	layoutsErr  error
}

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
	return &Scoped{d: d, gen: g, set: newSnapshotSet(vs), prefix: f.PathPrefix}, nil
}

// Substrings returns the sections holding any of needles (lower case,
// three runes or more) as a substring of their title, path or text, case
// aside, with how often each field holds them (rank.SectionSource). The
// trigram index holds only each section's literals (runs of text with code
// or CJK in them, text/shape.Literals), which every needle with neither
// white space nor a plain word alone falls in, and keeps no positions
// (migration 0004): it yields the sections holding all of a needle's
// trigrams, and the needle itself is counted here in each of them; a
// section holding the trigrams apart holds none, and is left out.
func (s *Scoped) Substrings(ctx context.Context, needles []string) ([]rank.Occurrences, error) {
	e := ftsquery.AllTrigrams(needles)
	if e.IsZero() {
		return nil, nil
	}
	args := []any{e.String(), s.set.json, s.prefix}
	var title, path, body []string
	for _, n := range needles {
		args = append(args, n)
		p := "?" + strconv.Itoa(len(args))
		count := func(col string) string {
			return "(length(lower(" + col + ")) - length(replace(lower(" + col + "), " + p + ", ''))) / length(" + p + ")"
		}
		title, path, body = append(title, count("sec.title")), append(path, count("sec.section_path")), append(body, count("sec.body"))
	}
	rows, err := s.d.query(ctx, `SELECT id, ord, title, path, body FROM (
		SELECT sec.id AS id, sec.ord AS ord, `+strings.Join(title, " + ")+` AS title, `+strings.Join(path, " + ")+` AS path, `+strings.Join(body, " + ")+` AS body
		FROM sections_trigram JOIN sections sec ON sec.id = sections_trigram.rowid
		WHERE sections_trigram MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
		  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3)))
		WHERE title > 0 OR path > 0 OR body > 0`, args...)
	return s.d.collectOccurrences(rows, err, func(o *rank.Occurrences) []any { return []any{&o.Title, &o.Path, &o.Body} })
}

// Titles returns the sections of the scope whose title holds every one of
// terms (index terms), the first limit of each snapshot in document order,
// with their titles (rank.SectionSource); the candidates come from the
// postings' title column.
func (s *Scoped) Titles(ctx context.Context, terms []string, limit int) ([]rank.Title, error) {
	if len(terms) == 0 || limit <= 0 {
		return nil, nil
	}
	titled := make([]map[int64]rank.Bits, len(terms))
	for i, t := range terms {
		var err error
		if titled[i], err = s.Holding(ctx, t, titleField); err != nil {
			return nil, err
		}
	}
	layouts, err := s.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	// A path filter is one more set every candidate must be in.
	within, err := s.Within(ctx)
	if err != nil {
		return nil, err
	}
	var ids []int64
	for id, snap := range layouts {
		sets := make([]rank.Bits, 0, len(titled)+1)
		for _, t := range titled {
			if b, ok := t[id]; ok {
				sets = append(sets, b)
			}
		}
		if len(sets) < len(titled) {
			continue
		}
		if within != nil {
			w := rank.NewBits(len(snap.IDs))
			for _, o := range within[id] {
				w.Add(o)
			}
			sets = append(sets, w)
		}
		// The sections in every set, in document order; only the first
		// limit are kept: a title word of a hundred thousand sections
		// need not be read past them.
		found := 0
		for w := 0; w < (len(snap.IDs)+63)/64 && found < limit; w++ {
			x := ^uint64(0)
			for _, b := range sets {
				x &= b[w]
			}
			for ; x != 0 && found < limit; x &= x - 1 {
				ids = append(ids, snap.IDs[w*64+bits.TrailingZeros64(x)])
				found++
			}
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	rows, err := s.Sections(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]rank.Title, 0, len(ids))
	for _, id := range ids {
		if r, ok := rows[id]; ok {
			out = append(out, rank.Title{ID: id, Title: r.Title})
		}
	}
	return out, nil
}

// Holding returns the sections of each snapshot of the scope whose fields
// of mask (a bit a field, in rank.SectionFields' order) hold term (an index
// term), as a set by snapshot (rank.SectionSource), from its postings; kept
// for the store's generation, since a common word's list is long to decode.
func (s *Scoped) Holding(ctx context.Context, term string, mask uint8) (map[int64]rank.Bits, error) {
	key := ordinalKey(s.set, "fields"+strconv.Itoa(int(mask)), term)
	if held, ok := s.gen.heldBy(key); ok {
		return held, nil
	}
	layouts, err := s.Layouts(ctx)
	if err != nil {
		return nil, err
	}
	lists, err := s.Postings(ctx, []string{term})
	if err != nil {
		return nil, err
	}
	held := map[int64]rank.Bits{}
	for id, l := range lists[term] {
		ords, err := wordindex.InColumns(l, mask)
		if err != nil {
			return nil, fmt.Errorf("snapshot %d: %w", id, err)
		}
		if len(ords) == 0 {
			continue
		}
		b := rank.NewBits(len(layouts[id].IDs))
		for _, o := range ords {
			b.Add(o)
		}
		held[id] = b
	}
	s.gen.keepHeld(key, held)
	return held, nil
}

// titleField is the title's bit in the fields of Holding.
const titleField = 1 << 0

// Shapes returns the sections whose shape (text/shape) holds any of
// needles, each of three runes or more, with how often (in the text's
// field: rank.SectionSource), through the trigram index of shapes. That
// index keeps no positions (migration 0012): it yields the sections
// holding every trigram of a needle, and a section is kept only when its
// shape holds one of the needles.
func (s *Scoped) Shapes(ctx context.Context, needles []string) ([]rank.Occurrences, error) {
	e := ftsquery.AllTrigrams(needles)
	if e.IsZero() {
		return nil, nil
	}
	args := []any{e.String(), s.set.json, s.prefix}
	var count, holds []string
	for _, n := range needles {
		args = append(args, n)
		p := "?" + strconv.Itoa(len(args))
		count = append(count, shapeCount(p))
		holds = append(holds, "instr(sec.shapes, "+p+") > 0")
	}
	rows, err := s.d.query(ctx, `SELECT sec.id, sec.ord, `+strings.Join(count, " + ")+`
		FROM sections_shapes JOIN sections sec ON sec.id = sections_shapes.rowid
		WHERE sections_shapes MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
		  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3))
		  AND (`+strings.Join(holds, " OR ")+`)`, args...)
	return s.d.collectOccurrences(rows, err, shapeField)
}

// ScanShapes returns the sections whose shape holds every one of needles,
// with how often (rank.SectionSource). It reads the shape of every section
// in scope, so it is meant for shapes too short for the trigram index
// ("::", ":=").
func (s *Scoped) ScanShapes(ctx context.Context, needles []string) ([]rank.Occurrences, error) {
	if len(needles) == 0 {
		return nil, nil
	}
	args := []any{s.set.json, s.prefix}
	var where, count []string
	for _, n := range needles {
		args = append(args, n)
		p := "?" + strconv.Itoa(len(args))
		where = append(where, "instr(sec.shapes, "+p+") > 0")
		count = append(count, shapeCount(p))
	}
	rows, err := s.d.query(ctx, `SELECT sec.id, sec.ord, `+strings.Join(count, " + ")+`
		FROM sections sec
		WHERE sec.snapshot_id IN (SELECT value FROM json_each(?1))
		  AND (?2 = '' OR lower(substr(sec.section_path, 1, length(?2))) = lower(?2))
		  AND `+strings.Join(where, " AND "), args...)
	return s.d.collectOccurrences(rows, err, shapeField)
}

// shapeCount is the SQL for how often the shape holds the needle bound
// at p.
func shapeCount(p string) string {
	return "(length(sec.shapes) - length(replace(sec.shapes, " + p + ", ''))) / length(" + p + ")"
}

// shapeField is where a shape's occurrences count: a section's shape is
// its text's.
func shapeField(o *rank.Occurrences) []any { return []any{&o.Body} }

// collectOccurrences reads rows of a section's id, its ordinal and its
// counts, the counts into the fields counts names.
func (d *DB) collectOccurrences(rows *sql.Rows, err error, counts func(*rank.Occurrences) []any) ([]rank.Occurrences, error) {
	if err != nil {
		return nil, d.classify(err, "search")
	}
	defer rows.Close()
	var out []rank.Occurrences
	for rows.Next() {
		var o rank.Occurrences
		if err := rows.Scan(append([]any{&o.ID, &o.Ord}, counts(&o)...)...); err != nil {
			return nil, d.classify(err, "search")
		}
		out = append(out, o)
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

// Counts returns how many of the scope's sections hold each of words
// (folded, as the vocabulary keeps them). It reads only those words, so a
// search that needs no correction never loads a whole vocabulary; once one
// is loaded, it answers from it.
func (s *Scoped) Counts(ctx context.Context, words []string) (rank.WordCounts, error) {
	wc := rank.WordCounts{DF: make(map[string]int, len(words))}
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
func (s *Scoped) Vocabulary(ctx context.Context) (*rank.Vocabulary, error) {
	return s.d.vocab.get(s.set.key, func() (*rank.Vocabulary, error) {
		df := map[string]int{}
		for id := range s.set.byID {
			if err := readTerms(ctx, s.d, id, df); err != nil {
				return nil, err
			}
		}
		return rank.NewVocabulary(df), nil
	})
}

// snapshotCache keeps what is derived from stored snapshots (their
// vocabulary, their word layout), which never change once stored. A
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
