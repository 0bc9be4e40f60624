package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/vault"
	"github.com/langspec/langspec/internal/webui"
)

// HTTP paths of the team server.
const (
	PathMCP      = "/mcp"
	PathHealth   = "/health"
	PathMetadata = "/.well-known/oauth-protected-resource"
	PathMetrics  = "/metrics"
	PathUI       = "/ui/" // the management page (internal/webui)
)

// HTTPOptions configure the team server (`langspec serve --http`).
type HTTPOptions struct {
	// BaseURL is where clients reach the server (http://host:port), for
	// the protected resource metadata and its WWW-Authenticate pointer.
	BaseURL string
	// Verifier checks bearer tokens; nil serves everyone as one subject
	// without asking (a loopback address only, unless the caller allowed
	// otherwise). It runs inside the request's generation: StoreOf(ctx)
	// is the index that answers the request, where it must read tokens.
	Verifier auth.TokenVerifier
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served, with CORS headers; a request from any other
	// Origin gets 403, against DNS rebinding. Requests without an Origin
	// (MCP clients that are not browsers) are served.
	AllowedOrigins []string
	// AuthorizationServers are the issuers named in the protected resource
	// metadata, where clients log in. None (langspec's own tokens only):
	// no metadata is served and no 401 points at any, since a client
	// could not log in anywhere; the 401 says how to get a token instead.
	AuthorizationServers []string
	MaxBodyBytes         int64 // per request; 0 is MaxMessageBytes, the stdio transport's limit too
	// RatePerSecond is the sustained requests a second each subject (or
	// address, without one) may send, over every route that runs a query;
	// 0 is DefaultRatePerSecond, negative no limit.
	RatePerSecond float64
	RateBurst     int    // requests a subject may send at once; 0 is DefaultRateBurst
	VaultRoot     string // each subject's vault is VaultRoot/<subject>; "" keeps Deps.Vault for everyone
	// SessionIdle closes a session after this long without a request or
	// an open stream; 0 is DefaultSessionIdle, negative never.
	SessionIdle time.Duration
	// SessionsPerSubject caps each subject's sessions, the oldest idle one
	// closed to make room; 0 is DefaultSessionsPerSubject, negative no cap.
	SessionsPerSubject int
	// Watch, when set, follows a database file that is replaced by a newer
	// one (read-only replicas): see Watch.
	Watch *Watch
	// Sources, Ingest, Subjects and Tokens go to the management page
	// (webui.Options).
	Sources  []ingest.SourceSpec
	Ingest   func(ctx context.Context, language, doc string, progress func(page string, failed bool)) (ingest.Report, error)
	Subjects map[string]webui.SubjectInfo
	Tokens   teamauth.Tokens
	// State is where tokens and secrets are read (the state file, apart
	// from the index); nil on a server without tokens.
	State teamauth.StateOf
}

// Defaults of HTTPOptions.
//
// The rate is per subject, and was chosen from what real clients send,
// read off `serve --http --log-level debug` (one line per request): the
// TypeScript SDK client of the validators, which lists tools, resources,
// templates and prompts and calls every read-only tool, sends 27 requests
// in 0.75 s, 21 of them within 100 ms; the conformance suite's ten server
// scenarios send 38 in 4 s, at most 14 in a second; a client starting up
// (initialize, the GET stream, four lists) sends 7. A burst of 100 lets a person start several such
// clients at once; 50 a second sustained is more than an agent's calls
// come at, and a few milliseconds of a core each.
const (
	DefaultRatePerSecond = 50
	DefaultRateBurst     = 100
)

// Handler is the team server: every route, and what its shutdown ends.
type Handler struct {
	routes   http.Handler
	sessions *sessionRegistry
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.routes.ServeHTTP(w, r) }

// beginShutdown ends what would hold a graceful shutdown for nothing: the
// GET streams, which wait for server messages and never end by
// themselves. Calls in flight are cancelled through the server's context
// (Build, cancelOnShutdown) and answered.
func (h *Handler) beginShutdown() { h.sessions.endStreams() }

// NewHTTPHandler serves d over streamable HTTP at PathMCP, with the
// management page, PathHealth, PathMetrics and, when there is an
// authorization server, the protected resource metadata. Each subject gets
// a server of its own, built on its first request: the tools its token
// allows (over opts.Mask), and its own vault folder. Categories and
// upstream servers are served as on stdio, each upstream started once for
// everyone.
//
// Every request passes the same guards, outermost first: the Host check
// (DNS rebinding, before any route), then on every route the Origin check,
// the body limit and the generation (the index that answers, where tokens
// are read); on /mcp then CORS, the bearer token, the rate limit, the
// vetting of JSON-RPC ids and the session registry; on the page and
// /metrics their own token checks.
func NewHTTPHandler(ctx context.Context, d tools.Deps, opts Options, h HTTPOptions) (*Handler, error) {
	// Upstream servers run once for everyone: each subject's server gets
	// a fork of the Manager, with the subject's own langspec tools in it.
	// Closing it when ctx ends (not when the caller gets round to it)
	// ends upstream calls in flight at once, so shutdown waits for none.
	if mgr := opts.Upstreams; mgr != nil {
		mgr.Start(ctx)
		context.AfterFunc(ctx, func() { _ = mgr.Close() })
	}
	d.Logger = logger(&d)
	h.MaxBodyBytes = cmpOr(h.MaxBodyBytes, MaxMessageBytes)
	h.RatePerSecond = cmpOr(h.RatePerSecond, DefaultRatePerSecond)
	h.RateBurst = cmpOr(h.RateBurst, DefaultRateBurst)
	h.SessionIdle = cmpOr(h.SessionIdle, DefaultSessionIdle)
	h.SessionsPerSubject = cmpOr(h.SessionsPerSubject, DefaultSessionsPerSubject)
	vaults := &subjectVaults{ctx: ctx, root: h.VaultRoot, log: d.Logger, state: h.State, open: map[string]*vault.Vault{}}
	met := newMetrics()
	gens := &generations{}
	var closeFirst func() error
	if h.Watch != nil {
		// A replica owns its first index as it owns every later one: it
		// is closed when a newer one replaces it and its last request
		// ends, so its file's space is freed (db.DB.Close is idempotent,
		// for the app that opened it and closes it again at exit).
		closeFirst = d.Store.Close
	}
	gens.cur = newGeneration(ctx, d, opts, vaults, met, closeFirst)
	sessions := newSessionRegistry(h.SessionIdle, h.SessionsPerSubject, d.Logger)
	go sessions.run(ctx)
	if opts.ClientLog != nil {
		go opts.ClientLog.run(ctx)
	}
	serverOf := func(r *http.Request) *mcp.Server {
		s, err := generationOf(r).subjects.get(subjectOf(r))
		if err != nil {
			d.Logger.Error("building a subject's server", "err", err)
			return nil // the SDK answers 400
		}
		return s
	}
	// Protocol 2026-07-28 has no sessions: each request stands alone, and
	// the SDK serves it only over a stateless handler. So a request that
	// speaks it goes to one (over the same subject servers), and the rest
	// to the stateful handler — one endpoint, every version, as on stdio.
	// A replica is stateless for every version (Watch).
	// A 2026-07-28 request is its POST: a client cancels it by closing
	// the POST, and the call stops with it.
	stateless := mcp.NewStreamableHTTPHandler(serverOf, &mcp.StreamableHTTPOptions{Logger: d.Logger, Stateless: true, PropagateRequestCancellation: true})
	var stream http.Handler = stateless
	if h.Watch == nil {
		stateful := mcp.NewStreamableHTTPHandler(serverOf, &mcp.StreamableHTTPOptions{Logger: d.Logger})
		stream = byProtocol(requireSession(trackSessions(stateful, sessions)), stateless)
	}
	if h.Watch != nil {
		go gens.watch(ctx, *h.Watch, func(d tools.Deps, closeDeps func() error) *generation {
			d.Logger = logger(&d)
			return newGeneration(ctx, d, opts, vaults, met, closeDeps)
		}, d.Logger)
	}

	lim := newLimiter(h.RatePerSecond, h.RateBurst, d.Logger)
	mcpHandler := vetMessages(stream, d.Logger)
	mcpHandler = lim.bySubject(mcpHandler)
	challenge := bearerChallenge{realm: "langspec"}
	if len(h.AuthorizationServers) > 0 {
		challenge.resourceMetadata = h.BaseURL + PathMetadata + PathMCP
	}
	requireToken := func(next http.Handler) http.Handler { return next }
	if h.Verifier != nil {
		requireToken = func(next http.Handler) http.Handler { return requireBearer(next, h.Verifier, challenge, lim) }
	}
	mcpHandler = requireToken(mcpHandler)

	ui, err := webui.New(webui.Options{SpecOf: SpecOf, ManualsOf: ManualsOf, StateOf: h.State,
		Verifier: h.Verifier, Upstreams: opts.Upstreams, Logger: d.Logger, BaseURL: h.BaseURL,
		Sources: h.Sources, Ingest: h.Ingest, Subjects: h.Subjects, Tokens: h.Tokens, Notes: d.Notes, Limiter: lim})
	if err != nil {
		return nil, err
	}
	go ui.Run(ctx)
	// guard is what every route passes, outermost first.
	guard := func(next http.Handler) http.Handler {
		return checkOrigin(limitBody(gens.serve(next), h.MaxBodyBytes), h.AllowedOrigins)
	}
	mux := http.NewServeMux()
	// CORS outside the token check: a preflight carries no token.
	mux.Handle(PathMCP, guard(cors(mcpHandler, h.AllowedOrigins)))
	mux.Handle(PathUI, guard(ui))
	mux.Handle(PathMetrics, guard(met.handler(requireToken, lim.plain)))
	mux.Handle(PathHealth, guard(lim.plain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := StoreOf(r.Context()).Ping(r.Context()); err != nil {
			http.Error(w, `{"status":"unavailable"}`, http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"ok"}`)
	}))))
	// A person who opens the server's address in a browser gets the page;
	// any other path, a 404 that names the ones there are.
	mux.Handle("GET /{$}", guard(lim.plain(http.RedirectHandler(PathUI, http.StatusSeeOther))))
	mux.Handle("/", guard(lim.plain(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404 not found: this is a langspec team server; MCP is at "+PathMCP+", the management page at "+PathUI+", health at "+PathHealth, http.StatusNotFound)
	}))))
	if len(h.AuthorizationServers) > 0 {
		metadata := auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               h.BaseURL + PathMCP,
			AuthorizationServers:   h.AuthorizationServers,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "langspec",
		})
		// Both the bare well-known path and RFC 9728 section 3.1's form
		// with the resource's path after it, which clients derive from
		// the MCP endpoint.
		mux.Handle(PathMetadata, guard(metadata))
		mux.Handle(PathMetadata+PathMCP, guard(metadata))
	}
	// The Host check before any route, unknown ones too: a rebinding
	// page learns nothing, not even which paths exist.
	return &Handler{routes: logRequests(checkHost(mux), d.Logger), sessions: sessions}, nil
}

// StoreOf is the index that answers a request of the team server: the
// generation current when it arrived. Tokens are not in it: they are read
// from the state file (HTTPOptions.State), which a replica follows apart.
func StoreOf(ctx context.Context) *db.DB {
	g, _ := ctx.Value(generationKey{}).(*generation)
	if g == nil {
		return nil
	}
	return g.deps.Store
}

// SpecOf is the specification use cases of the generation that answers a
// request (StoreOf's index): what the page runs, the tools' own calls.
func SpecOf(ctx context.Context) *spec.Service {
	g, _ := ctx.Value(generationKey{}).(*generation)
	if g == nil {
		return nil
	}
	return g.deps.Spec
}

// ManualsOf is the manual use cases of the generation that answers a
// request, the manual tools' own calls (find.Service); nil when the
// server serves no manual tools.
func ManualsOf(ctx context.Context) *find.Service {
	g, _ := ctx.Value(generationKey{}).(*generation)
	if g == nil {
		return nil
	}
	return g.manuals
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

// ListenAndServeHTTP serves handler on addr until ctx ends, then stops
// accepting and gives requests in flight up to grace to finish. A team
// server's Handler ends its GET streams at once and its calls in flight are
// cancelled with ctx, so grace is only for what ignores cancellation, and
// connections that have not sent a whole request are closed at once.
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
	unstarted := newUnstartedConns()
	srv.ConnState = unstarted.track
	srv.RegisterOnShutdown(unstarted.closeAll)
	if h, ok := handler.(*Handler); ok {
		srv.RegisterOnShutdown(h.beginShutdown)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("stopping: finishing requests in flight", "grace", grace)
	start := time.Now()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	log.Info("requests finished", "ms", time.Since(start).Milliseconds())
	if errors.Is(err, context.DeadlineExceeded) {
		srv.Close()
		return fmt.Errorf("requests still running after %s were cut off", grace)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// unstartedConns are the connections that have not sent a whole request
// yet (http.StateNew). http.Server.Shutdown counts such a connection as
// busy until it is five seconds old, and HTTP clients dial connections
// they may never use (Go's transport keeps a spare one when two requests
// race for a connection), so one such connection made SIGTERM take five
// seconds. At shutdown they are closed: nothing was asked on them, and a
// request half sent when the server stops is refused as one sent after it.
type unstartedConns struct {
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	stopping bool
}

func newUnstartedConns() *unstartedConns {
	return &unstartedConns{conns: make(map[net.Conn]struct{})}
}

// track is the server's ConnState hook.
func (u *unstartedConns) track(c net.Conn, state http.ConnState) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if state != http.StateNew {
		delete(u.conns, c)
		return
	}
	if u.stopping {
		// Accepted just before the listener closed.
		_ = c.Close()
		return
	}
	u.conns[c] = struct{}{}
}

// closeAll closes the connections without a request, and from now on
// every connection as soon as it is accepted. Shutdown calls it once the
// listeners are closed.
func (u *unstartedConns) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopping = true
	for c := range u.conns {
		_ = c.Close()
	}
	clear(u.conns)
}
