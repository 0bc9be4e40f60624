// Package secrets keeps the values langspec hands to upstream servers
// (tokens, API keys): AES-256-GCM encrypted in the store, under a key that
// lives outside it — LANGSPEC_SECRET_KEY, or a key file made with 0600
// permissions on first use. A value's name and subject are its associated
// data, so a ciphertext copied to another row does not open. Plaintexts
// never reach the store, a log or an error text.
package secrets

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// KeyEnv names the variable holding the key (base64 or hex of 32 bytes);
// NewKeyEnv the new key during rotate-key when the key comes from KeyEnv.
const (
	KeyEnv    = "LANGSPEC_SECRET_KEY"
	NewKeyEnv = "LANGSPEC_SECRET_KEY_NEW"
)

// Key is an AES-256 key and where it came from.
type Key struct {
	bytes []byte
	// File is the key file it was read from; "" when from KeyEnv.
	File string
}

// ParseKey reads a key written as base64 (standard or URL, padded or not)
// or hex of 32 bytes. The error never quotes the text.
func ParseKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	for _, dec := range []func(string) ([]byte, error){
		hex.DecodeString, base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString,
	} {
		if b, err := dec(text); err == nil && len(b) == 32 {
			return b, nil
		}
	}
	return nil, apperr.New(apperr.InvalidArgument, "give 32 random bytes as base64 or hex, e.g. from `openssl rand -base64 32`",
		"the secret key is not 32 bytes in base64 or hex")
}

// LoadKey finds the key: KeyEnv when set, else keyFile. With create, a
// missing key file is made with a new random key (0600, its folder 0700);
// without, a missing key is not_found.
func LoadKey(getenv func(string) string, keyFile string, create bool) (Key, error) {
	if v := getenv(KeyEnv); v != "" {
		b, err := ParseKey(v)
		if err != nil {
			return Key{}, fmt.Errorf("%s: %w", KeyEnv, err)
		}
		return Key{bytes: b}, nil
	}
	raw, err := os.ReadFile(keyFile)
	switch {
	case err == nil:
		b, err := ParseKey(string(raw))
		if err != nil {
			return Key{}, fmt.Errorf("key file %s: %w", keyFile, err)
		}
		return Key{bytes: b, File: keyFile}, nil
	case errors.Is(err, os.ErrNotExist) && create:
		b := make([]byte, 32)
		rand.Read(b)
		if err := writeKeyFile(keyFile, b); err != nil {
			return Key{}, err
		}
		return Key{bytes: b, File: keyFile}, nil
	case errors.Is(err, os.ErrNotExist):
		return Key{}, apperr.New(apperr.NotFound, "set a secret first (langspec secret set), or set "+KeyEnv,
			"no secret key: %s is not set and %s does not exist", KeyEnv, keyFile)
	default:
		return Key{}, apperr.Wrap(err, apperr.Unavailable, "", "reading the key file %s: %v", keyFile, err)
	}
}

// writeKeyFile writes key to path with 0600 permissions, through a
// temporary file renamed into place.
func writeKeyFile(path string, key []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "", "making the key folder: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secret-key-*")
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "", "writing the key file: %v", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err == nil {
		_, err = tmp.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err == nil {
			return nil
		}
	}
	tmp.Close()
	return apperr.Wrap(err, apperr.Unavailable, "", "writing the key file %s: %v", path, err)
}

// DefaultKeyFile is $XDG_CONFIG_HOME/langspec/secret.key (~/.config when
// unset).
func DefaultKeyFile(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(getenv("HOME"), ".config")
	}
	return filepath.Join(dir, "langspec", "secret.key")
}

// namePattern is what a secret's name may be: what ${secret:NAME} can
// hold.
var namePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,127}$`)

// CheckName says whether name can name a secret. Errors: invalid_argument.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return apperr.New(apperr.InvalidArgument, "use letters, digits, _, . and - (at most 128), starting with a letter or _",
			"%q is not a secret name", name)
	}
	return nil
}

func aad(name, subject string) []byte {
	return []byte("langspec-secret\x00" + name + "\x00" + subject)
}

func seal(key []byte, name, subject string, plaintext []byte) (nonce, ciphertext []byte, err error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, nil, err
	}
	nonce = make([]byte, gcm.NonceSize())
	rand.Read(nonce)
	return nonce, gcm.Seal(nil, nonce, plaintext, aad(name, subject)), nil
}

// errOpen is every failure to decrypt: the wrong key, a changed
// ciphertext, or a value moved to another name or subject.
var errOpen = apperr.New(apperr.Unavailable, "use the key the secret was stored with ("+KeyEnv+" or the key file), or set the secret again",
	"a secret does not decrypt with this key, or was changed in the database")

func open(key []byte, s db.SealedSecret) ([]byte, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	if len(s.Nonce) != gcm.NonceSize() {
		return nil, errOpen
	}
	pt, err := gcm.Open(nil, s.Nonce, s.Ciphertext, aad(s.Name, s.Subject))
	if err != nil {
		return nil, errOpen
	}
	return pt, nil
}

// Store is the secrets of one database under one key.
type Store struct {
	DB  *db.State
	Key Key
	Now func() time.Time
}

// Set stores value as the secret name of subject ("" for everyone).
func (s *Store) Set(ctx context.Context, name, subject string, value []byte) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if len(value) == 0 {
		return apperr.New(apperr.InvalidArgument, "pipe the value in on stdin", "the secret %q is empty", name)
	}
	nonce, ct, err := seal(s.Key.bytes, name, subject, value)
	if err != nil {
		return err
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return s.DB.PutSecret(ctx, db.SealedSecret{Name: name, Subject: subject, Nonce: nonce, Ciphertext: ct}, now())
}

// Get returns the secret name for subject: the subject's own, else the
// shared one. ok is false when neither exists.
func (s *Store) Get(ctx context.Context, name, subject string) (value string, ok bool, err error) {
	value, _, ok, err = s.Lookup(ctx, name, subject)
	return value, ok, err
}

// Lookup is Get, saying also whether the value is the subject's own.
func (s *Store) Lookup(ctx context.Context, name, subject string) (value string, own, ok bool, err error) {
	for _, who := range []string{subject, ""} {
		sealed, found, err := s.DB.Secret(ctx, name, who)
		if err != nil {
			return "", false, false, err
		}
		if found {
			pt, err := open(s.Key.bytes, sealed)
			if err != nil {
				return "", false, false, err
			}
			return string(pt), who != "", true, nil
		}
		if who == "" {
			break
		}
	}
	return "", false, false, nil
}

// RotateKey re-encrypts every secret under next, in one transaction, and
// returns how many. When the key came from a file, next is written there:
// first beside it, then renamed over it once the database committed, so
// that no moment leaves secrets under a key nobody has.
func (s *Store) RotateKey(ctx context.Context, next []byte) (int, error) {
	staged := ""
	if s.Key.File != "" {
		staged = s.Key.File + ".next"
		if err := writeKeyFile(staged, next); err != nil {
			return 0, err
		}
	}
	n, err := s.DB.ResealSecrets(ctx, func(old db.SealedSecret) ([]byte, []byte, error) {
		pt, err := open(s.Key.bytes, old)
		if err != nil {
			return nil, nil, err
		}
		return seal(next, old.Name, old.Subject, pt)
	})
	if err != nil {
		if staged != "" {
			os.Remove(staged)
		}
		return 0, err
	}
	if staged != "" {
		if err := os.Rename(staged, s.Key.File); err != nil {
			return n, apperr.Wrap(err, apperr.Unavailable, "move "+staged+" to "+s.Key.File+" by hand: the secrets are under the key in it",
				"the secrets were re-encrypted but the key file could not be replaced: %v", err)
		}
	}
	s.Key.bytes = next
	return n, nil
}

// NewKey is 32 random bytes.
func NewKey() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

// EncodeKey writes key as KeyEnv takes it.
func EncodeKey(key []byte) string { return base64.StdEncoding.EncodeToString(key) }
