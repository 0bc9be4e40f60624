package app

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/catalog/upstream"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/secrets"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
)

// The state's use cases — tokens, secrets, upstream logins — over the
// state file (State), for the command line and, through the same rules,
// the team server and its page.

// What the token and secret commands print.
type (
	// Token is a stored token: its name, tools and dates, never the token.
	Token = db.APIToken
	// Secret is a stored secret: its name, subject and dates; the value
	// stays sealed.
	Secret = db.SealedSecret
)

// Where the secrets' key comes from, for the secret commands' help.
const (
	SecretKeyEnv    = secrets.KeyEnv
	SecretNewKeyEnv = secrets.NewKeyEnv
)

// secretStore is the secrets in the state file under their key; create
// makes a key file when there is none. The one place a secrets.Store is
// put together: the secret commands, ${secret:NAME} in mcpServers and the
// upstreams' OAuth logins all go through it. Errors: not_found without a
// key (and not create), those of LoadKey and State.
func (a *App) secretStore(ctx context.Context, create bool) (*secrets.Store, error) {
	getenv := a.opts.getenv()
	key, err := secrets.LoadKey(getenv, secrets.DefaultKeyFile(getenv), create)
	if err != nil {
		return nil, err
	}
	st, err := a.State(ctx)
	if err != nil {
		return nil, err
	}
	return &secrets.Store{DB: st, Key: key, Now: a.opts.Now}, nil
}

// tokenRules is the one rule for making tokens (teamauth.Tokens) over
// state: the command line's and the management page's (whose state is set
// per request). Known tools are langspec's own, meta tools included.
func (a *App) tokenRules(state *db.State) teamauth.Tokens {
	var known []string
	for _, t := range append(tools.Inventory(), tools.Meta()...) {
		known = append(known, t.Def.Name)
	}
	return teamauth.Tokens{Store: state, Configured: slices.Collect(maps.Keys(a.opts.Config.Auth.Subjects)), Known: known, Now: a.opts.Now}
}

// CreateToken makes a token for name and returns it: shown once, stored
// only as its SHA-256. allowed nil allows every tool. Errors:
// invalid_argument for a name or tool teamauth.Tokens refuses.
func (a *App) CreateToken(ctx context.Context, name string, allowed []string, admin bool) (string, error) {
	st, err := a.State(ctx)
	if err != nil {
		return "", err
	}
	return a.tokenRules(st).Create(ctx, name, allowed, admin)
}

// Tokens lists the tokens, revoked ones included.
func (a *App) Tokens(ctx context.Context) ([]Token, error) {
	st, err := a.State(ctx)
	if err != nil {
		return nil, err
	}
	return st.Tokens(ctx)
}

// RevokeToken revokes the token name: its next request gets 401.
func (a *App) RevokeToken(ctx context.Context, name string) error {
	st, err := a.State(ctx)
	if err != nil {
		return err
	}
	return st.RevokeToken(ctx, name, a.opts.Now())
}

// SubjectHome reads a --subject: a token's name, or jwt:SUB for a subject
// of the configured identity provider, as the key its secrets and logins
// are kept under (teamauth.Subject.Home); "" is shared by everyone.
// Errors: invalid_argument.
func (a *App) SubjectHome(subject string) (string, error) {
	issuer := ""
	if j := a.opts.Config.Auth.JWT; j != nil {
		issuer = j.Issuer
	}
	return teamauth.SubjectHome(subject, issuer)
}

// SetSecret seals value under name for the subject whose home is home
// ("" shared; SubjectHome), making the key file on first use. Errors:
// invalid_argument for a name secrets refuses.
func (a *App) SetSecret(ctx context.Context, name, home string, value []byte) error {
	if err := secrets.CheckName(name); err != nil {
		return err
	}
	s, err := a.secretStore(ctx, true)
	if err != nil {
		return err
	}
	return s.Set(ctx, name, home, value)
}

// Secrets lists the stored secrets, sealed.
func (a *App) Secrets(ctx context.Context) ([]Secret, error) {
	st, err := a.State(ctx)
	if err != nil {
		return nil, err
	}
	return st.Secrets(ctx)
}

// DeleteSecret deletes the secret name of the subject whose home is home.
func (a *App) DeleteSecret(ctx context.Context, name, home string) error {
	st, err := a.State(ctx)
	if err != nil {
		return err
	}
	return st.DeleteSecret(ctx, name, home)
}

// RotatedKey is what RotateSecretKey did.
type RotatedKey struct {
	Secrets int    // re-encrypted
	File    string // the key file now holding the new key; "" when it came from SecretNewKeyEnv
}

// RotateSecretKey re-encrypts every secret under a new key, all or
// nothing: with the key file, a new random key that replaces the file
// once the state has committed; with SecretKeyEnv, the key in
// SecretNewKeyEnv. Errors: invalid_argument when the key comes from the
// environment and the new one is not there or not a key.
func (a *App) RotateSecretKey(ctx context.Context) (RotatedKey, error) {
	s, err := a.secretStore(ctx, false)
	if err != nil {
		return RotatedKey{}, err
	}
	next := secrets.NewKey()
	if s.Key.File == "" {
		v := a.opts.getenv()(secrets.NewKeyEnv)
		if v == "" {
			return RotatedKey{}, apperr.New(apperr.InvalidArgument, "export "+secrets.NewKeyEnv+" with the new key (e.g. openssl rand -base64 32)",
				"the key comes from %s, so the new one must too", secrets.KeyEnv)
		}
		if next, err = secrets.ParseKey(v); err != nil {
			return RotatedKey{}, apperr.Wrap(err, apperr.InvalidArgument, "", "%s: %v", secrets.NewKeyEnv, err)
		}
	}
	n, err := s.RotateKey(ctx, next)
	return RotatedKey{Secrets: n, File: s.Key.File}, err
}

// secretLookup reads ${secret:NAME} for the upstream manager; the key is
// loaded on the first lookup, and a state without a key has no secrets.
func (a *App) secretLookup() func(name, subject string) (string, bool, error) {
	var once sync.Once
	var store *secrets.Store
	var loadErr error
	return func(name, subject string) (string, bool, error) {
		ctx := context.Background()
		once.Do(func() {
			store, loadErr = a.secretStore(ctx, false)
			if apperr.CodeOf(loadErr) == apperr.NotFound {
				store, loadErr = nil, nil // no key: nothing was ever stored
			}
		})
		if loadErr != nil || store == nil {
			return "", false, loadErr
		}
		v, own, _, err := store.Lookup(ctx, name, subject)
		return v, own, err
	}
}

// oauthTokens keeps upstreams' OAuth tokens as secrets named
// "oauth.<server>" (internal/secrets): encrypted like any other.
type oauthTokens struct{ a *App }

// oauthTokenSecret is the secret an upstream's OAuth tokens are kept in.
func oauthTokenSecret(server string) string { return "oauth." + server }

func (o oauthTokens) LoadToken(server, subject string) (*oauth2.Token, error) {
	s, err := o.a.secretStore(context.Background(), false)
	if apperr.CodeOf(err) == apperr.NotFound {
		return nil, nil // no key: nothing was ever stored
	}
	if err != nil {
		return nil, err
	}
	v, own, ok, err := s.Lookup(context.Background(), oauthTokenSecret(server), subject)
	if err != nil || !ok || subject != "" && !own {
		return nil, err
	}
	var t oauth2.Token
	if err := json.Unmarshal([]byte(v), &t); err != nil {
		return nil, apperr.New(apperr.Unavailable, "log in again with: langspec upstream login "+server, "the stored OAuth login of %q is unreadable", server)
	}
	return &t, nil
}

// DeleteToken forgets the tokens of server for subject (upstream logout).
func (o oauthTokens) DeleteToken(server, subject string) error {
	return o.a.DeleteSecret(context.Background(), oauthTokenSecret(server), subject)
}

func (o oauthTokens) SaveToken(server, subject string, t *oauth2.Token) error {
	s, err := o.a.secretStore(context.Background(), true)
	if err != nil {
		return err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return s.Set(context.Background(), oauthTokenSecret(server), subject, b)
}

// UpstreamLogin runs the OAuth login of the mcpServers entry name for the
// subject whose home is home, telling open the address to visit. Errors:
// invalid_argument when no upstream is configured; those of the login.
func (a *App) UpstreamLogin(ctx context.Context, name, home string, timeout time.Duration, open func(url string)) error {
	mgr, err := a.Upstreams()
	if err != nil {
		return err
	}
	if mgr == nil {
		return apperr.New(apperr.InvalidArgument, "add it under mcpServers in langspec.json", "no upstream named %q: no mcpServers are configured", name)
	}
	return mgr.Login(ctx, name, upstream.LoginOptions{Subject: home, Timeout: timeout, Open: open})
}

// UpstreamLogout forgets the OAuth login of the upstream name for the
// subject whose home is home.
func (a *App) UpstreamLogout(ctx context.Context, name, home string) error {
	return a.DeleteSecret(ctx, oauthTokenSecret(name), home)
}
