package teamauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"
)

// TestJWTVerifierRotationUnderJunk is the attack: tokens with good claims
// and a made-up key id arrive every 2 ms, from many clients at once, and
// then the issuer rotates a new key in. The first token of the new key
// must pass, on its first try, after exactly one more fetch; the junk
// must have cost one fetch in all. (Before, one global limiter was kept
// empty by the junk and the new key's token was refused or held for up
// to a minute.)
func TestJWTVerifierRotationUnderJunk(t *testing.T) {
	retired, _ := rsa.GenerateKey(rand.Reader, 2048)
	rotated, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := &jwks{}
	set.set(rsaJWK("k1", retired))
	srv := httptest.NewServer(set)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := JWTVerifier(ctx, JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if n := set.count(); n != 1 {
		t.Fatalf("%d fetches at start, want 1", n)
	}

	junk := sign(t, jwt.SigningMethodRS256, "made-up", claims(nil), retired)
	var junkDone atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				wg.Go(func() {
					if _, err := v(ctx, junk, nil); err == nil {
						t.Error("a junk token passed")
					}
					junkDone.Add(1)
				})
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	waitFor(t, "50 junk tokens refused", func() bool { return junkDone.Load() >= 50 })

	set.set(rsaJWK("k1", retired), ecJWK("k2", rotated))
	before := set.count()
	result := make(chan error, 1)
	go func() {
		_, err := v(ctx, sign(t, jwt.SigningMethodES256, "k2", claims(nil), rotated), nil)
		result <- err
	}()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("the first token of the rotated key: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first token of the rotated key is not answered in 10 s")
	}
	if n := set.count() - before; n != 1 {
		t.Errorf("the rotated key made %d fetches, want 1", n)
	}
	if _, err := v(ctx, sign(t, jwt.SigningMethodES256, "k2", claims(nil), rotated), nil); err != nil {
		t.Errorf("the second token of the rotated key: %v", err)
	}
	if n := set.count(); n != 3 {
		t.Errorf("%d fetches in all, want 3: at start, for the junk key id once, for the rotated key", n)
	}
}

// TestJWTVerifierNoFetchForHopelessTokens: a token that could never be
// accepted, whatever keys the issuer has, makes no fetch; one with
// acceptable claims and an unknown key id makes one.
func TestJWTVerifierNoFetchForHopelessTokens(t *testing.T) {
	known, _ := rsa.GenerateKey(rand.Reader, 2048)
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := &jwks{}
	set.set(rsaJWK("k1", known))
	srv := httptest.NewServer(set)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := JWTVerifier(ctx, JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	es := func(kid string, mod func(jwt.MapClaims)) string {
		return sign(t, jwt.SigningMethodES256, kid, claims(mod), stranger)
	}
	kidNumber := jwt.NewWithClaims(jwt.SigningMethodES256, claims(nil))
	kidNumber.Header["kid"] = 42
	kidNumberToken, err := kidNumber.SignedString(stranger)
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		name    string
		token   string
		fetches int
	}{
		{"wrong issuer", es("u1", func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }), 0},
		{"no issuer", es("u2", func(c jwt.MapClaims) { delete(c, "iss") }), 0},
		{"wrong audience", es("u3", func(c jwt.MapClaims) { c["aud"] = "someone-else" }), 0},
		{"no audience", es("u4", func(c jwt.MapClaims) { delete(c, "aud") }), 0},
		{"expired beyond the leeway", es("u5", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() }), 0},
		{"no expiry", es("u6", func(c jwt.MapClaims) { delete(c, "exp") }), 0},
		{"not yet valid", es("u7", func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), 0},
		{"no subject", es("u8", func(c jwt.MapClaims) { delete(c, "sub") }), 0},
		{"no key id", es("", nil), 0},
		{"key id not a string", kidNumberToken, 0},
		{"HS256", sign(t, jwt.SigningMethodHS256, "u9", claims(nil), []byte("a shared secret of enough length!")), 0},
		{"RS512", sign(t, jwt.SigningMethodRS512, "u10", claims(nil), known), 0},
		{"acceptable claims, unknown key", es("u11", nil), 1},
		{"the same unknown key again", es("u11", nil), 0},
	} {
		before := set.count()
		if _, err := v(ctx, tc.token, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%d %s: %v, want ErrInvalidToken", i, tc.name, err)
		}
		if n := set.count() - before; n != tc.fetches {
			t.Errorf("%d %s: %d fetches, want %d", i, tc.name, n, tc.fetches)
		}
	}
}

// TestJWTVerifierConcurrentMissesShareAFetch: many tokens of a key that
// just rotated in, arriving while its fetch is under way, wait for that
// one fetch and all pass.
func TestJWTVerifierConcurrentMissesShareAFetch(t *testing.T) {
	first, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rotated, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := &jwks{}
	set.set(ecJWK("k1", first))
	srv := httptest.NewServer(set)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := JWTVerifier(ctx, JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	set.set(ecJWK("k1", first), ecJWK("k2", rotated))
	hold := make(chan struct{})
	set.holdFetches(hold)
	token := sign(t, jwt.SigningMethodES256, "k2", claims(nil), rotated)
	const n = 20
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := v(ctx, token, nil)
			errs <- err
		}()
	}
	waitFor(t, "the rotated key's fetch under way", func() bool { return set.count() >= 2 })
	close(hold)
	for range n {
		if err := <-errs; err != nil {
			t.Errorf("a token of the rotated key: %v", err)
		}
	}
	if got := set.count(); got != 2 {
		t.Errorf("%d fetches, want 2: at start, and one for all %d tokens", got, n)
	}
}

// TestJWTVerifierJunkKidFlood: distinct made-up key ids, each with good
// claims, from many clients at once, make no more fetches than the limit
// across all key ids allows.
func TestJWTVerifierJunkKidFlood(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := &jwks{}
	set.set(ecJWK("k1", key))
	srv := httptest.NewServer(set)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := JWTVerifier(ctx, JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, HTTPClient: srv.Client(),
		UnknownKeyRefreshAll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	const clients, each = 10, 30
	junk := make([][]string, clients)
	for c := range junk {
		for i := range each {
			junk[c] = append(junk[c], sign(t, jwt.SigningMethodES256, fmt.Sprintf("junk-%d-%d", c, i), claims(nil), key))
		}
	}
	var wg sync.WaitGroup
	for _, tokens := range junk {
		wg.Go(func() {
			for _, token := range tokens {
				if _, err := v(ctx, token, nil); !errors.Is(err, auth.ErrInvalidToken) {
					t.Errorf("a junk token: %v, want ErrInvalidToken", err)
				}
			}
		})
	}
	wg.Wait()
	if got, most := set.count(), 1+unknownKeyBurst; got > most {
		t.Errorf("%d distinct junk key ids made %d fetches, want at most %d", clients*each, got, most)
	}
}

// TestJWTVerifierRotationUnderDistinctJunk is the attack with a new key
// id in every junk token, at half the rate the limit across key ids
// refills (scaled down from one token every 2 s against one fetch a
// second): the first token of a rotated key still passes at once.
func TestJWTVerifierRotationUnderDistinctJunk(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	rotated, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	set := &jwks{}
	set.set(ecJWK("k1", key))
	srv := httptest.NewServer(set)
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v, err := JWTVerifier(ctx, JWTOptions{Issuer: testIssuer, Audience: testAudience, JWKSURL: srv.URL, HTTPClient: srv.Client(),
		UnknownKeyRefreshAll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// 200 tokens last 4 s; the rotation comes after 10.
	var junk []string
	for i := range 200 {
		junk = append(junk, sign(t, jwt.SigningMethodES256, fmt.Sprintf("junk-%d", i), claims(nil), key))
	}
	var junkDone atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for _, token := range junk {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := v(ctx, token, nil); err == nil {
					t.Error("a junk token passed")
				}
				junkDone.Add(1)
			}
		}
	})
	defer wg.Wait()
	defer close(stop)
	waitFor(t, "10 junk tokens refused", func() bool { return junkDone.Load() >= 10 })
	set.set(ecJWK("k1", key), ecJWK("k2", rotated))
	if _, err := v(ctx, sign(t, jwt.SigningMethodES256, "k2", claims(nil), rotated), nil); err != nil {
		t.Fatalf("the first token of the rotated key: %v", err)
	}
}
