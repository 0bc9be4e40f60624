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
		if local != nil && isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
			http.Error(w, "Host "+strconv.Quote(r.Host)+" is not this server's: a server on a loopback address answers to localhost, 127.0.0.1 or [::1] only",
				http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackAddr says whether hostport (or a bare host) names the loopback
// interface: localhost or a loopback IP.
func isLoopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
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
func requireBearer(next http.Handler, verify auth.TokenVerifier, c bearerChallenge) http.Handler {
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
		info, err := verify(r.Context(), token, r)
		switch {
		case err == nil && info != nil && !info.Expiration.IsZero() && info.Expiration.Before(time.Now()):
			err = fmt.Errorf("%w: the token expired at %s", auth.ErrInvalidToken, info.Expiration.UTC().Format(time.RFC3339))
		case err == nil && info == nil:
			err = errors.New("the verifier returned no token information")
		}
		if errors.Is(err, auth.ErrInvalidToken) {
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

// limitBody refuses (413) a request body over max bytes.
func limitBody(next http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > max {
			http.Error(w, fmt.Sprintf("request body of %d bytes is over the limit of %d", r.ContentLength, max), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// maxLimiters bounds the rate limiters kept, one per subject or address.
const maxLimiters = 10000

// rateLimit answers 429 to a subject (or, without auth, a remote address)
// sending more than perSecond requests a second beyond a burst of burst.
func rateLimit(next http.Handler, perSecond float64, burst int) http.Handler {
	var mu sync.Mutex
	limiters := map[string]*rate.Limiter{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "subject:" + subjectOf(r).Key()
		if subjectOf(r).Name == "" {
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			key = "addr:" + host
		}
		mu.Lock()
		l := limiters[key]
		if l == nil {
			if len(limiters) >= maxLimiters {
				// Many addresses (a scan): start over rather than grow
				// without bound; each starts again with a full burst.
				clear(limiters)
			}
			l = rate.NewLimiter(rate.Limit(perSecond), burst)
			limiters[key] = l
		}
		mu.Unlock()
		res := l.Reserve()
		if wait := res.Delay(); wait > 0 {
			res.Cancel()
			tooMany(w, r, perSecond, burst, wait)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// tooMany answers 429 with Retry-After (whole seconds, at least one) and
// a JSON-RPC error a client can show, carrying the request's id when it
// has one.
func tooMany(w http.ResponseWriter, r *http.Request, perSecond float64, burst int, wait time.Duration) {
	retry := max(1, int(math.Ceil(wait.Seconds())))
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
