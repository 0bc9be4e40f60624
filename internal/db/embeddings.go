package db

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
)

// SectionText is a section's title and text, as the semantic channel
// embeds them.
type SectionText struct {
	Title, Body string
}

// SnapshotTexts returns the sections of language/doc at version, in
// document order.
func (d *DB) SnapshotTexts(ctx context.Context, language, doc, version string) ([]SectionText, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT s.title, s.body FROM sections s
		JOIN snapshots n ON n.id = s.snapshot_id JOIN documents m ON m.id = n.document_id
		WHERE m.language = ? AND m.doc = ? AND n.version = ? ORDER BY s.ord`, language, doc, version)
	if err != nil {
		return nil, d.classify(err, "read sections of")
	}
	defer rows.Close()
	var out []SectionText
	for rows.Next() {
		var t SectionText
		if err := rows.Scan(&t.Title, &t.Body); err != nil {
			return nil, d.classify(err, "read sections of")
		}
		out = append(out, t)
	}
	return out, d.classify(rows.Err(), "read sections of")
}

// HaveVectors says which of hashes have a vector of model.
func (d *DB) HaveVectors(ctx context.Context, model string, hashes []string) (map[string]bool, error) {
	list, _ := json.Marshal(hashes) // []string always marshals
	rows, err := d.sql.QueryContext(ctx, `SELECT content_hash FROM embeddings WHERE model = ? AND content_hash IN (SELECT value FROM json_each(?))`, model, string(list))
	if err != nil {
		return nil, d.classify(err, "read vectors")
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, d.classify(err, "read vectors")
		}
		have[h] = true
	}
	return have, d.classify(rows.Err(), "read vectors")
}

// PutVectors stores vectors of model by content hash, in one transaction.
func (d *DB) PutVectors(ctx context.Context, model string, vecs map[string][]float32) error {
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return d.classify(err, "store vectors")
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO embeddings (model, content_hash, dims, vector) VALUES (?, ?, ?, ?)`)
	if err != nil {
		return d.classify(err, "store vectors")
	}
	defer stmt.Close()
	for h, v := range vecs {
		if _, err := stmt.ExecContext(ctx, model, h, len(v), EncodeVector(v)); err != nil {
			return d.classify(err, "store vectors")
		}
	}
	return d.classify(tx.Commit(), "store vectors")
}

// VectorCount is how many vectors of model are stored.
func (d *DB) VectorCount(ctx context.Context, model string) (int, error) {
	var n int
	err := d.sql.QueryRowContext(ctx, `SELECT count(*) FROM embeddings WHERE model = ?`, model).Scan(&n)
	return n, d.classify(err, "count vectors")
}

// EncodeVector is v as float32 little-endian.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads what EncodeVector wrote.
func DecodeVector(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// SnapshotIDs are the snapshots the scope searches.
func (s *Scoped) SnapshotIDs() []int64 {
	out := make([]int64, 0, len(s.set.byID))
	for id := range s.set.byID {
		out = append(out, id)
	}
	return out
}

// Store is the database the scope reads.
func (s *Scoped) Store() *DB { return s.d }

// RowText is a section row's id, title and text.
type RowText struct {
	ID          int64
	Title, Body string
}

// SnapshotRows returns every section of snapshot id with its title and
// text.
func (d *DB) SnapshotRows(ctx context.Context, id int64) ([]RowText, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT id, title, body FROM sections WHERE snapshot_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, d.classify(err, "read sections of")
	}
	defer rows.Close()
	var out []RowText
	for rows.Next() {
		var r RowText
		if err := rows.Scan(&r.ID, &r.Title, &r.Body); err != nil {
			return nil, d.classify(err, "read sections of")
		}
		out = append(out, r)
	}
	return out, d.classify(rows.Err(), "read sections of")
}

// Vectors returns the stored vectors of model for hashes.
func (d *DB) Vectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error) {
	list, _ := json.Marshal(hashes) // []string always marshals
	rows, err := d.sql.QueryContext(ctx, `SELECT content_hash, vector FROM embeddings WHERE model = ? AND content_hash IN (SELECT value FROM json_each(?))`, model, string(list))
	if err != nil {
		return nil, d.classify(err, "read vectors")
	}
	defer rows.Close()
	out := map[string][]float32{}
	for rows.Next() {
		var h string
		var b []byte
		if err := rows.Scan(&h, &b); err != nil {
			return nil, d.classify(err, "read vectors")
		}
		out[h] = DecodeVector(b)
	}
	return out, d.classify(rows.Err(), "read vectors")
}
