package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/migrations"
)

// State is what a server writes while it serves, kept apart from the index
// (../shared/ARCHITECTURE.md): the team server's tokens and the secrets of
// upstream servers. The index is written only by ingest and is safe to copy
// to replicas; the state has one writer, its own SQLite file
// ($XDG_STATE_HOME/langspec/state.db, or --state), so that shipping a new
// index never loses a revocation and a revocation never needs a new index.
// A replica reads the state file it is given (StateFile follows it when it
// is replaced).
type State struct {
	sql      *sql.DB
	path     string
	readOnly bool
}

// OpenState opens (creating if needed) the state file at path and applies
// its pending migrations; an existing file that cannot be written is opened
// read-only (a replica's copy). Errors: apperr.CorruptDatabase when the
// file is not a state file, apperr.Unavailable when it cannot be opened.
func OpenState(ctx context.Context, path string) (*State, error) {
	return openState(ctx, path, false)
}

// OpenStateReadOnly opens the existing state file at path read-only, as a
// replica does: nothing is made or written, not even its folder. Errors:
// apperr.NotFound when there is no file; those of OpenState.
func OpenStateReadOnly(ctx context.Context, path string) (*State, error) {
	return openState(ctx, path, true)
}

func openState(ctx context.Context, path string, readOnly bool) (*State, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "pass --state with an absolute path", "cannot resolve state path %s", path)
	}
	if readOnly {
		if _, err := os.Stat(abs); err != nil {
			return nil, apperr.Wrap(err, apperr.NotFound, "copy the writer's state file there, or pass --state with the file the writer keeps",
				"no state file at %s", abs)
		}
	}
	readOnly = readOnly || !writable(abs)
	if !readOnly {
		if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
			return nil, apperr.Wrap(err, apperr.Unavailable, "pass --state with a writable location", "cannot create the state folder %s", filepath.Dir(abs))
		}
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	q := url.Values{}
	for _, p := range []string{"busy_timeout(10000)", "synchronous(NORMAL)"} {
		q.Add("_pragma", p)
	}
	if readOnly {
		// Read-only, but not immutable as a shipped index is: the writer's
		// commits (a revocation) must be seen at the next read.
		q.Set("mode", "ro")
	} else {
		// A rollback journal, not WAL: the state is written rarely (a
		// token made or revoked, a secret set), and after each commit the
		// one file is whole — what a replica is shipped with cp or rsync,
		// and what a read-only opener can read without a -shm beside it.
		q.Set("_journal_mode", "DELETE")
		q.Set("_txlock", "immediate")
	}
	db, err := sql.Open("sqlite", u.String()+"?"+q.Encode())
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "", "cannot open the state file %s", abs)
	}
	s := &State{sql: db, path: abs, readOnly: readOnly}
	if readOnly {
		err = s.checkMigrated(ctx)
	} else {
		err = s.migrate(ctx)
	}
	if err != nil {
		db.Close()
		return nil, s.classify(err, "open")
	}
	if !readOnly {
		// Tokens are hashes and secrets sealed, but the file is the
		// server's own: nobody else need read it.
		_ = os.Chmod(abs, 0o600)
	}
	return s, nil
}

// Path is the state file.
func (s *State) Path() string { return s.path }

// ReadOnly reports a state file opened read-only: tokens are read, never
// made or revoked there.
func (s *State) ReadOnly() bool { return s.readOnly }

// Close closes the file.
func (s *State) Close() error { return s.sql.Close() }

// migrate applies the state migrations not yet recorded, one transaction
// each.
func (s *State) migrate(ctx context.Context) error {
	if _, err := s.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations.StateFS, "state/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		body, err := migrations.StateFS.ReadFile(name)
		if err != nil {
			return err
		}
		if err := s.inTx(ctx, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE name = ?`, name).Scan(&done); err != nil || done > 0 {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("migrate %q: %w", name, err)
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)`, name, time.Now().UTC().Format(time.RFC3339))
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// checkMigrated refuses a read-only state file older than this langspec.
func (s *State) checkMigrated(ctx context.Context) error {
	names, err := fs.Glob(migrations.StateFS, "state/*.sql")
	if err != nil {
		return err
	}
	var n int
	if err := s.sql.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		return err
	}
	if n < len(names) {
		return apperr.New(apperr.Unavailable, "open it once with a langspec that may write it, or give a current copy",
			"the state file %s is older than this langspec and is read-only", s.path)
	}
	return nil
}

func (s *State) inTx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// classify turns a driver error into an apperr (see DB.classify).
func (s *State) classify(err error, doing string) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return err
	}
	d := &DB{path: s.path}
	return d.classify(err, doing)
}

// AdoptReport says what State.Adopt moved.
type AdoptReport struct {
	Tokens, Secrets int
}

// Adopt moves the tokens and secrets an index made by an older langspec
// holds (migration 0015 kept them aside) into the state file: every row is
// copied, keeping those the state already has under the same name, and only
// then are the index's tables dropped — when the index may be written; a
// read-only index keeps them, unread. It is safe to run again: a process
// stopped between the copy and the drop copies nothing twice.
func (s *State) Adopt(ctx context.Context, index *DB) (AdoptReport, error) {
	var rep AdoptReport
	if s.readOnly {
		return rep, nil
	}
	has := func(table string) (bool, error) {
		var n int
		err := index.sql.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, table).Scan(&n)
		return n > 0, err
	}
	tokens, err := has("legacy_api_tokens")
	if err != nil {
		return rep, index.classify(err, "read the tokens of")
	}
	secrets, err := has("legacy_secrets")
	if err != nil {
		return rep, index.classify(err, "read the secrets of")
	}
	if !tokens && !secrets {
		return rep, nil
	}
	var ts []legacyToken
	if tokens {
		if ts, err = readLegacyTokens(ctx, index); err != nil {
			return rep, err
		}
	}
	var ss []SealedSecret
	if secrets {
		rows, err := index.sql.QueryContext(ctx, `SELECT name, subject, nonce, ciphertext, created_at, updated_at FROM legacy_secrets`)
		if err != nil {
			return rep, index.classify(err, "read the secrets of")
		}
		for rows.Next() {
			sec, err := scanSecret(rows)
			if err != nil {
				rows.Close()
				return rep, index.classify(err, "read the secrets of")
			}
			ss = append(ss, sec)
		}
		rows.Close()
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		for _, t := range ts {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO api_tokens (name, sha256, tools, admin, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)`,
				t.name, t.sha256, t.tools, t.admin, t.created, t.revoked)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			rep.Tokens += int(n)
		}
		for _, sec := range ss {
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO secrets (name, subject, nonce, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
				sec.Name, sec.Subject, sec.Nonce, sec.Ciphertext, sec.CreatedAt.UTC().Format(time.RFC3339), sec.UpdatedAt.UTC().Format(time.RFC3339))
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			rep.Secrets += int(n)
		}
		return nil
	})
	if err != nil {
		return rep, s.classify(err, "write the tokens and secrets to")
	}
	if index.ReadOnly() {
		return rep, nil
	}
	// The state file holds them now: the index keeps none, not even in
	// its free pages — an index is what gets copied to replicas and
	// laptops, and older langspecs left rows there when a token was
	// revoked. VACUUM rewrites the file without them, once per index.
	for _, table := range []string{"legacy_api_tokens", "legacy_secrets"} {
		if _, err := index.sql.ExecContext(ctx, `DROP TABLE IF EXISTS `+table); err != nil {
			return rep, index.classify(err, "drop the old tokens and secrets of")
		}
	}
	if _, err := index.sql.ExecContext(ctx, `VACUUM`); err != nil {
		return rep, index.classify(err, "compact")
	}
	return rep, nil
}

// legacyToken is a token row of an older index, as stored.
type legacyToken struct {
	name, sha256   string
	tools, revoked sql.NullString
	admin          bool
	created        string
}

func readLegacyTokens(ctx context.Context, index *DB) ([]legacyToken, error) {
	rows, err := index.sql.QueryContext(ctx, `SELECT name, sha256, tools, admin, created_at, revoked_at FROM legacy_api_tokens`)
	if err != nil {
		return nil, index.classify(err, "read the tokens of")
	}
	defer rows.Close()
	var out []legacyToken
	for rows.Next() {
		var t legacyToken
		if err := rows.Scan(&t.name, &t.sha256, &t.tools, &t.admin, &t.created, &t.revoked); err != nil {
			return nil, index.classify(err, "read the tokens of")
		}
		out = append(out, t)
	}
	return out, index.classify(rows.Err(), "read the tokens of")
}

// StateFile is the state file a server reads, followed when it is replaced
// (a replica's copy, shipped by rename as an index is): each use looks at
// the file at most every followEvery, and a file that is another one now is
// opened in its place.
type StateFile struct {
	path     string
	readOnly bool

	mu      sync.Mutex
	cur     *State
	info    os.FileInfo
	checked time.Time
	now     func() time.Time
}

// followEvery is how often StateFile looks at its file: the most a
// revocation shipped by replacing the file waits before it takes effect.
const followEvery = time.Second

// FollowState opens the state file at path and follows it. A read-only
// follower (a replica) writes nothing: when there is no file yet it holds
// no token until one is shipped there, and opens it at its next look.
func FollowState(ctx context.Context, path string, readOnly bool) (*StateFile, error) {
	f := &StateFile{path: path, readOnly: readOnly, now: time.Now}
	var err error
	if readOnly {
		f.cur, err = OpenStateReadOnly(ctx, path)
		if apperr.CodeOf(err) == apperr.NotFound {
			f.cur, err = emptyState(ctx, path)
		}
	} else {
		f.cur, err = OpenState(ctx, path)
	}
	if err != nil {
		return nil, err
	}
	f.path = f.cur.path
	f.info, _ = os.Stat(f.path)
	return f, nil
}

// emptyState is a state with no token and no secret, in memory, that a
// replica serves while no state file has been shipped to path.
func emptyState(ctx context.Context, path string) (*State, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: each would be a memory database of its own
	s := &State{sql: db, path: abs}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, s.classify(err, "open")
	}
	s.readOnly = true
	return s, nil
}

// Current is the state as the file holds it now.
func (f *StateFile) Current(ctx context.Context) *State {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if now.Sub(f.checked) < followEvery {
		return f.cur
	}
	f.checked = now
	info, err := os.Stat(f.path)
	if err != nil || f.info != nil && os.SameFile(info, f.info) {
		return f.cur
	}
	open := OpenState
	if f.readOnly {
		open = OpenStateReadOnly
	}
	next, err := open(ctx, f.path)
	if err != nil {
		return f.cur // a copy half written: the old one serves until the next look
	}
	old := f.cur
	f.cur, f.info = next, info
	// Requests under way on the old handle end on it: closed once they
	// are done with it, as the SQL pool waits for its connections.
	go old.Close()
	return f.cur
}

// Close closes the state file.
func (f *StateFile) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur.Close()
}
