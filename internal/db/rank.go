package db

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"

	"github.com/langspec/langspec/internal/text/ftsquery"
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

// Columns of the word index, for ftsquery.InColumns.
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
	set    snapshotSet
	prefix string
}

// Scope resolves f for a ranked search. Errors: apperr.NotFound for an
// unknown language or version.
func (d *DB) Scope(ctx context.Context, f Filter) (*Scoped, error) {
	set, err := d.resolve(ctx, f.Scope)
	if err != nil {
		return nil, err
	}
	return &Scoped{d: d, set: set, prefix: f.PathPrefix}, nil
}

// WordColumns are the word index's columns in order, for Words' weights.
func WordColumns() []string { return []string{ColumnTitle, ColumnPath, ColumnBody, ColumnAnchors} }

// Words runs e against the word index, best first by bm25 with the given
// per-column weights (in WordColumns order; nil for the defaults).
func (s *Scoped) Words(ctx context.Context, e ftsquery.Expr, weights []float64, limit int) ([]Posting, error) {
	return s.match(ctx, "sections_fts", bm25Weights(weights, len(WordColumns()), wordWeights), e, limit)
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

// Literal runs e against the trigram index of the text as written.
func (s *Scoped) Literal(ctx context.Context, e ftsquery.Expr, limit int) ([]Posting, error) {
	return s.match(ctx, "sections_trigram", "10.0, 4.0, 1.0", e, limit)
}

// Shapes runs e against the trigram index of the sections' shapes
// (text/shape).
func (s *Scoped) Shapes(ctx context.Context, e ftsquery.Expr, limit int) ([]Posting, error) {
	return s.match(ctx, "sections_shapes", "1.0", e, limit)
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
	if s.prefix == "" {
		rows, err = s.d.query(ctx, `SELECT `+table+`.rowid, -`+rank+` FROM `+table+`
			JOIN sections sec ON sec.id = `+table+`.rowid
			WHERE `+table+` MATCH ?1 AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
			ORDER BY `+rank+` LIMIT ?3`, e.String(), s.set.json, limit)
	} else {
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
	b := make([]byte, 0, len(ids)*8)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	b = append(b, ']')
	rows, err := s.d.query(ctx, `SELECT `+sectionColumns+`, sec.id FROM sections sec
		WHERE sec.id IN (SELECT value FROM json_each(?1)) AND sec.snapshot_id IN (SELECT value FROM json_each(?2))`,
		string(b), s.set.json)
	if err != nil {
		return nil, s.d.classify(err, "read sections from")
	}
	defer rows.Close()
	byRow := make(map[int64]SectionRow, len(ids))
	for rows.Next() {
		var id int64
		r, err := scanSection(rows, s.set.byID, &id)
		if err != nil {
			return nil, s.d.classify(err, "read sections from")
		}
		byRow[id] = r
	}
	return byRow, s.d.classify(rows.Err(), "read sections from")
}

// Vocabulary returns the words of the scope's snapshots with the number of
// sections holding each (summed over snapshots). Snapshots never change, so
// each one's vocabulary is read once per DB and kept.
func (s *Scoped) Vocabulary(ctx context.Context) (map[string]int, error) {
	if len(s.set.byID) == 1 {
		for id, info := range s.set.byID {
			return s.d.vocab.of(ctx, s.d, id, info)
		}
	}
	out := map[string]int{}
	for id, info := range s.set.byID {
		v, err := s.d.vocab.of(ctx, s.d, id, info)
		if err != nil {
			return nil, err
		}
		for t, n := range v {
			out[t] += n
		}
	}
	return out, nil
}

// vocabCache holds the vocabularies read so far. A snapshot's row id can be
// reused after it is pruned, so the key holds its version and fetch time too.
type vocabCache struct {
	mu    sync.Mutex
	byKey map[vocabKey]map[string]int
}

type vocabKey struct {
	id      int64
	version string
	fetched int64
}

func (c *vocabCache) of(ctx context.Context, d *DB, snapshotID int64, info VersionInfo) (map[string]int, error) {
	key := vocabKey{snapshotID, info.Version, info.FetchedAt.UnixNano()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.byKey[key]; ok {
		return v, nil
	}
	rows, err := d.query(ctx, `SELECT term, df FROM snapshot_terms WHERE snapshot_id = ?`, snapshotID)
	if err != nil {
		return nil, d.classify(err, "read the vocabulary of")
	}
	defer rows.Close()
	v := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, d.classify(err, "read the vocabulary of")
		}
		v[t] = n
	}
	if err := rows.Err(); err != nil {
		return nil, d.classify(err, "read the vocabulary of")
	}
	if c.byKey == nil {
		c.byKey = map[vocabKey]map[string]int{}
	}
	c.byKey[key] = v
	return v, nil
}
