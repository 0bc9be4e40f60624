package secrets

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.db")
	d, err := db.OpenState(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	key, err := LoadKey(func(string) string { return "" }, filepath.Join(dir, "conf", "secret.key"), true)
	if err != nil {
		t.Fatal(err)
	}
	return &Store{DB: d, Key: key}, path
}

const plaintext = "ghp_s3cr3t-value-that-must-never-leak"

// TestRoundTripAndSubjects: a value comes back as set; a subject's own
// value wins over the shared one; the key file is 0600; the plaintext is
// nowhere in the database file.
func TestRoundTripAndSubjects(t *testing.T) {
	ctx := context.Background()
	s, path := newStore(t)
	if err := s.Set(ctx, "GITHUB_TOKEN", "", []byte(plaintext)); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, "GITHUB_TOKEN", "alice", []byte("alice-own-token")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ subject, want string }{{"", plaintext}, {"bob", plaintext}, {"alice", "alice-own-token"}} {
		if got, ok, err := s.Get(ctx, "GITHUB_TOKEN", tc.subject); err != nil || !ok || got != tc.want {
			t.Errorf("Get for %q = %q, %v, %v; want %q", tc.subject, got, ok, err, tc.want)
		}
	}
	if _, ok, err := s.Get(ctx, "NOPE", "alice"); ok || err != nil {
		t.Errorf("a missing secret: %v, %v", ok, err)
	}
	fi, err := os.Stat(s.Key.File)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	s.DB.Close()
	raw, _ := os.ReadFile(path)
	wal, _ := os.ReadFile(path + "-wal")
	if bytes.Contains(append(raw, wal...), []byte(plaintext)) || bytes.Contains(append(raw, wal...), []byte("alice-own-token")) {
		t.Error("a plaintext is in the database file")
	}
}

// TestWrongKeyAndTampering: another key, a flipped ciphertext bit and a
// value moved to another name are all refused, without the plaintext in
// the error.
func TestWrongKeyAndTampering(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	if err := s.Set(ctx, "API_KEY", "", []byte(plaintext)); err != nil {
		t.Fatal(err)
	}
	other := &Store{DB: s.DB, Key: Key{bytes: NewKey()}}
	if _, _, err := other.Get(ctx, "API_KEY", ""); err == nil || strings.Contains(err.Error(), plaintext) {
		t.Errorf("another key: %v", err)
	}
	sealed, _, _ := s.DB.Secret(ctx, "API_KEY", "")
	tampered := sealed
	tampered.Ciphertext = bytes.Clone(sealed.Ciphertext)
	tampered.Ciphertext[0] ^= 1
	if err := s.DB.PutSecret(ctx, tampered, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, "API_KEY", ""); apperr.CodeOf(err) != apperr.Unavailable {
		t.Errorf("a tampered ciphertext: %v, want refused", err)
	}
	moved := sealed
	moved.Name = "OTHER"
	s.DB.PutSecret(ctx, moved, time.Now())
	if _, _, err := s.Get(ctx, "OTHER", ""); err == nil {
		t.Error("a ciphertext moved to another name decrypts")
	}
}

// TestRotateKey re-encrypts everything under a new key, which the key
// file then holds; the old key no longer opens anything.
func TestRotateKey(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	for _, name := range []string{"A", "B", "C"} {
		if err := s.Set(ctx, name, "", []byte(name+"-value")); err != nil {
			t.Fatal(err)
		}
	}
	old := s.Key
	next := NewKey()
	if n, err := s.RotateKey(ctx, next); err != nil || n != 3 {
		t.Fatalf("RotateKey = %d, %v", n, err)
	}
	reloaded, err := LoadKey(func(string) string { return "" }, old.File, false)
	if err != nil || !bytes.Equal(reloaded.bytes, next) {
		t.Fatalf("the key file does not hold the new key: %v", err)
	}
	for _, name := range []string{"A", "B", "C"} {
		if got, _, err := (&Store{DB: s.DB, Key: reloaded}).Get(ctx, name, ""); err != nil || got != name+"-value" {
			t.Errorf("%s after rotation: %q, %v", name, got, err)
		}
		if _, _, err := (&Store{DB: s.DB, Key: old}).Get(ctx, name, ""); err == nil {
			t.Errorf("%s opens with the old key", name)
		}
	}
	if _, err := os.Stat(old.File + ".next"); !os.IsNotExist(err) {
		t.Errorf("the staged key file is left: %v", err)
	}
}

func TestKeys(t *testing.T) {
	k := NewKey()
	for _, text := range []string{EncodeKey(k), " " + EncodeKey(k) + "\n"} {
		if b, err := ParseKey(text); err != nil || !bytes.Equal(b, k) {
			t.Errorf("ParseKey(%q) = %v", text, err)
		}
	}
	for _, bad := range []string{"", "short", EncodeKey(k[:16])} {
		if _, err := ParseKey(bad); err == nil || (bad != "" && strings.Contains(err.Error(), bad)) {
			t.Errorf("ParseKey(%q) = %v", bad, err)
		}
	}
	env := func(k string) string {
		if k == KeyEnv {
			return "not a key"
		}
		return ""
	}
	if _, err := LoadKey(env, "/nonexistent", true); err == nil || strings.Contains(err.Error(), "not a key") {
		t.Errorf("a bad %s: %v", KeyEnv, err)
	}
	if _, err := LoadKey(func(string) string { return "" }, filepath.Join(t.TempDir(), "none"), false); apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("no key: %v", err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"GITHUB_TOKEN", true}, {"api.key-2", true}, {"", false}, {"1abc", false}, {"a b", false}, {"a/b", false}} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v", tc.name, err)
		}
	}
}
