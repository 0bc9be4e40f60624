package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"

	"modernc.org/sqlite"
)

// The first snapshot a store takes is written without the WAL when nothing
// else has the file open.
//
// In WAL mode every page is written twice: into the WAL during the
// transaction, and from there into the database at the checkpoint after
// it. A million sections make a 4 GB database, so the checkpoint alone took
// 24 s of a 5 min 37 s ingest (docs/performance.md). SQLite's rollback
// journal writes a page once, into the file, and journals only what the
// file held before the transaction: of an empty store, next to nothing.
// What the WAL gives in exchange is readers beside the writer, and a store
// that holds no sections yet has nothing to read. So a write into an empty
// store takes the file for itself instead:
//
//   - the writer's connection takes an exclusive lock (locking_mode
//     EXCLUSIVE) and leaves WAL mode (journal_mode DELETE), which SQLite
//     allows only while no other connection, in any process, has the file
//     open; when one has, the write goes through the WAL as any other;
//   - while it writes, another process that opens the store waits for the
//     lock (busy_timeout) and then reports the store busy;
//   - after the commit, or the rollback, the file goes back to WAL mode and
//     the connection is discarded, so none of its settings outlive the
//     write. A process killed in the middle leaves a hot journal, which the
//     next connection to open the file plays back before it sets WAL mode
//     again (TestKilledFirstIngest).

// writer is the connection a snapshot is written on.
type writer struct {
	conn *sql.Conn
	pool *sql.DB // where conn came from
	// direct: the connection holds the file alone and writes it through a
	// rollback journal (see above).
	direct bool
}

// takeWriter returns the connection to write a snapshot on.
func (d *DB) takeWriter(ctx context.Context) (writer, error) {
	empty, err := storeEmpty(ctx, d.sql)
	if err != nil || !empty || d.readOnly {
		return d.walWriter(ctx, err)
	}
	// This process's other connections hold the file open too: the memo's
	// (it opens another when next asked) and the pools' idle ones (a pool
	// opens new ones as needed).
	d.memo.close()
	d.sql.SetMaxIdleConns(0)
	d.sql.SetMaxIdleConns(maxIdleConns)
	if d.reads != nil {
		d.reads.SetMaxIdleConns(0)
		d.reads.SetMaxIdleConns(d.readConns)
	}
	conn, err := d.sql.Conn(ctx)
	if err != nil {
		return writer{}, err
	}
	mode, err := leaveWAL(ctx, conn)
	if err == nil && mode == "delete" {
		// Asked again now that nobody else can write: another process may
		// have written between the first question and the lock.
		w := writer{conn: conn, pool: d.sql, direct: true}
		if empty, err = storeEmpty(ctx, conn); err == nil && empty {
			return w, nil
		}
		w.release(ctx)
		return d.walWriter(ctx, err)
	}
	// Another connection has the file open: the write goes through the WAL,
	// on a fresh connection, since this one asked for an exclusive lock.
	discard(conn)
	if isBusy(err) {
		err = nil
	}
	return d.walWriter(ctx, err)
}

// walWriter returns a connection that writes through the WAL, unless err.
func (d *DB) walWriter(ctx context.Context, err error) (writer, error) {
	if err != nil {
		return writer{}, err
	}
	conn, err := d.sql.Conn(ctx)
	return writer{conn: conn, pool: d.sql}, err
}

// storeEmpty asks q whether the store is empty (storeIsEmpty).
func storeEmpty(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var empty bool
	err := q.QueryRowContext(ctx, storeIsEmpty).Scan(&empty)
	return empty, err
}

// storeIsEmpty asks whether the index holds nothing anyone could read: no
// document, no manual. (Tokens and secrets live in the state file, db.State;
// an older index's, not yet moved there, are kept through a direct write as
// through any other.)
const storeIsEmpty = `SELECT NOT EXISTS (SELECT 1 FROM snapshots) AND NOT EXISTS (SELECT 1 FROM manual_files)`

// leaveWAL asks for the file alone and for a rollback journal, and returns
// the journal mode SQLite settled on. synchronous goes to FULL: NORMAL is
// safe in WAL mode only, and one transaction syncs only a few times.
func leaveWAL(ctx context.Context, conn *sql.Conn) (string, error) {
	for _, pragma := range []string{`PRAGMA locking_mode = EXCLUSIVE`, `PRAGMA synchronous = FULL`} {
		if _, err := conn.ExecContext(ctx, pragma); err != nil {
			return "", err
		}
	}
	var mode string
	err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode)
	return strings.ToLower(mode), err
}

// release gives the connection back once the snapshot's transaction has
// ended. A direct writer's file goes back to WAL mode, whatever ctx says:
// the write is over. The writer's own connection may fail to: when a
// cancelled context ended the write, database/sql rolls the transaction
// back on a goroutine of its own, which may not have finished, and the
// driver refuses a connection SQLite still marks interrupted. A CI run
// under load left the file in rollback mode so. Then, once that
// connection has let go of the file, a fresh one sets WAL mode.
func (w writer) release(ctx context.Context) {
	if !w.direct {
		w.conn.Close()
		return
	}
	ctx = context.WithoutCancel(ctx)
	_, err := w.conn.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
	discard(w.conn)
	if err == nil {
		return
	}
	if conn, err := w.pool.Conn(ctx); err == nil {
		_, _ = conn.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
		conn.Close()
	}
}

// discard closes conn for good instead of giving it back to the pool.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

// isBusy reports SQLite's answer when another connection holds a lock.
func isBusy(err error) bool {
	se, ok := errors.AsType[*sqlite.Error](err)
	return ok && (se.Code()&0xff == sqliteBUSY || se.Code()&0xff == sqliteLOCKED)
}
