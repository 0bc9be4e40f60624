package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// APIToken is a bearer token of the team server as stored: its name, the
// tools its holder may use (nil: every tool), and its dates. The token
// itself is never stored, only its SHA-256.
type APIToken struct {
	Name      string
	Tools     []string
	Admin     bool // may read /metrics and manage the server
	CreatedAt time.Time
	RevokedAt time.Time // zero while the token is valid
}

// CreateToken stores a token's hash under name. Errors: already_exists when
// a token, valid or revoked, has the name in any case: names that differ
// only in case would be one vault folder on macOS and Windows. (Names are
// ASCII, so SQLite's NOCASE folds them whole.)
func (s *State) CreateToken(ctx context.Context, name, sha256Hex string, tools []string, admin bool, now time.Time) error {
	var toolsJSON any
	if tools != nil {
		b, _ := json.Marshal(tools) // []string always marshals
		toolsJSON = string(b)
	}
	// One statement checks and inserts, so two makers of one name at once
	// cannot both pass the check.
	res, err := s.sql.ExecContext(ctx, `INSERT INTO api_tokens (name, sha256, tools, admin, created_at)
		SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM api_tokens WHERE name = ? COLLATE NOCASE)`,
		name, sha256Hex, toolsJSON, admin, now.UTC().Format(time.RFC3339), name)
	if err != nil {
		return s.classify(err, "create a token")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var taken string
		if err := s.sql.QueryRowContext(ctx, `SELECT name FROM api_tokens WHERE name = ? COLLATE NOCASE`, name).Scan(&taken); err != nil {
			return s.classify(err, "create a token")
		}
		if taken != name {
			return apperr.New(apperr.AlreadyExists, "choose another name; `langspec token list` shows the names in use",
				"a token named %q exists already: names that differ only in case are one name (one vault folder on macOS and Windows)", taken)
		}
		return apperr.New(apperr.AlreadyExists, "choose another name; `langspec token list` shows the names in use",
			"a token named %q exists already (names of revoked tokens are not reused)", name)
	}
	return nil
}

// RevokeToken marks the token named name revoked from now on. Errors:
// not_found when no token has that name; revoking a revoked token is not
// an error.
func (s *State) RevokeToken(ctx context.Context, name string, now time.Time) error {
	res, err := s.sql.ExecContext(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE name = ?`,
		now.UTC().Format(time.RFC3339), name)
	if err != nil {
		return s.classify(err, "revoke a token")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return apperr.New(apperr.NotFound, "`langspec token list` shows the names", "no token named %q", name)
	}
	return nil
}

// Tokens lists every token, valid and revoked, by name.
func (s *State) Tokens(ctx context.Context) ([]APIToken, error) {
	rows, err := s.sql.QueryContext(ctx, `SELECT name, tools, admin, created_at, revoked_at FROM api_tokens ORDER BY name`)
	if err != nil {
		return nil, s.classify(err, "list tokens")
	}
	defer rows.Close()
	var out []APIToken
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, s.classify(err, "list tokens")
		}
		out = append(out, t)
	}
	return out, s.classify(rows.Err(), "list tokens")
}

// TokenByHash returns the valid token whose SHA-256 is sha256Hex; ok is
// false when there is none or it was revoked.
func (s *State) TokenByHash(ctx context.Context, sha256Hex string) (t APIToken, ok bool, err error) {
	rows, err := s.sql.QueryContext(ctx, `SELECT name, tools, admin, created_at, revoked_at FROM api_tokens WHERE sha256 = ? AND revoked_at IS NULL`, sha256Hex)
	if err != nil {
		return t, false, s.classify(err, "check a token")
	}
	defer rows.Close()
	if !rows.Next() {
		return t, false, s.classify(rows.Err(), "check a token")
	}
	t, err = scanToken(rows)
	return t, err == nil, s.classify(err, "check a token")
}

// TokenNameTaken says whether a token, valid or revoked, has name in any
// case: its vault folder and secrets are that name's, so no other subject
// may take it.
func (s *State) TokenNameTaken(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.sql.QueryRowContext(ctx, `SELECT count(*) FROM api_tokens WHERE name = ? COLLATE NOCASE`, name).Scan(&n)
	return n > 0, s.classify(err, "look up a token name")
}

// HasTokens says whether any token is valid: whether the team server must
// ask for one.
func (s *State) HasTokens(ctx context.Context) (bool, error) {
	var n int
	err := s.sql.QueryRowContext(ctx, `SELECT count(*) FROM api_tokens WHERE revoked_at IS NULL`).Scan(&n)
	return n > 0, s.classify(err, "count tokens")
}

func scanToken(rows *sql.Rows) (APIToken, error) {
	var t APIToken
	var tools, revoked sql.NullString
	var created string
	if err := rows.Scan(&t.Name, &tools, &t.Admin, &created, &revoked); err != nil {
		return t, err
	}
	if tools.Valid {
		if err := json.Unmarshal([]byte(tools.String), &t.Tools); err != nil {
			return t, errors.New("a token's tools are not a JSON list")
		}
		if t.Tools == nil {
			t.Tools = []string{}
		}
	}
	t.CreatedAt, _ = time.Parse(time.RFC3339, created)
	if revoked.Valid {
		t.RevokedAt, _ = time.Parse(time.RFC3339, revoked.String)
	}
	return t, nil
}
