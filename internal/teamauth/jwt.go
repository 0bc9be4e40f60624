package teamauth

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// JWTOptions say which JWTs the team server accepts.
type JWTOptions struct {
	Issuer   string
	Audience string
	// Secret is the HS256 key; JWKSURL the issuer's key set for RS256 and
	// ES256. Exactly one is set.
	Secret  []byte
	JWKSURL string
	// Tools are each subject's tools (by sub claim); a subject not named
	// may use every tool.
	Tools map[string][]string
	// Admins are the subjects (by sub claim) that may read /metrics.
	Admins map[string]bool
	// HTTPClient fetches the key set; nil is a client with a 10 s timeout.
	HTTPClient *http.Client
	// UnknownKeyRefresh is how long a key id that made the key set be
	// fetched again must wait before it can make another fetch; 0 is
	// unknownKeyRefresh (30 s).
	UnknownKeyRefresh time.Duration
	// UnknownKeyRefreshAll spaces the fetches that unknown key ids make
	// all together, after a burst of unknownKeyBurst; 0 is
	// unknownKeyRefreshAll (1 s).
	UnknownKeyRefreshAll time.Duration
	Logger               *slog.Logger
}

// clockLeeway is how far exp and nbf may be off between the issuer's clock
// and ours.
const clockLeeway = 30 * time.Second

// JWTVerifier checks JWTs: signed with HS256 by Secret, or with RS256 or
// ES256 by a key of JWKSURL (fetched now, refreshed until ctx ends, and
// on an unknown key id as jwks.go tells); iss, aud and exp present and
// right, nbf passed, both with clockLeeway. Anything else — "alg": "none",
// an HS256 token against a key set (algorithm confusion), a wrong issuer
// or audience, an expired token — is auth.ErrInvalidToken (401).
func JWTVerifier(ctx context.Context, o JWTOptions) (auth.TokenVerifier, error) {
	if o.Issuer == "" {
		// An empty issuer would turn the iss check off, and a subject's
		// Key would no longer tell it from a static token's.
		return nil, errors.New("teamauth: a JWT issuer is required")
	}
	var methods []string
	switch {
	case len(o.Secret) > 0 && o.JWKSURL == "":
		methods = []string{jwt.SigningMethodHS256.Alg()}
	case len(o.Secret) == 0 && o.JWKSURL != "":
		methods = []string{jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg()}
	default:
		return nil, errors.New("teamauth: give a secret or a JWK Set URL, one of them")
	}
	opts := []jwt.ParserOption{jwt.WithValidMethods(methods), jwt.WithIssuer(o.Issuer), jwt.WithAudience(o.Audience),
		jwt.WithExpirationRequired(), jwt.WithLeeway(clockLeeway)}
	parser := jwt.NewParser(opts...)

	var keyfuncFor func(context.Context) jwt.Keyfunc
	if len(o.Secret) > 0 {
		secret := o.Secret
		keyfuncFor = func(context.Context) jwt.Keyfunc { return func(*jwt.Token) (any, error) { return secret, nil } }
	} else {
		client := o.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: jwksFetchTimeout}
		}
		log := o.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		gate := newRefreshGate(cmp.Or(o.UnknownKeyRefresh, unknownKeyRefresh), cmp.Or(o.UnknownKeyRefreshAll, unknownKeyRefreshAll),
			unknownKeyBurst, unknownKeyMemory)
		ks, err := newKeySet(ctx, o.JWKSURL, client, log, acceptableUnverified(jwt.NewValidator(opts...), methods), gate)
		if err != nil {
			return nil, fmt.Errorf("teamauth: the JWK Set %s: %w", o.JWKSURL, err)
		}
		keyfuncFor = ks.keyfunc
	}

	return func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		var claims jwt.RegisteredClaims
		if _, err := parser.ParseWithClaims(token, &claims, keyfuncFor(ctx)); err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		if claims.Subject == "" {
			return nil, fmt.Errorf("%w: the token has no subject (sub)", auth.ErrInvalidToken)
		}
		s := Subject{Name: subjectName(claims.Subject), Issuer: claims.Issuer, Admin: o.Admins[claims.Subject]}
		if tools, ok := o.Tools[claims.Subject]; ok {
			s.Tools = tools
		}
		// The SDK's bearer middleware refuses a TokenInfo whose Expiration
		// has passed, with no leeway of its own by default, so the parser's
		// leeway on exp would end at the middleware: a token 5 s past exp
		// by our clock would pass here and be refused there. The
		// Expiration is therefore exp plus the same leeway. (Setting the
		// middleware's ClockSkew as well would add the leeway twice.)
		return &auth.TokenInfo{UserID: s.Key(), Expiration: claims.ExpiresAt.Add(clockLeeway),
			Extra: map[string]any{subjectKey: s}}, nil
	}, nil
}

// subjectName is the name a JWT subject goes by here: the sub itself when
// it is a token name (it names a vault folder), else "sub-" and a digest of
// it ("auth0|1234" is no folder name).
func subjectName(sub string) string {
	if CheckName(sub) == nil {
		return sub
	}
	sum := sha256.Sum256([]byte(sub))
	return "sub-" + hex.EncodeToString(sum[:12])
}

// Either accepts a token that static accepts (langspec's own, "lsp_…"),
// or else one that jwtv accepts; jwtv nil accepts none.
//
// A JWT subject whose name is a langspec token's (valid or revoked, in any
// case) is refused: the two would go by one name in the logs and on the
// page (their homes are apart: Subject.Home). CheckNames refuses such a
// configuration at start; this covers a subject the configuration does not
// name.
func Either(storeOf StateOf, static, jwtv auth.TokenVerifier) auth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if strings.HasPrefix(token, tokenPrefix) || jwtv == nil {
			return static(ctx, token, r)
		}
		info, err := jwtv(ctx, token, r)
		if err != nil {
			return nil, err
		}
		sub, _ := FromInfo(info)
		store := storeOf(ctx)
		if store == nil {
			return nil, errNoStore
		}
		taken, err := store.TokenNameTaken(ctx, sub.Name)
		if err != nil {
			return nil, fmt.Errorf("checking the subject's name: %w", err)
		}
		if taken {
			return nil, fmt.Errorf("%w: %w", auth.ErrInvalidToken, errNameInUse(sub.Name))
		}
		return info, nil
	}
}
