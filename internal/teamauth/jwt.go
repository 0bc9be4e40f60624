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

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"golang.org/x/time/rate"
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
	// UnknownKeyRefresh spaces the fetches a token of an unknown key makes;
	// 0 is unknownKeyRefresh.
	UnknownKeyRefresh time.Duration
	Logger            *slog.Logger
}

// clockLeeway is how far exp and nbf may be off between the issuer's clock
// and ours.
const clockLeeway = 30 * time.Second

// jwksRefresh is how often the key set is fetched again. A token signed
// with a key not in it makes a fetch at once, so a rotation is picked up
// without waiting — at most two at once and one every unknownKeyRefresh
// after, so that tokens with made-up key ids cannot make the server flood
// the issuer.
const (
	jwksRefresh       = time.Hour
	unknownKeyRefresh = 30 * time.Second
)

// JWTVerifier checks JWTs: signed with HS256 by Secret, or with RS256 or
// ES256 by a key of JWKSURL (fetched now, refreshed until ctx ends); iss,
// aud and exp present and right, nbf passed. Anything else — "alg": "none",
// an HS256 token against a key set (algorithm confusion), a wrong issuer
// or audience, an expired token — is auth.ErrInvalidToken (401).
func JWTVerifier(ctx context.Context, o JWTOptions) (auth.TokenVerifier, error) {
	var kf jwt.Keyfunc
	var methods []string
	switch {
	case len(o.Secret) > 0 && o.JWKSURL == "":
		methods = []string{jwt.SigningMethodHS256.Alg()}
		secret := o.Secret
		kf = func(*jwt.Token) (any, error) { return secret, nil }
	case len(o.Secret) == 0 && o.JWKSURL != "":
		methods = []string{jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg()}
		client := o.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: 10 * time.Second}
		}
		log := o.Logger
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		k, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{o.JWKSURL}, keyfunc.Override{
			Client:            client,
			RefreshInterval:   jwksRefresh,
			RefreshUnknownKID: rate.NewLimiter(rate.Every(cmp.Or(o.UnknownKeyRefresh, unknownKeyRefresh)), 2),
			RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
				return func(_ context.Context, err error) { log.Warn("refreshing the JWK Set failed", "url", u, "err", err) }
			},
		})
		if err != nil {
			return nil, fmt.Errorf("fetching the JWK Set %s: %w", o.JWKSURL, err)
		}
		kf = k.Keyfunc
	default:
		return nil, errors.New("teamauth: give a secret or a JWK Set URL, one of them")
	}
	parser := jwt.NewParser(jwt.WithValidMethods(methods), jwt.WithIssuer(o.Issuer), jwt.WithAudience(o.Audience),
		jwt.WithExpirationRequired(), jwt.WithLeeway(clockLeeway))
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		var claims jwt.RegisteredClaims
		if _, err := parser.ParseWithClaims(token, &claims, kf); err != nil {
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		}
		if claims.Subject == "" {
			return nil, fmt.Errorf("%w: the token has no subject (sub)", auth.ErrInvalidToken)
		}
		s := Subject{Name: subjectName(claims.Subject), Admin: o.Admins[claims.Subject]}
		if tools, ok := o.Tools[claims.Subject]; ok {
			s.Tools = tools
		}
		return &auth.TokenInfo{UserID: s.Name, Expiration: claims.ExpiresAt.Time, Extra: map[string]any{subjectKey: s}}, nil
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
func Either(static, jwtv auth.TokenVerifier) auth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		if strings.HasPrefix(token, tokenPrefix) || jwtv == nil {
			return static(ctx, token, r)
		}
		return jwtv(ctx, token, r)
	}
}
