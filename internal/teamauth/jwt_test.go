package teamauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

const (
	testIssuer   = "https://id.example"
	testAudience = "langspec-team"
)

func claims(mod func(jwt.MapClaims)) jwt.MapClaims {
	c := jwt.MapClaims{"iss": testIssuer, "aud": testAudience, "sub": "alice", "exp": time.Now().Add(time.Hour).Unix()}
	if mod != nil {
		mod(c)
	}
	return c
}

func sign(t *testing.T, m jwt.SigningMethod, kid string, c jwt.MapClaims, key any) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJWTVerifierHS256 holds HS256 tokens to the issuer, audience and
// dates, and refuses "alg": "none".
func TestJWTVerifierHS256(t *testing.T) {
	secret := []byte("a shared secret of enough length!")
	v, err := JWTVerifier(context.Background(), JWTOptions{Issuer: testIssuer, Audience: testAudience, Secret: secret,
		Tools: map[string][]string{"alice": {"search_spec"}}})
	if err != nil {
		t.Fatal(err)
	}
	info, err := v(context.Background(), sign(t, jwt.SigningMethodHS256, "", claims(nil), secret), nil)
	if err != nil || info.UserID != testIssuer+"#alice" {
		t.Fatalf("a good token: %+v, %v", info, err)
	}
	if s := info.Extra[subjectKey].(Subject); s.Name != "alice" || s.Issuer != testIssuer || len(s.Tools) != 1 || s.Tools[0] != "search_spec" {
		t.Errorf("alice = %+v", s)
	}
	none, err := jwt.NewWithClaims(jwt.SigningMethodNone, claims(nil)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	for name, token := range map[string]string{
		"expired":         sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), secret),
		"no expiry":       sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { delete(c, "exp") }), secret),
		"not yet valid":   sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), secret),
		"wrong audience":  sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["aud"] = "someone-else" }), secret),
		"wrong issuer":    sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }), secret),
		"no subject":      sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { delete(c, "sub") }), secret),
		"other secret":    sign(t, jwt.SigningMethodHS256, "", claims(nil), []byte("another secret of enough length!!")),
		"alg none":        none,
		"HS512":           sign(t, jwt.SigningMethodHS512, "", claims(nil), secret),
		"garbage":         "not.a.jwt",
		"subject as path": sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix(); c["sub"] = "../bob" }), secret),
	} {
		if _, err := v(context.Background(), token, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	// A subject that cannot name a folder goes by a digest of it.
	info, err = v(context.Background(), sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["sub"] = "auth0|../x" }), secret), nil)
	if s, _ := FromInfo(info); err != nil || !strings.HasPrefix(s.Name, "sub-") || CheckName(s.Name) != nil || info.UserID != s.Key() {
		t.Errorf("sub auth0|../x: %+v, %v", info, err)
	}
}

// jwks serves a JWK Set that a test can rotate, counting fetches; while
// hold is open, a fetch waits for it to close (to make fetches overlap).
type jwks struct {
	mu      sync.Mutex
	keys    []map[string]string
	hold    chan struct{}
	fetches atomic.Int64
}

func (j *jwks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	j.fetches.Add(1)
	j.mu.Lock()
	hold := j.hold
	j.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{"keys": j.keys})
}

func (j *jwks) set(keys ...map[string]string) {
	j.mu.Lock()
	j.keys = keys
	j.mu.Unlock()
}

func (j *jwks) holdFetches(hold chan struct{}) {
	j.mu.Lock()
	j.hold = hold
	j.mu.Unlock()
}

func (j *jwks) count() int { return int(j.fetches.Load()) }

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("after 10 s, still not: %s", what)
		}
	}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid string, k *rsa.PrivateKey) map[string]string {
	return map[string]string{"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PrivateKey) map[string]string {
	pub, _ := k.PublicKey.ECDH()
	raw := pub.Bytes() // 0x04 || X || Y
	return map[string]string{"kty": "EC", "kid": kid, "alg": "ES256", "use": "sig", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:])}
}

// TestJWTVerifierJWKS: RS256 and ES256 tokens by keys of a JWK Set on
// httptest, a rotation picked up without a restart, and an HS256 token
// made with the public key as its secret (algorithm confusion) refused.
func TestJWTVerifierJWKS(t *testing.T) {
	rsa1, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsa2, _ := rsa.GenerateKey(rand.Reader, 2048)
	ec1, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := &jwks{}
	set.set(rsaJWK("r1", rsa1), ecJWK("e1", ec1))
	srv := httptest.NewServer(set)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := JWTVerifier(ctx, JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, HTTPClient: srv.Client(),
		UnknownKeyRefresh: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for name, token := range map[string]string{
		"RS256": sign(t, jwt.SigningMethodRS256, "r1", claims(nil), rsa1),
		"ES256": sign(t, jwt.SigningMethodES256, "e1", claims(nil), ec1),
	} {
		if info, err := v(ctx, token, nil); err != nil || info.UserID != testIssuer+"#alice" {
			t.Errorf("%s: %+v, %v", name, info, err)
		}
	}
	pubDER, _ := x509.MarshalPKIXPublicKey(&rsa1.PublicKey)
	// The attacker's own key set, which a token may name in its header:
	// the verifier must never fetch it.
	attacker, _ := rsa.GenerateKey(rand.Reader, 2048)
	evil := &jwks{}
	evil.set(rsaJWK("evil", attacker))
	evilSrv := httptest.NewServer(evil)
	defer evilSrv.Close()
	withHeader := func(token jwt.SigningMethod, kid string, key any, header map[string]any) string {
		tok := jwt.NewWithClaims(token, claims(nil))
		tok.Header["kid"] = kid
		for k, v := range header {
			tok.Header[k] = v
		}
		signed, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return signed
	}
	for name, token := range map[string]string{
		"unknown key":                          sign(t, jwt.SigningMethodRS256, "r2", claims(nil), rsa2),
		"algorithm confusion":                  sign(t, jwt.SigningMethodHS256, "r1", claims(nil), pubDER),
		"wrong audience":                       sign(t, jwt.SigningMethodRS256, "r1", claims(func(c jwt.MapClaims) { c["aud"] = "x" }), rsa1),
		"jku injection":                        withHeader(jwt.SigningMethodRS256, "evil", attacker, map[string]any{"jku": evilSrv.URL}),
		"x5u injection":                        withHeader(jwt.SigningMethodRS256, "evil", attacker, map[string]any{"x5u": evilSrv.URL}),
		"embedded jwk":                         withHeader(jwt.SigningMethodRS256, "evil", attacker, map[string]any{"jwk": rsaJWK("evil", attacker)}),
		"kid path traversal":                   withHeader(jwt.SigningMethodHS256, "../../../../dev/null", []byte(""), nil),
		"kid SQL":                              withHeader(jwt.SigningMethodRS256, "r1' OR '1'='1", attacker, nil),
		"kid of a real key, signed by another": withHeader(jwt.SigningMethodRS256, "r1", attacker, nil),
	} {
		if _, err := v(ctx, token, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", name, err)
		}
	}
	if n := evil.fetches.Load(); n != 0 {
		t.Errorf("the verifier fetched the attacker's key set %d times", n)
	}
	// The issuer rotates to r2: a token of r2 makes the verifier fetch the
	// set again (an unknown key id), and r1 is gone.
	set.set(rsaJWK("r2", rsa2))
	var lastErr error
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if _, lastErr = v(ctx, sign(t, jwt.SigningMethodRS256, "r2", claims(nil), rsa2), nil); lastErr == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if lastErr != nil {
		t.Fatalf("after the rotation, a token of the new key: %v", lastErr)
	}
	if _, err := v(ctx, sign(t, jwt.SigningMethodRS256, "r1", claims(nil), rsa1), nil); err == nil {
		t.Error("after the rotation, a token of the retired key still passes")
	}
}

// TestJWTLeeway: the 30 s clock leeway holds for exp all the way through
// the SDK's bearer middleware, which refuses a TokenInfo whose Expiration
// has passed; beyond the leeway the verifier refuses.
func TestJWTLeeway(t *testing.T) {
	secret := []byte("a shared secret of enough length!")
	v, err := JWTVerifier(context.Background(), JWTOptions{Issuer: testIssuer, Audience: testAudience, Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(auth.RequireBearerToken(v, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		mod  func(jwt.MapClaims)
		ok   bool
	}{
		{"exp 5 s ago", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-5 * time.Second).Unix() }, true},
		{"nbf in 20 s", func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(20 * time.Second).Unix() }, true},
		{"exp 60 s ago", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-60 * time.Second).Unix() }, false},
		{"nbf in 60 s", func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(60 * time.Second).Unix() }, false},
	} {
		token := sign(t, jwt.SigningMethodHS256, "", claims(tc.mod), secret)
		_, err := v(context.Background(), token, nil)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, auth.ErrInvalidToken)) {
			t.Errorf("%s: the verifier says %v, want ok %v (else ErrInvalidToken)", tc.name, err, tc.ok)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{true: http.StatusNoContent, false: http.StatusUnauthorized}[tc.ok]; resp.StatusCode != want {
			t.Errorf("%s: through the middleware %d, want %d", tc.name, resp.StatusCode, want)
		}
	}
}
