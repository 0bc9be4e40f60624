// Package teamauth decides who is calling the team server (`langspec serve
// --http`) and what they may do: bearer tokens made by `langspec token
// create`, stored as their SHA-256 only, each naming a subject and the
// tools its holder may use.
package teamauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/db"
)

// tokenPrefix starts every token, so that one pasted into a log or a
// repository is recognisable (and secret scanners can be taught it).
const tokenPrefix = "lsp_"

// namePattern is what a token's name (its subject) may be: it names the
// subject's vault folder too, so no path characters.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// CheckName says whether name can name a token. Errors: invalid_argument.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return apperr.New(apperr.InvalidArgument, "use letters, digits, - and _ (at most 64), starting with a letter or digit",
			"%q is not a token name", name)
	}
	return nil
}

// NewToken returns a fresh random token (256 bits) and its hash as stored.
func NewToken() (token, hash string) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, Hash(token)
}

// Hash is the SHA-256 of token in hex: what the store keeps. A token has
// 256 random bits, so a fast hash is enough; no salt or slow hash is
// needed against guessing.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Subject is who a request comes from, and what it may use.
type Subject struct {
	Name string
	// Issuer is the iss of a JWT subject; "" for langspec's own tokens.
	Issuer string
	// Tools are the tool names the subject may list and call; nil: all.
	Tools []string
	// Admin may read the server's /metrics.
	Admin bool
}

// keySeparator joins a JWT subject's issuer and name in its Key. It
// cannot occur in a name (namePattern, or "sub-" and hex), so the last one
// splits a key unambiguously whatever the issuer holds, and a static
// token's key (a bare name) never has one.
const keySeparator = "#"

// Key identifies the subject across issuers: the name for langspec's own
// tokens, issuer#name for a JWT subject. Two subjects of the same name
// from different issuers, or a JWT subject and a static token of the same
// name, have different keys; it is the TokenInfo's UserID, so that a
// session one of them opened cannot be used by the other.
func (s Subject) Key() string {
	if s.Issuer == "" {
		return s.Name
	}
	return s.Issuer + keySeparator + s.Name
}

// Mask is the subject's tools as a catalog mask: a bare name is one of
// langspec's own tools, in whatever category serves it (catalog.Mask.Own:
// never an upstream tool of that name); an upstream tool is named
// category__tool, allowed as category/tool only. The zero Mask (every tool)
// when Tools is nil.
func (s Subject) Mask() catalog.Mask {
	if s.Tools == nil {
		return catalog.Mask{}
	}
	var m catalog.Mask
	for _, t := range s.Tools {
		if category, tool, ok := strings.Cut(t, "__"); ok {
			m.Allow = append(m.Allow, category+"/"+tool)
		} else {
			m.Own = append(m.Own, t)
		}
	}
	if len(m.Allow) == 0 && len(m.Own) == 0 {
		m.Deny = []string{"*/*"} // an empty list allows nothing
	}
	return m
}

// staticExpiry stands in for the expiry of a static token, which has
// none; the SDK's middleware wants one.
const staticExpiry = 24 * time.Hour

// subjectKey carries a Subject in TokenInfo.Extra.
const subjectKey = "langspec.subject"

// StateOf is the state file tokens are read from for a request: the
// server's own, or, on a replica, the copy it follows (db.StateFile), so
// a revocation reaches it without a new index.
type StateOf func(context.Context) *db.State

// Fixed is the StateOf of a server with one state file.
func Fixed(state *db.State) StateOf { return func(context.Context) *db.State { return state } }

// errNoStore is what a verifier answers when the request has no state to
// read: a bug of the caller's, never a reason to let a token through.
var errNoStore = errors.New("teamauth: no state for this request")

// Verifier checks bearer tokens against the tokens of the state file: a
// token that is unknown or revoked is refused with auth.ErrInvalidToken
// (401). The state is asked on every request, so a revoked token stops
// working at once.
func Verifier(storeOf StateOf) auth.TokenVerifier {
	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		store := storeOf(ctx)
		if store == nil {
			return nil, errNoStore
		}
		t, ok, err := store.TokenByHash(ctx, Hash(token))
		if err != nil {
			return nil, fmt.Errorf("checking the token: %w", err)
		}
		if !ok {
			return nil, fmt.Errorf("%w: unknown or revoked token", auth.ErrInvalidToken)
		}
		s := Subject{Name: t.Name, Tools: t.Tools, Admin: t.Admin}
		return &auth.TokenInfo{UserID: t.Name, Expiration: time.Now().Add(staticExpiry), Extra: map[string]any{subjectKey: s}}, nil
	}
}

// FromContext returns the subject the auth middleware put in ctx; ok is
// false on a server without auth.
func FromContext(ctx context.Context) (Subject, bool) {
	return FromInfo(auth.TokenInfoFromContext(ctx))
}

// FromInfo returns the subject a verifier of this package put in info.
func FromInfo(info *auth.TokenInfo) (Subject, bool) {
	if info == nil {
		return Subject{}, false
	}
	s, ok := info.Extra[subjectKey].(Subject)
	return s, ok
}
