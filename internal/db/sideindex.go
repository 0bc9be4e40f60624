package db

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The literal and shape indexes of a store's first snapshot are built beside
// the writer, on a second connection, in a scratch database.
//
// SQLite writes on one core. At a million sections the writer spent 154 s
// in FTS5 (docs/performance.md), a third of it in the literal and shape
// indexes, while the other core gathered the word postings and then
// waited. A second connection cannot write the store while the writer
// does, but it can build the two indexes in a file of its own; FTS5 keeps
// all of an index in its shadow tables, so copying those rows into an
// empty index of the same definition gives the index that writing it would
// have given — the same bytes (TestSideIndexesAreTheWrittenOnes).
//
// Only an empty index can be replaced by a copy, so this is done only for
// the direct write (directwrite.go): the store is empty and the writer
// holds it alone.

// sideIndexTables are the section indexes built beside the writer.
var sideIndexTables = []string{"sections_trigram", "sections_shapes"}

// sideIndexes builds sideIndexTables for one snapshot in a scratch database
// while the writer does the rest, on a goroutine of its own: the writer
// hands it each batch of rows (add), says when the last is in (build),
// and copies the indexes built into its transaction (copyInto).
type sideIndexes struct {
	path string  // the scratch database
	db   *sql.DB // its one connection
	rows chan []sideRow
	// hashSize is the FTS5 hash size to build with, and after what the
	// goroutine waits for before it builds; both set by build.
	hashSize int
	after    <-chan struct{}
	// built is closed when the goroutine has ended, with err its failure;
	// cancel stops it.
	built  chan struct{}
	err    error
	cancel context.CancelFunc
	// rowsClosed says rows is closed.
	rowsClosed bool
}

// sideRow is what the side indexes hold of one section, under its id in
// the store.
type sideRow struct {
	id                            int64
	title, path, literals, shapes string
}

// openSideIndexes makes the scratch database beside the store, with the
// definitions and settings of the store's own indexes, which it reads on
// conn, the writer's connection.
func (d *DB) openSideIndexes(ctx context.Context, conn *sql.Conn) (_ *sideIndexes, err error) {
	// Named after the store, so that one left by a killed process is known
	// as the store's and removed by its next direct write (removeSideLeftovers).
	f, err := os.CreateTemp(filepath.Dir(d.path), filepath.Base(d.path)+sideFileInfix+"*.tmp")
	if err != nil {
		return nil, err
	}
	s := &sideIndexes{path: f.Name(), built: make(chan struct{}), cancel: func() {}}
	if err := f.Close(); err != nil {
		os.Remove(s.path)
		return nil, err
	}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	// A throwaway file: no journal and no syncs. The page size is the
	// store's, for the same long rows.
	q := url.Values{}
	for _, p := range []string{"page_size(16384)", "journal_mode(OFF)", "synchronous(OFF)"} {
		q.Add("_pragma", p)
	}
	s.db, err = sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(s.path)}).String()+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	s.db.SetMaxOpenConns(1)
	if err := copyIndexDefinitions(ctx, conn, s.db); err != nil {
		return nil, err
	}
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE pending (id INTEGER PRIMARY KEY, title TEXT NOT NULL,
		section_path TEXT NOT NULL, literals TEXT NOT NULL, shapes TEXT NOT NULL)`); err != nil {
		return nil, err
	}
	ctx, s.cancel = context.WithCancel(ctx)
	s.rows = make(chan []sideRow, batchesAhead)
	go func() {
		defer close(s.built)
		s.err = s.run(ctx)
	}()
	return s, nil
}

// sideFileInfix is between the store's file name and the random part of a
// scratch database's.
const sideFileInfix = ".index-"

// copyIndexDefinitions creates sideIndexTables in side as the store defines
// them, with the settings the store keeps in their _config tables, set as
// the store's were: through FTS5, which counts each change in the index
// (its cookie), so that the copy holds the count the store's would.
func copyIndexDefinitions(ctx context.Context, store *sql.Conn, side *sql.DB) error {
	for _, t := range sideIndexTables {
		var def string
		if err := store.QueryRowContext(ctx, `SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?`, t).Scan(&def); err != nil {
			return fmt.Errorf("%s: read its definition: %w", t, err)
		}
		if _, err := side.ExecContext(ctx, def); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		rows, err := store.QueryContext(ctx, `SELECT k, v FROM main.`+t+`_config WHERE k <> 'version'`)
		if err != nil {
			return fmt.Errorf("%s: read its settings: %w", t, err)
		}
		var config [][2]any
		for rows.Next() {
			var kv [2]any
			if err := rows.Scan(&kv[0], &kv[1]); err != nil {
				rows.Close()
				return err
			}
			config = append(config, kv)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, kv := range config {
			if _, err := side.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`, rank) VALUES (?, ?)`, kv[0], kv[1]); err != nil {
				return fmt.Errorf("%s: %w", t, err)
			}
		}
	}
	return nil
}

// others is tables without those s builds; all of them when s is nil.
func (s *sideIndexes) others(tables []string) []string {
	if s == nil {
		return tables
	}
	return slices.DeleteFunc(slices.Clone(tables), func(t string) bool { return slices.Contains(sideIndexTables, t) })
}

// add hands the goroutine the next rows. It fails when the goroutine has
// ended early: its error.
func (s *sideIndexes) add(ctx context.Context, rows []sideRow) error {
	select {
	case s.rows <- rows:
		return nil
	case <-s.built:
		return fmt.Errorf("side indexes: %w", s.err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// build says the last rows are in: the goroutine indexes them with FTS5
// hash size hashSize once after is closed.
//
// The writer's own index is the longest of the work left, and the words
// (snapshotWords) and these indexes take about as long together as it does
// alone. Run at once, the three shared the two cores: at a million
// sections the other two were done 28 s before the writer's index, and one
// core worked alone for the last minute of the write. So the writer keeps
// a core, and the words and these indexes take turns on the other (after:
// the words read); the writer merges its index while these are finished
// (publishOn). See docs/performance.md.
func (s *sideIndexes) build(hashSize int, after <-chan struct{}) {
	s.hashSize, s.after = hashSize, after
	s.closeRows()
}

func (s *sideIndexes) closeRows() {
	if !s.rowsClosed {
		s.rowsClosed = true
		close(s.rows)
	}
}

// run stores the rows as they come, in one transaction, and once they are
// all in indexes them with the bulk settings the writer indexes its own
// with (indexSnapshot), merging each index into one segment, as
// mergeIndexes does.
func (s *sideIndexes) run(ctx context.Context) error {
	if err := s.storeRows(ctx); err != nil {
		return err
	}
	select {
	case <-s.after:
	case <-ctx.Done():
		return ctx.Err()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	err = withBulkMerging(ctx, tx, s.hashSize, sideIndexTables, func() error {
		for _, q := range []string{
			`INSERT INTO sections_trigram (rowid, title, section_path, literals) SELECT id, title, section_path, literals FROM pending ORDER BY id`,
			`INSERT INTO sections_shapes (rowid, shapes) SELECT id, shapes FROM pending ORDER BY id`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := mergeIndexes(ctx, tx, sideIndexTables); err != nil {
		return err
	}
	return tx.Commit()
}

// storeRows writes the rows handed over into the pending table until the
// channel is closed.
func (s *sideIndexes) storeRows(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	insert, err := tx.PrepareContext(ctx, `INSERT INTO pending (id, title, section_path, literals, shapes) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	for rows := range s.rows {
		for _, r := range rows {
			if _, err := insert.ExecContext(ctx, r.id, r.title, r.path, r.literals, r.shapes); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// wait waits for build to end and returns its error.
func (s *sideIndexes) wait() error {
	<-s.built
	return s.err
}

// copyInto replaces the store's sideIndexTables, which must be empty, with
// the ones built, in the writer's transaction tx: every shadow table,
// _config too (its settings are the store's, see copyIndexDefinitions).
// The rows go through Go: the writer cannot attach the scratch database,
// since SQLite attaches none in a transaction, and the writer's
// transaction would lock it if attached before.
func (s *sideIndexes) copyInto(ctx context.Context, tx *sql.Tx) error {
	if err := s.wait(); err != nil {
		return fmt.Errorf("side indexes: %w", err)
	}
	for _, t := range sideIndexTables {
		shadows, err := shadowTables(ctx, tx, t)
		if err != nil {
			return err
		}
		for _, shadow := range shadows {
			if err := s.copyTable(ctx, tx, shadow); err != nil {
				return fmt.Errorf("%s: %w", shadow, err)
			}
		}
	}
	return nil
}

// shadowTables are the names of FTS5 table t's shadow tables in the store.
func shadowTables(ctx context.Context, tx *sql.Tx, t string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE ? ESCAPE '\'`,
		strings.ReplaceAll(t, "_", `\_`)+`\_%`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var shadows []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		shadows = append(shadows, name)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(shadows) == 0 {
		return nil, fmt.Errorf("%s: no shadow tables", t)
	}
	return shadows, nil
}

// copyTable replaces the rows of the store's table name with the scratch
// database's. name comes from the store's own schema, never from input.
func (s *sideIndexes) copyTable(ctx context.Context, tx *sql.Tx, name string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+name); err != nil {
		return err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT * FROM `+name)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	insert, err := tx.PrepareContext(ctx, `INSERT INTO `+name+` VALUES (?`+strings.Repeat(", ?", len(cols)-1)+`)`)
	if err != nil {
		return err
	}
	defer insert.Close()
	values := make([]any, len(cols))
	dest := make([]any, len(cols))
	for i := range values {
		dest[i] = &values[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		for i, v := range values {
			// An empty blob reads as a nil slice, which the driver would
			// bind as NULL (the first term of each _idx page is empty).
			if b, ok := v.([]byte); ok && b == nil {
				values[i] = []byte{}
			}
		}
		if _, err := insert.ExecContext(ctx, values...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// close ends the scratch database: its goroutine stopped, its connection
// closed, its file removed. s may be nil.
func (s *sideIndexes) close() {
	if s == nil {
		return
	}
	s.cancel()
	if s.rows != nil {
		s.closeRows()
		<-s.built
	}
	if s.db != nil {
		s.db.Close()
	}
	os.Remove(s.path)
}

// removeSideLeftovers removes the scratch databases a killed process left
// beside the store. It is called only while this process holds the store
// alone, so none of them is still being written; one that cannot be
// removed is left for the next time, as it takes only disk space.
func (d *DB) removeSideLeftovers() {
	dir, prefix := filepath.Dir(d.path), filepath.Base(d.path)+sideFileInfix
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".tmp") && e.Type().IsRegular() {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}
