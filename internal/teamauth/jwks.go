package teamauth

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// The key set is fetched at start and every jwksRefresh. A token signed
// with a key not in it makes a fetch at once, so that a rotation is
// picked up without waiting — but not every such token: tokens with
// made-up key ids must neither make the server flood the issuer nor use
// up the fetches a real rotation needs. So
//   - a token makes a fetch only if it could be accepted once its key is
//     known (iss, aud, exp, nbf, sub, alg right, a kid named): junk with
//     a wrong issuer or audience costs nothing;
//   - one key id makes at most one fetch per unknownKeyRefresh: the same
//     junk key id sent again costs nothing, and tokens of one key that
//     arrive while its fetch is under way wait for that fetch;
//   - all key ids together make at most one fetch per
//     unknownKeyRefreshAll after a burst of unknownKeyBurst, which spares
//     the issuer and is still far above what an attacker sending one
//     made-up key id every 2 s uses up, so a real new key finds the
//     limiter full.
//
// A single limiter for all key ids (keyfunc's own RefreshUnknownKID)
// could not do this: junk every 2 s kept it empty, and a token of a key
// the issuer had just rotated in waited or was refused for up to a
// minute.
const (
	jwksRefresh          = time.Hour
	unknownKeyRefresh    = 30 * time.Second
	unknownKeyRefreshAll = time.Second
	unknownKeyBurst      = 3
	// unknownKeyMemory bounds the key ids remembered for unknownKeyRefresh;
	// the oldest is forgotten first. The limiter across key ids already
	// keeps the list far shorter; this is a bound should it be set fast.
	unknownKeyMemory = 1024
	// jwksFetchTimeout bounds one fetch of the key set, whatever client
	// the options give.
	jwksFetchTimeout = 10 * time.Second
)

// errNoFetch says why a token of an unknown key made no fetch.
var errNoFetch = errors.New("the key set was not fetched again")

// keySet is an issuer's JWK Set, for RS256 and ES256 tokens.
type keySet struct {
	// ctx is the verifier's life: a fetch runs under it rather than under
	// the request that made it, since tokens of other requests may be
	// waiting for it too.
	ctx context.Context
	// keys finds a token's key in the stored set; it never fetches.
	keys keyfunc.Keyfunc
	// refetch fetches the set again. It is jwkset's HTTP client over the
	// same storage, with an unknown-kid limiter that always allows: the
	// HTTP storage's refresh is unexported, and this client's KeyRead is
	// the one public way to run it. refreshGate decides when to call it.
	refetch jwkset.Storage
	// acceptable says whether a token's unverified claims and header could
	// be accepted once its key is known.
	acceptable func(*jwt.Token) error
	gate       *refreshGate
}

// newKeySet fetches the key set at url now (a failure is logged, not
// returned, so that the server starts while the issuer is down; the
// first token then fetches again) and every jwksRefresh until ctx ends.
func newKeySet(ctx context.Context, url string, client *http.Client, log *slog.Logger, acceptable func(*jwt.Token) error,
	gate *refreshGate) (*keySet, error) {
	store, err := jwkset.NewStorageFromHTTP(url, jwkset.HTTPClientStorageOptions{
		Client:                    client,
		Ctx:                       ctx,
		HTTPTimeout:               jwksFetchTimeout,
		NoErrorReturnFirstHTTPReq: true,
		RefreshInterval:           jwksRefresh,
		RefreshErrorHandler: func(_ context.Context, err error) {
			log.Warn("fetching the JWK Set failed", "url", url, "err", err)
		},
	})
	if err != nil {
		return nil, err
	}
	refetch, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs:          map[string]jwkset.Storage{url: store},
		RefreshUnknownKID: rate.NewLimiter(rate.Inf, 0),
	})
	if err != nil {
		return nil, err
	}
	keys, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: store})
	if err != nil {
		return nil, err
	}
	return &keySet{ctx: ctx, keys: keys, refetch: refetch, acceptable: acceptable, gate: gate}, nil
}

// keyfunc finds a token's key, fetching the set again if the token names
// a key it lacks and may make a fetch; ctx is the request's.
func (ks *keySet) keyfunc(ctx context.Context) jwt.Keyfunc {
	read := ks.keys.KeyfuncCtx(ctx)
	return func(t *jwt.Token) (any, error) {
		key, err := read(t)
		if !errors.Is(err, jwkset.ErrKeyNotFound) {
			return key, err
		}
		// Only a token naming a key id gets here: without one, keyfunc
		// tries every stored key.
		kid, _ := t.Header[jwkset.HeaderKID].(string)
		if kid == "" {
			return nil, err
		}
		if why := ks.acceptable(t); why != nil {
			return nil, fmt.Errorf("%w: %w (%w)", err, errNoFetch, why)
		}
		if err := ks.fetch(ctx, kid); err != nil {
			return nil, err
		}
		return read(t)
	}
}

// fetch fetches the set again for kid, or waits for the fetch kid made
// already, as the gate says.
func (ks *keySet) fetch(ctx context.Context, kid string) error {
	f, lead := ks.gate.claim(kid, time.Now())
	if f == nil {
		return fmt.Errorf("%w: too many key ids unknown of late", errNoFetch)
	}
	if lead {
		go func() {
			defer close(f.done)
			ctx, cancel := context.WithTimeout(ks.ctx, jwksFetchTimeout)
			defer cancel()
			// Its result is read again by every waiter; a failed fetch has
			// been logged by the storage's RefreshErrorHandler.
			ks.refetch.KeyRead(ctx, kid)
		}()
	}
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// acceptableUnverified is the check newKeySet wants: v holds the claims to
// what the parser will (iss, aud, exp with the leeway, nbf); the parser
// has already held alg to methods before it asks for a key, but this is
// cheap and keeps the check whole should that order change.
func acceptableUnverified(v *jwt.Validator, methods []string) func(*jwt.Token) error {
	return func(t *jwt.Token) error {
		if t.Method == nil || !slices.Contains(methods, t.Method.Alg()) {
			return errors.New("an algorithm not accepted")
		}
		if err := v.Validate(t.Claims); err != nil {
			return err
		}
		if sub, _ := t.Claims.GetSubject(); sub == "" {
			return errors.New("no subject (sub)")
		}
		return nil
	}
}

// refreshGate decides which tokens of unknown keys make a fetch: a key id
// at most once per window, all of them at most as fast as all allows. It
// takes the time from its caller, so that tests can run its clock.
type refreshGate struct {
	window time.Duration
	all    *rate.Limiter
	max    int

	mu    sync.Mutex
	kids  map[string]*list.Element // of *kidFetch
	order list.List                // of *kidFetch, oldest first
}

// kidFetch is the last fetch a key id made; done closes when it ends.
type kidFetch struct {
	kid  string
	at   time.Time
	done chan struct{}
}

func newRefreshGate(window, every time.Duration, burst, max int) *refreshGate {
	return &refreshGate{window: window, all: rate.NewLimiter(rate.Every(every), burst), max: max,
		kids: map[string]*list.Element{}}
}

// claim returns the fetch kid is to wait for. If lead, the caller starts
// it and closes done when it ends; otherwise kid made it less than a
// window ago and it may be over already. nil: no fetch, the limit across
// key ids is reached (then kid is not remembered, so that it may fetch as
// soon as the limit allows).
func (g *refreshGate) claim(kid string, now time.Time) (f *kidFetch, lead bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for e := g.order.Front(); e != nil && now.Sub(e.Value.(*kidFetch).at) >= g.window; e = g.order.Front() {
		g.forget(e)
	}
	if e, ok := g.kids[kid]; ok {
		return e.Value.(*kidFetch), false // within the window, as expired ones are forgotten above
	}
	if !g.all.AllowN(now, 1) {
		return nil, false
	}
	for g.order.Len() >= g.max {
		g.forget(g.order.Front())
	}
	f = &kidFetch{kid: kid, at: now, done: make(chan struct{})}
	g.kids[kid] = g.order.PushBack(f)
	return f, true
}

func (g *refreshGate) forget(e *list.Element) {
	delete(g.kids, e.Value.(*kidFetch).kid)
	g.order.Remove(e)
}
