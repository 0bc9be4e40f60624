package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/time/rate"

	"github.com/langspec/langspec/internal/teamauth"
)

// checkHost refuses (403) a request that reached a loopback address under
// a name that is not a loopback one: a page of the attacker's domain whose
// name they re-pointed at 127.0.0.1 (DNS rebinding) is same-origin with
// the server as far as the browser knows, and would otherwise read every
// page, its CSRF tokens and the metrics. The SDK checks /mcp the same way;
// this is the one check for every route.
func checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && IsLoopback(local.String()) && !IsLoopback(r.Host) {
			http.Error(w, "Host "+strconv.Quote(r.Host)+" is not this server's: a server on a loopback address answers to localhost, 127.0.0.1 or [::1] only",
				http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopback says whether addr, a host:port or a bare host (a Host header
// may leave out the port), names the loopback interface only: localhost
// in any case, or a loopback IP (127.0.0.0/8, ::1). An empty host (":8080")
// and the unspecified addresses (0.0.0.0, ::) bind every interface, and a
// port alone ("8080") or any other name is not loopback. It is the one
// answer to "loopback?" for both the address a team server listens on (no
// auth is needed there) and the Host a request names (checkHost).
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bearerChallenge is what a 401 of the team server says in
// WWW-Authenticate (RFC 6750 section 3).
type bearerChallenge struct {
	realm string
	// resourceMetadata points at the protected resource metadata (RFC
	// 9728) when an authorization server is there to log in to; "" with
	// langspec's own tokens only, so that no client starts an OAuth
	// discovery that cannot complete.
	resourceMetadata string
}

// header is the challenge, with error="invalid_token" when a token was
// sent and refused.
func (c bearerChallenge) header(invalid bool, description string) string {
	params := []string{"realm=" + strconv.Quote(c.realm)}
	if c.resourceMetadata != "" {
		params = append(params, "resource_metadata="+strconv.Quote(c.resourceMetadata))
	}
	if invalid {
		params = append(params, `error="invalid_token"`, "error_description="+strconv.Quote(description))
	}
	return "Bearer " + strings.Join(params, ", ")
}

// howToGetAToken ends every 401's body: what to send, and how an admin
// makes it.
const howToGetAToken = "send Authorization: Bearer TOKEN; an admin of this server makes a token with: langspec token create NAME"

// verifiedKey carries the TokenInfo requireBearer verified to the SDK's
// middleware, which puts it where the SDK's transport reads it.
type verifiedKey struct{}

// requireBearer answers 401 to a request without a valid bearer token,
// with a challenge that says what was wrong and a body that says what to
// do. A valid token's TokenInfo reaches next through the SDK's own
// middleware (auth.RequireBearerToken), so the SDK binds each session to
// the subject that made it, as it does for its own verifiers.
func requireBearer(next http.Handler, verify auth.TokenVerifier, c bearerChallenge, lim *limiter) http.Handler {
	sdk := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		return ctx.Value(verifiedKey{}).(*auth.TokenInfo), nil
	}, nil)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		token = strings.TrimSpace(token)
		if !strings.EqualFold(scheme, "Bearer") || token == "" {
			w.Header().Set("WWW-Authenticate", c.header(false, ""))
			http.Error(w, "this server needs a bearer token: "+howToGetAToken, http.StatusUnauthorized)
			return
		}
		if wait := lim.credentialWait(r); wait > 0 {
			tooMany(w, r, lim.perSecond, lim.burst, wait)
			return
		}
		info, err := verify(r.Context(), token, r)
		switch {
		case err == nil && info != nil && !info.Expiration.IsZero() && info.Expiration.Before(time.Now()):
			err = fmt.Errorf("%w: the token expired at %s", auth.ErrInvalidToken, info.Expiration.UTC().Format(time.RFC3339))
		case err == nil && info == nil:
			err = errors.New("the verifier returned no token information")
		}
		if errors.Is(err, auth.ErrInvalidToken) {
			lim.CredentialFailed(r)
			w.Header().Set("WWW-Authenticate", c.header(true, "the token is unknown, revoked, expired or not for this server"))
			http.Error(w, "the bearer token was refused ("+err.Error()+"); "+howToGetAToken, http.StatusUnauthorized)
			return
		}
		if err != nil {
			http.Error(w, "the token could not be checked: "+err.Error(), http.StatusInternalServerError)
			return
		}
		sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedKey{}, info)))
	})
}

// trackSessions runs every stateful request through the session registry
// (sessionRegistry.track), with the subject's server.
func trackSessions(next http.Handler, sr *sessionRegistry) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sub := subjectOf(r)
		s, err := generationOf(r).subjects.get(sub)
		if err != nil {
			next.ServeHTTP(w, r) // the SDK answers, as it would without the registry
			return
		}
		sr.track(w, r, sub.Key(), s, next)
	})
}

// checkOrigin refuses (403) a request whose Origin is not allowed: a web
// page the user visits must not reach the server through their browser.
// The server's own pages (/ui) are allowed when it is reached by an IP
// address or localhost: a DNS-rebinding page has the same origin as the
// server, but under a name of the attacker's, which must be named by
// --allow-origin to pass.
func checkOrigin(next http.Handler, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !slices.Contains(allowed, o) && !ownPage(r, o) {
			http.Error(w, "origin "+strconv.Quote(o)+" is not allowed; add it with --allow-origin", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ownPage says whether origin is the server's own, reached by an IP
// address or localhost.
func ownPage(r *http.Request, origin string) bool {
	if origin != "http://"+r.Host && origin != "https://"+r.Host {
		return false
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	return host == "localhost" || net.ParseIP(strings.Trim(host, "[]")) != nil
}

// limitBody refuses (413) a request body over max bytes: in JSON-RPC on
// the MCP endpoint (a body without a length that runs over is answered
// there by vetMessages), in plain text elsewhere.
func limitBody(next http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			msg := fmt.Sprintf("request body of %d bytes is over the limit of %d; send smaller arguments", r.ContentLength, max)
			if r.URL.Path == PathMCP {
				writeRejections(w, http.StatusRequestEntityTooLarge, []rejection{{err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}}}, false)
				return
			}
			http.Error(w, msg, http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// maxLimiters bounds the rate limiters kept, one per subject or address.
const maxLimiters = 10000

// rateLogEvery spaces the log lines of one key's 429s: the first refusal
// of a flood is logged at once, then one line at most this often, with how
// many were refused since, so that a flood cannot flood the log too.
const rateLogEvery = 10 * time.Second

// limiter is the team server's one rate limit, in front of every route
// that runs a query: /mcp, the management page (its login form too),
// /metrics and /health. Each subject has a bucket of its own, shared by
// every route; a request without a subject (the login form, /health, a
// server without auth) is counted by its remote address. A nil limiter
// lets everything through (a loopback server without auth and without
// --rate).
type limiter struct {
	perSecond float64
	burst     int
	log       *slog.Logger
	now       func() time.Time

	mu    sync.Mutex
	byKey map[string]*bucket
}

type bucket struct {
	*rate.Limiter
	refused int       // 429s since the last log line
	logged  time.Time // when the last log line was written
}

// newLimiter is the limiter of perSecond requests a second in bursts of
// burst; nil when perSecond is negative (no limit).
func newLimiter(perSecond float64, burst int, log *slog.Logger) *limiter {
	if perSecond < 0 {
		return nil
	}
	return &limiter{perSecond: perSecond, burst: burst, log: log, now: time.Now, byKey: map[string]*bucket{}}
}

// limitKey is whose bucket a request draws from: its subject's, or its
// remote address's when it has none.
func limitKey(sub teamauth.Subject, r *http.Request) string {
	if sub.Name != "" {
		return "subject:" + sub.Key()
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// reserve takes one request from key's bucket; the wait is how long until
// it would have had one (0: it did).
func (l *limiter) reserve(key string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.byKey[key]
	if b == nil {
		if len(l.byKey) >= maxLimiters {
			// Many addresses (a scan): start over rather than grow
			// without bound; each starts again with a full burst.
			clear(l.byKey)
		}
		b = &bucket{Limiter: rate.NewLimiter(rate.Limit(l.perSecond), l.burst)}
		l.byKey[key] = b
	}
	res := b.ReserveN(l.now(), 1)
	wait := res.DelayFrom(l.now())
	if wait <= 0 {
		return 0
	}
	res.CancelAt(l.now())
	b.refused++
	if now := l.now(); now.Sub(b.logged) >= rateLogEvery {
		l.log.Warn("rate limited", "key", key, "refused", b.refused, "rate_per_second", l.perSecond, "burst", l.burst)
		b.refused, b.logged = 0, now
	}
	return wait
}

// Allow says whether the request of sub may go on; when not, it has
// answered 429 with Retry-After in plain text (the page's routes). A nil
// limiter allows everything.
func (l *limiter) Allow(w http.ResponseWriter, r *http.Request, sub teamauth.Subject) bool {
	if l == nil {
		return true
	}
	wait := l.reserve(limitKey(sub, r))
	if wait <= 0 {
		return true
	}
	retry := retryAfter(wait)
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	http.Error(w, fmt.Sprintf("rate limited: this subject may send %g requests a second, in bursts of %d; retry after %d s", l.perSecond, l.burst, retry),
		http.StatusTooManyRequests)
	return false
}

// Refused credentials are counted too, by address, in a bucket of their
// own: checking a token is a query, and a client sending made-up tokens
// has no subject whose bucket could stop it. While an address's bucket of
// failures is empty, its credentials are not checked at all (429); a
// valid token from it is not counted there, so colleagues behind one
// proxy are held up only while someone there keeps failing faster than
// --rate.
func failKey(r *http.Request) string { return "fail:" + limitKey(teamauth.Subject{}, r) }

// credentialWait is how long until r's address may have a credential
// checked again: 0 while its failures have not emptied its bucket.
func (l *limiter) credentialWait(r *http.Request) time.Duration {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.byKey[failKey(r)]
	if b == nil || b.TokensAt(l.now()) >= 1 {
		return 0
	}
	return time.Duration((1 - b.TokensAt(l.now())) / l.perSecond * float64(time.Second))
}

// AllowCredential says whether a credential from r's address may be
// checked; when not, it has answered 429 in plain text (the page).
func (l *limiter) AllowCredential(w http.ResponseWriter, r *http.Request) bool {
	wait := l.credentialWait(r)
	if wait <= 0 {
		return true
	}
	retry := retryAfter(wait)
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	http.Error(w, fmt.Sprintf("too many refused tokens from this address; retry after %d s", retry), http.StatusTooManyRequests)
	return false
}

// CredentialFailed counts a refused credential against r's address.
func (l *limiter) CredentialFailed(r *http.Request) {
	if l != nil {
		l.reserve(failKey(r))
	}
}

// bySubject limits an MCP route: a 429 answered in JSON-RPC, with the
// request's id.
func (l *limiter) bySubject(next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if wait := l.reserve(limitKey(subjectOf(r), r)); wait > 0 {
			tooMany(w, r, l.perSecond, l.burst, wait)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// plain limits a route that is not MCP (/metrics, /health) by its subject
// or address, answering 429 in plain text.
func (l *limiter) plain(next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if l.Allow(w, r, subjectOf(r)) {
			next.ServeHTTP(w, r)
		}
	})
}

func retryAfter(wait time.Duration) int { return max(1, int(math.Ceil(wait.Seconds()))) }

// tooMany answers 429 with Retry-After (whole seconds, at least one) and
// a JSON-RPC error a client can show, carrying the request's id when it
// has one.
func tooMany(w http.ResponseWriter, r *http.Request, perSecond float64, burst int, wait time.Duration) {
	retry := retryAfter(wait)
	var id json.RawMessage
	if r.Method == http.MethodPost {
		if body, err := io.ReadAll(r.Body); err == nil && json.Valid(body) {
			id = readMembers(body).id
		}
	}
	w.Header().Set("Retry-After", strconv.Itoa(retry))
	data, _ := json.Marshal(map[string]any{"retry_after_seconds": retry, "rate_per_second": perSecond, "burst": burst})
	writeRejections(w, http.StatusTooManyRequests, []rejection{{id: id, err: &jsonrpc.Error{Code: codeRateLimited, Data: data,
		Message: fmt.Sprintf("rate limited: this subject may send %g requests a second, in bursts of %d; retry after %d s (the server's --rate sets it)",
			perSecond, burst, retry)}}}, false)
}

// codeRateLimited is the JSON-RPC error code of a 429: in the range
// JSON-RPC leaves to servers; MCP defines none for it.
const codeRateLimited = -32029

// logRequests writes one debug line per HTTP request (method, path,
// status, milliseconds; never a header): what a client sends, and how
// fast, read off `serve --http --log-level debug` — how the default
// --rate was chosen (README).
func logRequests(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !log.Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		log.Debug("http request", "method", r.Method, "path", r.URL.Path, "status", cmp.Or(rec.status, http.StatusOK),
			"ms", float64(time.Since(start).Microseconds())/1000)
	})
}
