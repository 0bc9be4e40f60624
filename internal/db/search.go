package db

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/langspec/langspec/internal/text/ftsquery"
)

// Filter narrows a search: the versions of Scope, and sections whose path
// starts with PathPrefix (case-insensitive, ASCII).
type Filter struct {
	Scope
	PathPrefix string
}

// Hit is a section that matched, with a score where higher is better.
type Hit struct {
	SectionRow
	Score float64
}

// Column weights for bm25: a word in the title says more than one in the
// path, which says more than one in the body.
const bm25Weights = "10.0, 4.0, 1.0"

// MatchWords runs e against the word index (stemmed, case- and
// diacritic-folded), best first. Errors: apperr.NotFound for an unknown scope.
func (d *DB) MatchWords(ctx context.Context, f Filter, e ftsquery.Expr, limit int) ([]Hit, error) {
	return d.match(ctx, "sections_fts", f, e, limit)
}

// MatchSubstrings runs e against the trigram index, best first.
func (d *DB) MatchSubstrings(ctx context.Context, f Filter, e ftsquery.Expr, limit int) ([]Hit, error) {
	return d.match(ctx, "sections_trigram", f, e, limit)
}

// match is shared by both indexes; table is one of two constants above, never
// user input.
func (d *DB) match(ctx context.Context, table string, f Filter, e ftsquery.Expr, limit int) ([]Hit, error) {
	if e.IsZero() || limit <= 0 {
		return nil, nil
	}
	set, err := d.resolve(ctx, f.Scope)
	if err != nil {
		return nil, err
	}
	rank := "bm25(" + table + ", " + bm25Weights + ")"
	rows, err := d.query(ctx, `SELECT `+sectionColumns+`, -`+rank+`
		FROM `+table+` JOIN sections sec ON sec.id = `+table+`.rowid
		WHERE `+table+` MATCH ?1
		  AND sec.snapshot_id IN (SELECT value FROM json_each(?2))
		  AND (?3 = '' OR lower(substr(sec.section_path, 1, length(?3))) = lower(?3))
		ORDER BY `+rank+` LIMIT ?4`, e.String(), set.json, f.PathPrefix, limit)
	return d.collectHits(rows, err, set)
}

// ScanSubstrings finds sections whose title, path or body contains every
// needle (ASCII case-insensitive), scored by how often the needles occur. It
// reads every section in scope, so it is meant for needles too short for the
// trigram index (under three characters) on spec-sized corpora.
func (d *DB) ScanSubstrings(ctx context.Context, f Filter, needles []string, limit int) ([]Hit, error) {
	if len(needles) == 0 || limit <= 0 {
		return nil, nil
	}
	set, err := d.resolve(ctx, f.Scope)
	if err != nil {
		return nil, err
	}
	// Needles are bound as parameters; only the number of clauses varies.
	args := []any{set.json, f.PathPrefix, limit}
	var where, score []string
	for _, n := range needles {
		args = append(args, strings.ToLower(n))
		p := "?" + strconv.Itoa(len(args))
		where = append(where, "instr(lower(sec.title || ' ' || sec.section_path || ' ' || sec.body), "+p+") > 0")
		score = append(score, "(length(sec.body) - length(replace(lower(sec.body), "+p+", ''))) / length("+p+")"+
			" + 10 * (instr(lower(sec.title), "+p+") > 0)")
	}
	rows, err := d.query(ctx, `SELECT `+sectionColumns+`, (`+strings.Join(score, " + ")+`) AS score
		FROM sections sec
		WHERE sec.snapshot_id IN (SELECT value FROM json_each(?1))
		  AND (?2 = '' OR lower(substr(sec.section_path, 1, length(?2))) = lower(?2))
		  AND `+strings.Join(where, " AND ")+`
		ORDER BY score DESC, sec.ord LIMIT ?3`, args...)
	return d.collectHits(rows, err, set)
}

// collectHits reads the rows of a search query (sectionColumns, then score).
func (d *DB) collectHits(rows *sql.Rows, err error, set snapshotSet) ([]Hit, error) {
	if err != nil {
		return nil, d.classify(err, "search")
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		if h.SectionRow, err = scanSection(rows, set.byID, &h.Score); err != nil {
			return nil, d.classify(err, "search")
		}
		out = append(out, h)
	}
	return out, d.classify(rows.Err(), "search")
}
