package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/vault"
)

// HTTP paths of the team server.
const (
	PathMCP      = "/mcp"
	PathHealth   = "/health"
	PathMetadata = "/.well-known/oauth-protected-resource"
)

// HTTPOptions configure the team server (`langspec serve --http`).
type HTTPOptions struct {
	// BaseURL is where clients reach the server (http://host:port), for
	// the protected resource metadata and its WWW-Authenticate pointer.
	BaseURL string
	// Verifier checks bearer tokens; nil serves everyone as one subject
	// without asking (a loopback address only, unless the caller allowed
	// otherwise).
	Verifier auth.TokenVerifier
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served; a request from any other Origin gets 403,
	// against DNS rebinding. Requests without an Origin (MCP clients that
	// are not browsers) are served.
	AllowedOrigins []string
	// AuthorizationServers are the issuers named in the protected resource
	// metadata, where clients log in.
	AuthorizationServers []string
	MaxBodyBytes         int64   // per request; 0 is DefaultMaxBodyBytes
	RatePerSecond        float64 // sustained requests per subject; 0 is DefaultRatePerSecond
	RateBurst            int     // requests a subject may send at once; 0 is DefaultRateBurst
	VaultRoot            string  // each subject's vault is VaultRoot/<subject>; "" keeps Deps.Vault for everyone
	Now                  func() time.Time
}

// Defaults of HTTPOptions.
const (
	DefaultMaxBodyBytes  = 1 << 20
	DefaultRatePerSecond = 20
	DefaultRateBurst     = 40
)

// NewHTTPHandler serves d over streamable HTTP at PathMCP, with PathHealth
// and the protected resource metadata. Each subject gets a server of its
// own, built on its first request: the tools its token allows (over
// opts.Mask), and its own vault folder. Categories are served as on stdio;
// upstream servers (opts.Upstreams) are not served over HTTP yet.
func NewHTTPHandler(ctx context.Context, d tools.Deps, opts Options, h HTTPOptions) (http.Handler, error) {
	if opts.Upstreams != nil {
		return nil, apperr.New(apperr.InvalidArgument, "serve mcpServers over stdio, or leave them out of the configuration the team server reads",
			"serve --http does not serve upstream MCP servers yet")
	}
	d.Logger = logger(&d)
	h.MaxBodyBytes = cmpOr(h.MaxBodyBytes, DefaultMaxBodyBytes)
	h.RatePerSecond = cmpOr(h.RatePerSecond, DefaultRatePerSecond)
	h.RateBurst = cmpOr(h.RateBurst, DefaultRateBurst)
	subjects := &subjectServers{ctx: ctx, deps: d, opts: opts, vaultRoot: h.VaultRoot, servers: map[string]*mcp.Server{}}
	stream := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s, err := subjects.get(subjectOf(r))
		if err != nil {
			d.Logger.Error("building a subject's server", "err", err)
			return nil // the SDK answers 400
		}
		return s
	}, &mcp.StreamableHTTPOptions{Logger: d.Logger})

	var mcpHandler http.Handler = stream
	mcpHandler = rateLimit(mcpHandler, h.RatePerSecond, h.RateBurst)
	metadataURL := h.BaseURL + PathMetadata
	if h.Verifier != nil {
		mcpHandler = auth.RequireBearerToken(h.Verifier, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadataURL})(mcpHandler)
	}
	mcpHandler = limitBody(mcpHandler, h.MaxBodyBytes)
	mcpHandler = checkOrigin(mcpHandler, h.AllowedOrigins)

	mux := http.NewServeMux()
	mux.Handle(PathMCP, mcpHandler)
	mux.HandleFunc("GET "+PathHealth, func(w http.ResponseWriter, r *http.Request) {
		if err := d.Store.Ping(r.Context()); err != nil {
			http.Error(w, `{"status":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"ok"}`)
	})
	mux.Handle(PathMetadata, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource:               h.BaseURL + PathMCP,
		AuthorizationServers:   h.AuthorizationServers,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "langspec",
	}))
	return mux, nil
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// subjectOf is the subject of an authenticated request, or the anonymous
// one ("") on a server without auth.
func subjectOf(r *http.Request) teamauth.Subject {
	s, _ := teamauth.FromContext(r.Context())
	return s
}

// subjectServers builds and keeps one MCP server per subject.
type subjectServers struct {
	ctx       context.Context
	deps      tools.Deps
	opts      Options
	vaultRoot string

	mu      sync.Mutex
	servers map[string]*mcp.Server
}

func (ss *subjectServers) get(sub teamauth.Subject) (*mcp.Server, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s := ss.servers[sub.Name]; s != nil {
		return s, nil
	}
	d := ss.deps
	if ss.vaultRoot != "" && d.Vault != nil {
		name := sub.Name
		if name == "" {
			name = "anonymous"
		}
		// The name passed teamauth.CheckName: no separators, no dots
		// first, so the folder is always inside vaultRoot.
		v, err := vault.Open(filepath.Join(ss.vaultRoot, name), vault.Options{Logger: d.Logger})
		if err != nil {
			return nil, err
		}
		context.AfterFunc(ss.ctx, func() { v.Close() })
		d.Vault = v
	}
	opts := ss.opts
	opts.Mask = opts.Mask.Both(sub.Mask())
	if opts.Mode == ModeCategories {
		// A Manager of the subject's own: it serves the subject's
		// langspec tools in process (no children without upstreams).
		mgr := newManager(d.Logger, opts.Version)
		context.AfterFunc(ss.ctx, func() { _ = mgr.Close() })
		opts.Upstreams = mgr
	}
	s, err := Build(ss.ctx, d, opts)
	if err != nil {
		return nil, err
	}
	addNotifications(s, nil) // progress; the client log is stdio's
	ss.servers[sub.Name] = s
	return s, nil
}

// checkOrigin refuses (403) a request whose Origin is not allowed: a web
// page the user visits must not reach the server through their browser.
func checkOrigin(next http.Handler, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !slices.Contains(allowed, o) {
			http.Error(w, "origin "+strconv.Quote(o)+" is not allowed; add it with --allow-origin", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
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

// rateLimit answers 429 to a subject (or, without auth, a remote address)
// sending more than perSecond requests a second beyond a burst of burst.
func rateLimit(next http.Handler, perSecond float64, burst int) http.Handler {
	var mu sync.Mutex
	limiters := map[string]*rate.Limiter{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "subject:" + subjectOf(r).Name
		if subjectOf(r).Name == "" {
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			key = "addr:" + host
		}
		mu.Lock()
		l := limiters[key]
		if l == nil {
			l = rate.NewLimiter(rate.Limit(perSecond), burst)
			limiters[key] = l
		}
		mu.Unlock()
		if !l.Allow() {
			w.Header().Set("Retry-After", "1")
			http.Error(w, "too many requests; slow down", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ListenAndServeHTTP serves handler on addr until ctx ends, then stops
// accepting and gives requests in flight up to grace to finish.
func ListenAndServeHTTP(ctx context.Context, ln net.Listener, handler http.Handler, grace time.Duration, log *slog.Logger) error {
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		// No WriteTimeout: a client's GET stream of server messages stays
		// open as long as its session.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("stopping: finishing requests in flight", "grace", grace)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		srv.Close()
		return fmt.Errorf("requests still running after %s were cut off", grace)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
