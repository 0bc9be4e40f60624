package db

import (
	"context"
	"database/sql"
	"path"
	"strings"
	"time"

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
	// One statement for the file's nodes (migration 0004). The trigram
	// index is the only one the store keeps of a manual: the engine builds
	// a manual's word postings from its nodes (migration 0016).
	if _, err := tx.ExecContext(ctx, `INSERT INTO manual_nodes_trigram (rowid, title, norm, file_name)
		SELECT id, title, norm, file_name FROM manual_nodes WHERE file_id = ?`, fileID); err != nil {
		return d.classify(err, "index manual file in")
	}
	return d.classify(tx.Commit(), "index manual file in")
}

// manualIndexes are the full-text indexes over manual nodes (migrations).
var manualIndexes = []string{"manual_nodes_trigram"}

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
