package db

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// SealedSecret is a secret as stored: encrypted (internal/secrets does the
// cryptography; the store never sees a plaintext).
type SealedSecret struct {
	Name, Subject     string
	Nonce, Ciphertext []byte
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// PutSecret stores a sealed secret, replacing the one of the same name and
// subject (keeping its creation date).
func (st *State) PutSecret(ctx context.Context, s SealedSecret, now time.Time) error {
	ts := now.UTC().Format(time.RFC3339)
	_, err := st.sql.ExecContext(ctx, `INSERT INTO secrets (name, subject, nonce, ciphertext, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (name, subject) DO UPDATE SET nonce = excluded.nonce, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
		s.Name, s.Subject, s.Nonce, s.Ciphertext, ts, ts)
	return st.classify(err, "store a secret")
}

// Secret returns the sealed secret name of subject; ok is false when there
// is none.
func (st *State) Secret(ctx context.Context, name, subject string) (s SealedSecret, ok bool, err error) {
	rows, err := st.sql.QueryContext(ctx, `SELECT name, subject, nonce, ciphertext, created_at, updated_at FROM secrets WHERE name = ? AND subject = ?`, name, subject)
	if err != nil {
		return s, false, st.classify(err, "read a secret")
	}
	defer rows.Close()
	if !rows.Next() {
		return s, false, st.classify(rows.Err(), "read a secret")
	}
	s, err = scanSecret(rows)
	return s, err == nil, st.classify(err, "read a secret")
}

// Secrets lists every sealed secret by name and subject.
func (st *State) Secrets(ctx context.Context) ([]SealedSecret, error) {
	rows, err := st.sql.QueryContext(ctx, `SELECT name, subject, nonce, ciphertext, created_at, updated_at FROM secrets ORDER BY name, subject`)
	if err != nil {
		return nil, st.classify(err, "list secrets")
	}
	defer rows.Close()
	var out []SealedSecret
	for rows.Next() {
		s, err := scanSecret(rows)
		if err != nil {
			return nil, st.classify(err, "list secrets")
		}
		out = append(out, s)
	}
	return out, st.classify(rows.Err(), "list secrets")
}

// DeleteSecret removes the secret name of subject. Errors: not_found.
func (st *State) DeleteSecret(ctx context.Context, name, subject string) error {
	res, err := st.sql.ExecContext(ctx, `DELETE FROM secrets WHERE name = ? AND subject = ?`, name, subject)
	if err != nil {
		return st.classify(err, "delete a secret")
	}
	if n, _ := res.RowsAffected(); n == 0 {
		who := "shared"
		if subject != "" {
			who = "of subject " + subject
		}
		return apperr.New(apperr.NotFound, "`langspec secret list` shows the names", "no %s secret named %q", who, name)
	}
	return nil
}

// ResealSecrets replaces every secret's nonce and ciphertext with what
// reseal returns for it, in one transaction: all or nothing (a key
// rotation).
func (st *State) ResealSecrets(ctx context.Context, reseal func(SealedSecret) (nonce, ciphertext []byte, err error)) (n int, err error) {
	all, err := st.Secrets(ctx)
	if err != nil {
		return 0, err
	}
	tx, err := st.sql.BeginTx(ctx, nil)
	if err != nil {
		return 0, st.classify(err, "re-encrypt secrets")
	}
	defer tx.Rollback()
	for _, s := range all {
		nonce, ct, err := reseal(s)
		if err != nil {
			return 0, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE secrets SET nonce = ?, ciphertext = ? WHERE name = ? AND subject = ?`, nonce, ct, s.Name, s.Subject); err != nil {
			return 0, st.classify(err, "re-encrypt secrets")
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, st.classify(err, "re-encrypt secrets")
	}
	return len(all), nil
}

func scanSecret(rows *sql.Rows) (SealedSecret, error) {
	var s SealedSecret
	var created, updated string
	if err := rows.Scan(&s.Name, &s.Subject, &s.Nonce, &s.Ciphertext, &created, &updated); err != nil {
		return s, err
	}
	var err1, err2 error
	s.CreatedAt, err1 = time.Parse(time.RFC3339, created)
	s.UpdatedAt, err2 = time.Parse(time.RFC3339, updated)
	return s, errors.Join(err1, err2)
}
