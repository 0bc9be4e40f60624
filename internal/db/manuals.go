package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/text/ftsquery"
	"github.com/langspec/langspec/internal/text/normalize"
)

// ManualFile is the state of one indexed manual file, as last seen on disk.
type ManualFile struct {
	ManualID string
	Path     string // relative to the manual's folder, "/"-separated
	Size     int64
	MtimeNS  int64
	Hash     string // TextHash of the content
}

// ManualNode is one node of a manual file as stored.
type ManualNode struct {
	RowID     int64 // the store's id, stable until the file is re-indexed
	Path      string
	Ord       int
	NodeID    string
	ParentID  string
	Kind      string
	Level     int
	Title     string
	LineStart int
	LineEnd   int // last line, subsections included
	OwnEnd    int // last line of the node's own text, before its first subsection
	Body      string
	Norm      string
	Loose     string
	FileName  string // as stored: the file_name field of the indexes (fileName); PutManualFile ignores it
}

// ManualRoot is the manuals of one manuals folder in the index: a manual is
// (root, id), so the manuals of several folders live side by side, and
// refreshing one folder's never touches another's (migration 0013). root
// is the folder's absolute path as the index names it.
type ManualRoot struct {
	d    *DB
	root string
}

// ManualRoot returns the manuals of the folder root.
func (d *DB) ManualRoot(root string) *ManualRoot { return &ManualRoot{d: d, root: root} }

// Root is the folder's path as stored.
func (r *ManualRoot) Root() string { return r.root }

// Files returns the indexed files of a manual, by path. An unknown manual
// has none.
func (r *ManualRoot) Files(ctx context.Context, manualID string) (map[string]ManualFile, error) {
	rows, err := r.d.query(ctx, `SELECT path, size, mtime_ns, content_hash FROM manual_files WHERE root = ?1 AND manual_id = ?2`, r.root, manualID)
	if err != nil {
		return nil, r.d.classify(err, "read manual files from")
	}
	defer rows.Close()
	out := map[string]ManualFile{}
	for rows.Next() {
		f := ManualFile{ManualID: manualID}
		if err := rows.Scan(&f.Path, &f.Size, &f.MtimeNS, &f.Hash); err != nil {
			return nil, r.d.classify(err, "read manual files from")
		}
		out[f.Path] = f
	}
	return out, r.d.classify(rows.Err(), "read manual files from")
}

// Indexed returns the ids of the folder's manuals that have indexed files.
func (r *ManualRoot) Indexed(ctx context.Context) ([]string, error) {
	rows, err := r.d.query(ctx, `SELECT DISTINCT manual_id FROM manual_files WHERE root = ?1 ORDER BY manual_id`, r.root)
	if err != nil {
		return nil, r.d.classify(err, "read manuals from")
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, r.d.classify(err, "read manuals from")
		}
		out = append(out, id)
	}
	return out, r.d.classify(rows.Err(), "read manuals from")
}

// IndexedRoot is a manuals folder the index holds manuals of.
type IndexedRoot struct {
	Root    string   `json:"root"`
	Manuals []string `json:"manuals"`
}

// IndexedRoots returns every manuals folder the index holds manuals of, by
// path, with their manual ids.
func (d *DB) IndexedRoots(ctx context.Context) ([]IndexedRoot, error) {
	rows, err := d.query(ctx, `SELECT DISTINCT root, manual_id FROM manual_files ORDER BY root, manual_id`)
	if err != nil {
		return nil, d.classify(err, "read manuals from")
	}
	defer rows.Close()
	var out []IndexedRoot
	for rows.Next() {
		var root, id string
		if err := rows.Scan(&root, &id); err != nil {
			return nil, d.classify(err, "read manuals from")
		}
		if len(out) == 0 || out[len(out)-1].Root != root {
			out = append(out, IndexedRoot{Root: root})
		}
		out[len(out)-1].Manuals = append(out[len(out)-1].Manuals, id)
	}
	return out, d.classify(rows.Err(), "read manuals from")
}

// Put stores a file and its nodes, replacing what was indexed for the same
// (manual, path), in one transaction: a search never sees half a file.
func (r *ManualRoot) Put(ctx context.Context, f ManualFile, nodes []ManualNode) error {
	d := r.d
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return d.classify(err, "index manual file in")
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM manual_files WHERE root = ?1 AND manual_id = ?2 AND path = ?3`, r.root, f.ManualID, f.Path); err != nil {
		return d.classify(err, "index manual file in")
	}
	res, err := tx.ExecContext(ctx, `INSERT INTO manual_files (root, manual_id, path, size, mtime_ns, content_hash, indexed_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`, r.root, f.ManualID, f.Path, f.Size, f.MtimeNS, f.Hash, time.Now().UTC().Format(time.RFC3339))
	if err != nil {
		return d.classify(err, "index manual file in")
	}
	fileID, err := res.LastInsertId()
	if err != nil {
		return d.classify(err, "index manual file in")
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO manual_nodes
		(file_id, ord, node_id, parent_id, kind, level, title, line_start, line_end, own_end, body, norm, loose, file_name)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)`)
	if err != nil {
		return d.classify(err, "index manual file in")
	}
	defer stmt.Close()
	for i, n := range nodes {
		if _, err := stmt.ExecContext(ctx, fileID, i, n.NodeID, n.ParentID, n.Kind, n.Level, n.Title,
			n.LineStart, n.LineEnd, n.OwnEnd, n.Body, n.Norm, n.Loose, fileName(f.Path)); err != nil {
			return d.classify(err, "index manual file in")
		}
	}
	// One statement per index for the file's nodes (migration 0004).
	for _, q := range []string{
		`INSERT INTO manual_nodes_fts (rowid, title, body, file_name)
			SELECT id, title, body, file_name FROM manual_nodes WHERE file_id = ?`,
		`INSERT INTO manual_nodes_trigram (rowid, title, norm, file_name)
			SELECT id, title, norm, file_name FROM manual_nodes WHERE file_id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, fileID); err != nil {
			return d.classify(err, "index manual file in")
		}
	}
	return d.classify(tx.Commit(), "index manual file in")
}

// manualIndexes are the full-text indexes over manual nodes (migrations).
var manualIndexes = []string{"manual_nodes_fts", "manual_nodes_trigram"}

// MergeManualIndexes merges the segments of the manual indexes into one
// (see mergeIndexes). A refresh writes each file in a transaction of its
// own, so that a search never sees half a file; that leaves a segment or
// more per file, which every search would seek through. The index refresh
// calls it once it has written the files that changed.
func (d *DB) MergeManualIndexes(ctx context.Context) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return d.classify(err, "start writing to")
	}
	defer tx.Rollback()
	if err := mergeIndexes(ctx, tx, manualIndexes); err != nil {
		return d.classify(err, "merge the manual indexes of")
	}
	return d.classify(tx.Commit(), "commit to")
}

// fileName is the file_name field of a manual file's nodes: its path
// without the extension, normalised as norm is, so "03_特約/先進医療特約.md"
// is found by its rider's name and its chapter number.
func fileName(p string) string {
	return normalize.Normal(strings.TrimSuffix(p, path.Ext(p)))
}

// Touch records a new size and mtime for a file whose content did not
// change, so the next refresh skips it without hashing it again.
func (r *ManualRoot) Touch(ctx context.Context, f ManualFile) error {
	_, err := r.d.sql.ExecContext(ctx, `UPDATE manual_files SET size = ?4, mtime_ns = ?5 WHERE root = ?1 AND manual_id = ?2 AND path = ?3`,
		r.root, f.ManualID, f.Path, f.Size, f.MtimeNS)
	return r.d.classify(err, "update manual file in")
}

// Delete removes files of a manual from the index; with no paths, the
// whole manual. Another folder's manual of the same id is untouched.
func (r *ManualRoot) Delete(ctx context.Context, manualID string, paths []string) error {
	d := r.d
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return d.classify(err, "remove manual files from")
	}
	defer tx.Rollback()
	if len(paths) == 0 {
		_, err = tx.ExecContext(ctx, `DELETE FROM manual_files WHERE root = ?1 AND manual_id = ?2`, r.root, manualID)
	}
	for _, p := range paths {
		if _, err = tx.ExecContext(ctx, `DELETE FROM manual_files WHERE root = ?1 AND manual_id = ?2 AND path = ?3`, r.root, manualID, p); err != nil {
			break
		}
	}
	if err != nil {
		return d.classify(err, "remove manual files from")
	}
	return d.classify(tx.Commit(), "remove manual files from")
}

// manualNodeColumns are read by scanManualNode, in this order.
const manualNodeColumns = `n.id, f.path, n.ord, n.node_id, n.parent_id, n.kind, n.level, n.title,
	n.line_start, n.line_end, n.own_end, n.body, n.norm, n.loose, n.file_name`

func scanManualNode(rows *sql.Rows) (ManualNode, error) {
	var n ManualNode
	err := rows.Scan(&n.RowID, &n.Path, &n.Ord, &n.NodeID, &n.ParentID, &n.Kind, &n.Level, &n.Title,
		&n.LineStart, &n.LineEnd, &n.OwnEnd, &n.Body, &n.Norm, &n.Loose, &n.FileName)
	return n, err
}

// Nodes returns every node of a manual in path and document order.
func (r *ManualRoot) Nodes(ctx context.Context, manualID string) ([]ManualNode, error) {
	d := r.d
	rows, err := d.query(ctx, `SELECT `+manualNodeColumns+`
		FROM manual_nodes n JOIN manual_files f ON f.id = n.file_id
		WHERE f.root = ?1 AND f.manual_id = ?2 ORDER BY f.path, n.ord`, r.root, manualID)
	if err != nil {
		return nil, d.classify(err, "read manual nodes from")
	}
	defer rows.Close()
	var out []ManualNode
	for rows.Next() {
		n, err := scanManualNode(rows)
		if err != nil {
			return nil, d.classify(err, "read manual nodes from")
		}
		out = append(out, n)
	}
	return out, d.classify(rows.Err(), "read manual nodes from")
}

// Columns are the manual indexes' fields in order (rank.MatchSource): the
// word index's title, text and file name; the trigram index holds the same
// fields in the same order, its text normalised.
func (m *ManualScope) Columns() []rank.Field {
	return []rank.Field{rank.FieldTitle, rank.FieldBody, rank.FieldFileName}
}

// ManualScope is one manual as a source for the ranking engine
// (internal/rank): its word and trigram indexes, with no code shapes and no
// vocabulary of its own.
type ManualScope struct {
	d        *DB
	root     string
	manualID string
}

// Scope returns the ranking source for one manual of the folder.
func (r *ManualRoot) Scope(manualID string) *ManualScope {
	return &ManualScope{d: r.d, root: r.root, manualID: manualID}
}

// Words runs e against the manual's word index, best first by bm25 with
// weights by field in Columns order (the engine's).
func (m *ManualScope) Words(ctx context.Context, e ftsquery.Expr, weights []float64, limit int) ([]rank.Posting, error) {
	return m.match(ctx, "manual_nodes_fts", weights, e, limit)
}

// Literal runs e against the manual's trigram index of normalised text,
// best first by bm25 with weights by field in Columns order (the engine's).
func (m *ManualScope) Literal(ctx context.Context, e ftsquery.Expr, weights []float64, limit int) ([]rank.Posting, error) {
	return m.match(ctx, "manual_nodes_trigram", weights, e, limit)
}

// Substrings finds the nodes holding any of needles as a phrase of the
// manual's trigram index, which keeps positions, best first by bm25 with
// weights by field in Columns order (the engine's).
func (m *ManualScope) Substrings(ctx context.Context, needles []string, weights []float64, limit int) ([]rank.Posting, error) {
	return m.match(ctx, "manual_nodes_trigram", weights, ftsquery.AnyText(needles), limit)
}

// Counts knows no word: manuals keep no vocabulary, so none is dropped as
// common and none is corrected.
func (m *ManualScope) Counts(context.Context, []string) (rank.WordCounts, error) {
	return rank.WordCounts{}, nil
}

// Vocabulary is empty: the store keeps no vocabulary of a manual. The
// manual search counts one from the nodes it holds in memory
// (internal/manual/find, manualSource).
func (m *ManualScope) Vocabulary(context.Context) (*rank.Vocabulary, error) {
	return rank.NewVocabulary(nil), nil
}

// match runs e against table, bm25 with weights (bound as numbers, one a
// field) giving the order and the scores.
func (m *ManualScope) match(ctx context.Context, table string, weights []float64, e ftsquery.Expr, limit int) ([]rank.Posting, error) {
	if e.IsZero() || limit <= 0 {
		return nil, nil
	}
	if len(weights) != len(m.Columns()) {
		// The engine gives a weight for each of Columns; the store has none
		// of its own.
		return nil, apperr.New(apperr.Internal, "", "manual ranking: %d field weights for %d fields", len(weights), len(m.Columns()))
	}
	score := "bm25(" + table + ", ?5, ?6, ?7)"
	// A row is the manual's when its node's file is: two lookups a row,
	// a third of a query matching thousands of rows. When no other manual
	// is indexed every row is the manual's, and they are skipped: that test
	// is worked out once (seeks in the files' index), and OR only works
	// out its right side when its left side is false. The rows, their
	// scores and their order (rows of equal score by id, as the index lists
	// them) are the same either way.
	rows, err := m.d.query(ctx, `SELECT `+table+`.rowid, -`+score+` FROM `+table+`
		WHERE `+table+` MATCH ?1 AND (
			NOT EXISTS (SELECT 1 FROM manual_files WHERE root < ?4) AND NOT EXISTS (SELECT 1 FROM manual_files WHERE root > ?4) AND
			NOT EXISTS (SELECT 1 FROM manual_files WHERE root = ?4 AND manual_id < ?2) AND NOT EXISTS (SELECT 1 FROM manual_files WHERE root = ?4 AND manual_id > ?2)
			OR EXISTS (SELECT 1 FROM manual_nodes n JOIN manual_files f ON f.id = n.file_id WHERE n.id = `+table+`.rowid AND f.root = ?4 AND f.manual_id = ?2))
		ORDER BY `+score+` LIMIT ?3`, e.String(), m.manualID, limit, m.root, weights[0], weights[1], weights[2])
	return m.d.collectPostings(rows, err)
}

// TrigramStats is what FTS5's bm25 reads of the whole manual trigram index
// (every manual's rows, not one manual's) for a query of single trigrams:
// its rows, its trigrams over all columns, and for each trigram the rows
// holding it and its idf. With them and a row's own columns the row's bm25
// can be worked out exactly without the index, which internal/manual/find's
// fuzzy heading lookup does over a manual snapshot.
type TrigramStats struct {
	Rows   int64
	Tokens int64
	Docs   []int64 // by trigram, in the order asked
	// IDF is bm25's idf of each trigram before bm25 raises what is not
	// above zero to 1e-6: ln((Rows - Docs + 0.5) / (Docs + 0.5)), the
	// division and logarithm done by SQLite, so that it is the very
	// double bm25 uses (a logarithm of another library may differ in the
	// last bit, and reorder rows of nearly equal score).
	IDF []float64
}

// ManualTrigramStats returns the manual trigram index's TrigramStats for
// grams, each a string of three characters. Rows and Tokens are where bm25
// reads them, the index's averages record (row 1 of its data table: the row
// count, then the token count of each column, as SQLite varints); ok is
// false when that record is missing or not as described, and the caller
// must then rank through the index itself. The record and the counts are
// read by one statement, so they are of one state of the index.
func (d *DB) ManualTrigramStats(ctx context.Context, grams []string) (st TrigramStats, ok bool, err error) {
	if len(grams) == 0 {
		return st, false, nil
	}
	text := `SELECT (SELECT block FROM manual_nodes_trigram_data WHERE id = 1)`
	args := make([]any, len(grams))
	for i, g := range grams {
		text += fmt.Sprintf(`, (SELECT count(*) FROM manual_nodes_trigram WHERE manual_nodes_trigram MATCH ?%d)`, i+1)
		args[i] = ftsquery.AnyTrigram(g).String()
	}
	var rec []byte
	st.Docs = make([]int64, len(grams))
	dest := []any{&rec}
	for i := range st.Docs {
		dest = append(dest, &st.Docs[i])
	}
	if err := d.scanRow(ctx, text, args, dest...); err != nil {
		return st, false, d.classify(err, "read the manual trigram index of")
	}
	var vals []int64
	for len(rec) > 0 {
		v, n := sqliteVarint(rec)
		if n == 0 {
			return st, false, nil
		}
		vals, rec = append(vals, int64(v)), rec[n:]
	}
	if len(vals) != 1+len(manualTrigramColumns) || vals[0] <= 0 {
		return st, false, nil
	}
	st.Rows = vals[0]
	for _, v := range vals[1:] {
		st.Tokens += v
	}
	docs, _ := json.Marshal(st.Docs)
	rows, err := d.query(ctx, `SELECT ln(((?1 - value) + 0.5) / (value + 0.5)) FROM json_each(?2) ORDER BY key`, st.Rows, string(docs))
	if err != nil {
		return st, false, d.classify(err, "work out idf in")
	}
	defer rows.Close()
	for rows.Next() {
		var idf sql.NullFloat64
		if err := rows.Scan(&idf); err != nil {
			return st, false, d.classify(err, "work out idf in")
		}
		if !idf.Valid {
			return st, false, nil // more rows hold a trigram than the record counts
		}
		st.IDF = append(st.IDF, idf.Float64)
	}
	if err := rows.Err(); err != nil {
		return st, false, d.classify(err, "work out idf in")
	}
	return st, len(st.IDF) == len(grams), nil
}

// scanRow runs a read query through the statement cache and scans its one
// row.
func (d *DB) scanRow(ctx context.Context, text string, args []any, dest ...any) error {
	rows, err := d.query(ctx, text, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// manualTrigramColumns are the manual trigram index's columns in order
// (migration 0003).
var manualTrigramColumns = []string{"title", "norm", "file_name"}

// sqliteVarint decodes the SQLite varint at the start of b (big-endian,
// seven bits a byte while the high bit is set, the ninth byte whole) and
// returns it with its length, 0 when b ends first.
func sqliteVarint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 9 && i < len(b); i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// ManualTrigramRows returns the rows of the manual trigram index (every
// manual's) that hold gram, a string of three characters, in any column,
// by ascending id.
func (d *DB) ManualTrigramRows(ctx context.Context, gram string) ([]int64, error) {
	rows, err := d.query(ctx, `SELECT rowid FROM manual_nodes_trigram WHERE manual_nodes_trigram MATCH ?1`, ftsquery.AnyTrigram(gram).String())
	if err != nil {
		return nil, d.classify(err, "read the manual trigram index of")
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, d.classify(err, "read the manual trigram index of")
		}
		out = append(out, id)
	}
	return out, d.classify(rows.Err(), "read the manual trigram index of")
}
