// Package db is langspec's store: one SQLite file holding documents, their
// versions (snapshots) and sections, with a word index and a trigram index.
//
// It is the only package that speaks SQL. Callers get typed rows and
// *apperr.Error values; SQL error strings never leave this package.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/rank"
	"github.com/langspec/langspec/internal/rank/wordindex"
	"github.com/langspec/langspec/internal/text/shape"
	"github.com/langspec/langspec/migrations"
)

// DB is an open store. It is safe for concurrent use.
type DB struct {
	sql *sql.DB
	// reads, when set (UseReadPool), is the pool the read queries go
	// through (query): readConns connections that cannot write.
	reads     *sql.DB
	readConns int
	path      string
	readOnly  bool
	stmts     stmtCache
	memo      memo
	vocab     snapshotCache[*rank.Vocabulary]
	layouts   snapshotCache[*wordindex.Snapshot]
	closeOnce sync.Once
	closeErr  error
}

// dsn builds the connection string. Pragmas go in the DSN rather than one Exec
// because database/sql pools connections and each new one must get them:
//   - busy_timeout first, so that even switching to WAL waits for a lock;
//   - WAL so readers never block on (or are blocked by) an ingest writing;
//   - foreign_keys so deleting a snapshot takes its sections with it;
//   - synchronous NORMAL is durable enough in WAL mode and much faster;
//   - _txlock=immediate makes every write transaction take the write lock at
//     BEGIN, so two writers queue on busy_timeout instead of one failing with
//     SQLITE_BUSY when it tries to upgrade a read lock.
func dsn(path string, readOnly bool) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	q := url.Values{}
	if readOnly {
		// A file that cannot be written (shipped read-only, a read-only
		// mount) is opened immutable: SQLite then takes no locks and needs
		// no -wal or -shm file beside it, which it could not create.
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("mode", "ro")
		q.Set("immutable", "1")
		return u.String() + "?" + q.Encode()
	}
	// page_size counts only when the file is created, before WAL mode is
	// set: a section row is one to two kilobytes, and on 4 KiB pages a
	// quarter of the sections table was left unused (docs/performance.md).
	// The driver runs _pragma values in sorted order, so WAL is set with its
	// own key, which it runs after them. (auto_vacuum, which must follow
	// page_size, is set by migrate.)
	for _, p := range []string{"busy_timeout(10000)", "page_size(16384)", "foreign_keys(1)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	q.Set("_journal_mode", "WAL")
	q.Set("_txlock", "immediate")
	return u.String() + "?" + q.Encode()
}

// Open opens (creating if needed) the store at path and applies pending
// migrations. A relative path is taken from the working directory. An
// existing file that cannot be written, or whose folder cannot be, is opened
// read-only (ReadOnly reports it): searches work, writes fail with
// unavailable. Errors: apperr.CorruptDatabase when the file is not a
// langspec SQLite database, apperr.Unavailable when it cannot be created or
// opened, or is read-only and older than this langspec.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" {
		return nil, apperr.New(apperr.InvalidArgument, "pass --db PATH or set LANGSPEC_DB", "no database path")
	}
	// SQLite reads "file://sub/x.db" as host "sub": the URI needs an
	// absolute path.
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "pass --db with an absolute path", "cannot resolve database path %s", path)
	}
	return open(ctx, abs, !writable(abs))
}

// OpenReadOnly opens the existing store at path read-only, whatever its
// permissions: nothing is ever written to it, not even migrations (a store
// older than this langspec is refused). For a server that reads an index
// built elsewhere. Errors: those of Open, and not_found when path does not
// exist.
func OpenReadOnly(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "pass --db with an absolute path", "cannot resolve database path %s", path)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, apperr.Wrap(err, apperr.NotFound, "build the index first (langspec ingest …), or point --db at it", "no database at %s", abs)
	}
	return open(ctx, abs, true)
}

// open opens the store at an absolute path, read-only or not.
func open(ctx context.Context, path string, readOnly bool) (*DB, error) {
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, apperr.Wrap(err, apperr.Unavailable, "pass --db with a writable location",
				"cannot create the database folder %s", filepath.Dir(path))
		}
	}
	sqlDB, err := sql.Open("sqlite", dsn(path, readOnly))
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "", "cannot open database %s", path)
	}
	// A search runs its ranking channels at once (internal/rank), several
	// connections at a time; keeping them idle instead of the default two
	// spares each search the cost of opening a connection.
	sqlDB.SetMaxIdleConns(maxIdleConns)
	d := &DB{sql: sqlDB, path: path, readOnly: readOnly}
	if readOnly {
		err = d.checkMigrated(ctx)
	} else {
		err = d.migrate(ctx)
	}
	if err != nil {
		sqlDB.Close()
		return nil, d.classify(err, "open database")
	}
	return d, nil
}

// maxIdleConns is how many pooled connections stay open between queries.
const maxIdleConns = 8

// writable reports whether the store at path can be written: a new file
// can be created (Open then reports any failure), or the file opens for
// writing and its folder takes new files (SQLite's -wal and -shm).
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	f.Close()
	probe, err := os.CreateTemp(filepath.Dir(path), ".langspec-probe-*")
	if err != nil {
		return false
	}
	probe.Close()
	os.Remove(probe.Name())
	return true
}

// ReadOnly reports that the store was opened read-only: it can be searched,
// and every write fails with unavailable.
func (d *DB) ReadOnly() bool { return d.readOnly }

// checkMigrated refuses a read-only store that lacks a migration: it
// cannot be brought up to date, and queries would fail on missing tables.
func (d *DB) checkMigrated(ctx context.Context) error {
	applied, err := d.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	if err := d.refuseNewer(applied, names); err != nil {
		return err
	}
	for _, name := range names {
		if !applied[name] {
			return apperr.New(apperr.Unavailable, "open it once with write access so langspec can update it, or pass --db with another path",
				"database %s is read-only and lacks migration %s", d.path, name)
		}
	}
	return nil
}

// refuseNewer refuses a store a newer langspec has migrated: its tables are
// not the ones this version reads (a table dropped, another added), and
// every query would fail as if the file were not a langspec database at
// all — whose hint, moving the file away, would lose what it holds.
func (d *DB) refuseNewer(applied map[string]bool, known []string) error {
	for _, name := range slices.Sorted(maps.Keys(applied)) {
		if !slices.Contains(known, name) {
			return apperr.New(apperr.Unavailable, "use that langspec or a newer one ('langspec version' shows this one's), or pass --db with another path; the file is left as it is",
				"database %s was written by a newer langspec: it holds migration %s, which this version does not know", d.path, name)
		}
	}
	return nil
}

// Close releases the connections.
func (d *DB) Close() error {
	// Once: a replica's first index is closed when a newer one replaces it
	// and again by the app that opened it, at exit.
	d.closeOnce.Do(func() {
		d.memo.close()
		d.stmts.close()
		if d.reads != nil {
			d.reads.Close()
		}
		d.closeErr = d.sql.Close()
	})
	return d.closeErr
}

// UseReadPool has the store's read queries — every search's — go through
// a pool of n connections that cannot write (SQLite's query_only), and
// never more than n at once; everything that writes keeps the store's
// own pool. For a server whose requests share the store: with a
// connection a query, 32 clients searching at once shared two cores among
// every search in flight, and the slowest hundredth of the calls took
// 1.4–1.7 times as long as with a pool the size of the cores
// (docs/performance.md, "A read pool the size of the cores"). No read
// query holds its connection while it waits for another, so a small pool
// delays a search and never deadlocks it.
//
// Call it once, right after Open, before the store is shared: the
// statements prepared so far are dropped, so that each read is prepared
// on the new pool. Errors: apperr.InvalidArgument when n is below one,
// apperr.Unavailable when the pool cannot be opened.
func (d *DB) UseReadPool(n int) error {
	if n < 1 {
		return apperr.New(apperr.InvalidArgument, "pass one or more", "a read pool of %d connections", n)
	}
	pool, err := sql.Open("sqlite", readPoolDSN(dsn(d.path, d.readOnly)))
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "", "cannot open database %s", d.path)
	}
	pool.SetMaxOpenConns(n)
	pool.SetMaxIdleConns(n)
	d.stmts.close()
	if d.reads != nil {
		d.reads.Close()
	}
	d.reads, d.readConns = pool, n
	return nil
}

// readPool is where the read queries go: the read pool when there is one.
func (d *DB) readPool() *sql.DB {
	if d.reads != nil {
		return d.reads
	}
	return d.sql
}

// readPoolDSN is a DSN of the store's with query_only set: a connection
// of the read pool refuses any write, whatever a query asks.
func readPoolDSN(dsn string) string {
	return dsn + "&_pragma=query_only(1)"
}

// Path is the file the store lives in.
func (d *DB) Path() string { return d.path }

// reclaimableWhenNew makes a new, still empty store keep track of its free
// pages, so that a write can give them back to the file system
// (reclaimFreePages). The setting takes only before the file's first page
// is written, which setting it writes (so the DSN cannot set it after
// page_size), or through a VACUUM, which of an empty file costs nothing:
// both on one connection, whose setting the VACUUM reads.
func (d *DB) reclaimableWhenNew(ctx context.Context) error {
	conn, err := d.sql.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var tables, mode int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema`).Scan(&tables); err != nil {
		return err
	}
	if err := conn.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&mode); err != nil {
		return err
	}
	if tables > 0 || mode == autoVacuumIncremental {
		return nil
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `VACUUM`)
	return err
}

// autoVacuumIncremental is PRAGMA auto_vacuum's value for INCREMENTAL.
const autoVacuumIncremental = 2

// migrate applies the files of migrations.FS that are not yet recorded, in
// lexical order, one transaction each. Each transaction re-checks the record so
// two processes opening a new database at once apply every file exactly once.
func (d *DB) migrate(ctx context.Context) error {
	if err := d.reclaimableWhenNew(ctx); err != nil {
		return err
	}
	if _, err := d.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	applied, err := d.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		return fmt.Errorf("list migrations: %w", err)
	}
	slices.Sort(names)
	if err := d.refuseNewer(applied, names); err != nil {
		return err
	}
	for _, name := range names {
		if applied[name] {
			continue
		}
		if err := d.applyMigration(ctx, name); err != nil {
			return err
		}
	}
	return nil
}

func (d *DB) appliedMigrations(ctx context.Context) (map[string]bool, error) {
	rows, err := d.sql.QueryContext(ctx, `SELECT name FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("read schema_migrations: %w", err)
		}
		out[name] = true
	}
	return out, rows.Err()
}

// migrationSteps are what a migration needs done that SQL cannot do, run
// right after its file in the same transaction.
var migrationSteps = map[string]func(context.Context, *sql.Tx) error{
	"0004_index_storage.sql": fillLiterals,
	"0006_word_postings.sql": fillWordPostings,
	"0007_word_skips.sql":    fillWordSkips,
	"0015_state_apart.sql":   dropEmptyLegacyState,
}

// dropEmptyLegacyState drops the old token and secret tables that hold
// nothing (every new index, and an old one that never had a token): only
// those with rows wait for the state file to take them (State.Adopt).
func dropEmptyLegacyState(ctx context.Context, tx *sql.Tx) error {
	for _, table := range []string{"legacy_api_tokens", "legacy_secrets"} {
		var rows int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&rows); err != nil {
			return err
		}
		if rows == 0 {
			if _, err := tx.ExecContext(ctx, `DROP TABLE `+table); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillLiterals writes the literals (text/shape.Literals) of the sections
// stored before migration 0004, with no trigger on sections yet: 0005 then
// indexes them all at once.
func fillLiterals(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, `SELECT id, body FROM sections`)
	if err != nil {
		return err
	}
	type literal struct {
		id   int64
		text string
	}
	var all []literal
	for rows.Next() {
		var id int64
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			rows.Close()
			return err
		}
		if l := shape.Literals(body); l != "" {
			all = append(all, literal{id, l})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, `UPDATE sections SET literals = ? WHERE id = ?`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, l := range all {
		if _, err := stmt.ExecContext(ctx, l.text, l.id); err != nil {
			return err
		}
	}
	return nil
}

func (d *DB) applyMigration(ctx context.Context, name string) error {
	body, err := migrations.FS.ReadFile(name)
	if err != nil {
		return fmt.Errorf("read migration %q: %w", name, err)
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate %q: %w", name, err)
	}
	defer tx.Rollback()
	var done int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&done); err != nil {
		return fmt.Errorf("migrate %q: %w", name, err)
	}
	if done > 0 {
		return nil // another process got there first
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return fmt.Errorf("migrate %q: %w", name, err)
	}
	if step := migrationSteps[name]; step != nil {
		if err := step(ctx, tx); err != nil {
			return fmt.Errorf("migrate %q: %w", name, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`,
		name, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return fmt.Errorf("migrate %q: %w", name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate %q: %w", name, err)
	}
	return nil
}

// Primary SQLite result codes (stable C ABI numbers); the driver reports
// extended codes, whose low byte is the primary one.
const (
	sqlitePERM     = 3
	sqliteBUSY     = 5
	sqliteLOCKED   = 6
	sqliteREADONLY = 8
	sqliteIOERR    = 10
	sqliteCORRUPT  = 11
	sqliteCANTOPEN = 14
	sqliteNOTADB   = 26

	// sqliteCONSTRAINTUNIQUE is an extended code: a UNIQUE constraint
	// failed.
	sqliteCONSTRAINTUNIQUE = 2067
)

// classify turns a driver error into an apperr.Error a user can act on. The
// SQL text stays in the cause, for logs, and out of the message.
func (d *DB) classify(err error, doing string) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if se, ok := errors.AsType[*sqlite.Error](err); ok {
		switch se.Code() & 0xff {
		case sqliteNOTADB, sqliteCORRUPT:
			return apperr.Wrap(err, apperr.CorruptDatabase,
				"move the file away (langspec recreates it) or pass --db with another path",
				"%s is not a usable langspec database", d.path)
		case sqliteREADONLY:
			return apperr.Wrap(err, apperr.Unavailable, "it can be searched; to change it, give langspec write access to the file and its folder or pass --db with another path",
				"cannot %s: database %s is read-only", doing, d.path)
		case sqliteCANTOPEN, sqlitePERM, sqliteIOERR:
			return apperr.Wrap(err, apperr.Unavailable, "check the file's permissions or pass --db with another path",
				"cannot %s %s", doing, d.path)
		case sqliteBUSY, sqliteLOCKED:
			return apperr.Wrap(err, apperr.Unavailable, "another langspec process holds the write lock; try again",
				"database %s is busy", d.path)
		}
	}
	if strings.Contains(err.Error(), "no such table") {
		return apperr.Wrap(err, apperr.CorruptDatabase, "move the file away or pass --db with another path",
			"%s is not a langspec database", d.path)
	}
	return apperr.Wrap(err, apperr.Internal, "", "cannot %s", doing)
}

// SchemaState is what migrations have done to a database: the applied
// migration names and SQLite's schema cookie, which changes with any DDL.
type SchemaState struct {
	Migrations    string
	SchemaVersion int
}

// SchemaState reads the database's SchemaState.
func (d *DB) SchemaState(ctx context.Context) (SchemaState, error) {
	var s SchemaState
	err := d.sql.QueryRowContext(ctx, `SELECT coalesce(group_concat(name || '@' || applied_at, ' '), '') FROM
		(SELECT name, applied_at FROM schema_migrations ORDER BY name)`).Scan(&s.Migrations)
	if err == nil {
		err = d.sql.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&s.SchemaVersion)
	}
	return s, d.classify(err, "read schema of")
}

// IntegrityCheck runs SQLite's integrity check and both FTS5 indexes' own
// checks. Errors: apperr.CorruptDatabase describing the first problem.
func (d *DB) IntegrityCheck(ctx context.Context) error {
	var res string
	if err := d.sql.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&res); err != nil {
		return d.classify(err, "check")
	}
	if res != "ok" {
		return apperr.New(apperr.CorruptDatabase, "move the file away; langspec recreates it", "%s: %s", d.path, res)
	}
	for _, table := range []string{"sections_fts", "sections_trigram", "sections_shapes", "manual_nodes_trigram"} {
		if _, err := d.sql.ExecContext(ctx, `INSERT INTO `+table+` (`+table+`) VALUES ('integrity-check')`); err != nil {
			return apperr.Wrap(err, apperr.CorruptDatabase, "move the file away; langspec recreates it",
				"%s: index %s does not match the sections", d.path, table)
		}
	}
	return nil
}

// Ping checks that the database answers: the team server's health.
func (d *DB) Ping(ctx context.Context) error {
	var one int
	return d.classify(d.sql.QueryRowContext(ctx, `SELECT 1`).Scan(&one), "ping the database")
}
