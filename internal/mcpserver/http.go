package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/time/rate"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
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
	// Watch, when set, follows a database file that is replaced by a newer
	// one (read-only replicas): see Watch.
	Watch *Watch
	// Sources, Ingest and Subjects go to the management page (webui.Options).
	Sources  []ingest.SourceSpec
	Ingest   func(ctx context.Context, language, doc string, progress func(page string, failed bool)) (ingest.Report, error)
	Subjects map[string]webui.SubjectInfo
}

// Watch makes the team server switch to a database file that was replaced
// (renamed over, as rsync, rclone or Litestream's restore do) by a newer
// index, without dropping a request: requests that started on the old one
// finish on it, new ones go to the new one, and the old one is closed when
// the last of its requests ends. Sessions are stateless then (each request
// stands alone), so that no session holds an old index open, and any
// replica behind a load balancer can answer any request.
type Watch struct {
	Path     string
	Interval time.Duration // how often the file is looked at; 0 is a second
	// Open opens the file as it is now: the tools' parts over it, and what
	// closes them.
	Open func(ctx context.Context) (tools.Deps, func() error, error)
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
// opts.Mask), and its own vault folder. Categories and upstream servers
// are served as on stdio, each upstream started once for everyone.
func NewHTTPHandler(ctx context.Context, d tools.Deps, opts Options, h HTTPOptions) (http.Handler, error) {
	// Upstream servers run once for everyone: each subject's server gets
	// a fork of the Manager, with the subject's own langspec tools in it.
	if opts.Upstreams != nil {
		opts.Upstreams.Start(ctx)
	}
	d.Logger = logger(&d)
	h.MaxBodyBytes = cmpOr(h.MaxBodyBytes, DefaultMaxBodyBytes)
	h.RatePerSecond = cmpOr(h.RatePerSecond, DefaultRatePerSecond)
	h.RateBurst = cmpOr(h.RateBurst, DefaultRateBurst)
	vaults := &subjectVaults{ctx: ctx, root: h.VaultRoot, log: d.Logger, open: map[string]*vault.Vault{}}
	met := newMetrics()
	gens := &generations{}
	gens.cur = newGeneration(ctx, d, opts, vaults, met, nil)
	stream := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		s, err := generationOf(r).subjects.get(subjectOf(r))
		if err != nil {
			d.Logger.Error("building a subject's server", "err", err)
			return nil // the SDK answers 400
		}
		return s
	}, &mcp.StreamableHTTPOptions{Logger: d.Logger, Stateless: h.Watch != nil})
	if h.Watch != nil {
		go gens.watch(ctx, *h.Watch, func(d tools.Deps, closeDeps func() error) *generation {
			d.Logger = logger(&d)
			return newGeneration(ctx, d, opts, vaults, met, closeDeps)
		}, d.Logger)
	}

	var mcpHandler http.Handler = gens.serve(stream)
	mcpHandler = rateLimit(mcpHandler, h.RatePerSecond, h.RateBurst)
	metadataURL := h.BaseURL + PathMetadata
	var requireToken func(http.Handler) http.Handler
	if h.Verifier != nil {
		requireToken = auth.RequireBearerToken(h.Verifier, &auth.RequireBearerTokenOptions{ResourceMetadataURL: metadataURL})
		mcpHandler = requireToken(mcpHandler)
	}
	mcpHandler = limitBody(mcpHandler, h.MaxBodyBytes)
	mcpHandler = checkOrigin(mcpHandler, h.AllowedOrigins)

	ui, err := webui.New(webui.Options{StoreOf: func(ctx context.Context) *db.DB { return ctx.Value(generationKey{}).(*generation).deps.Store },
		Verifier: h.Verifier, Upstreams: opts.Upstreams, Logger: d.Logger, BaseURL: h.BaseURL,
		Sources: h.Sources, Ingest: h.Ingest, Subjects: h.Subjects})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(PathMCP, mcpHandler)
	mux.Handle(PathUI, checkOrigin(limitBody(gens.serve(ui), h.MaxBodyBytes), h.AllowedOrigins))
	mux.Handle("GET "+PathMetrics, checkOrigin(met.handler(requireToken), h.AllowedOrigins))
	mux.HandleFunc("GET "+PathHealth, func(w http.ResponseWriter, r *http.Request) {
		g := gens.acquire()
		defer g.release()
		if err := g.deps.Store.Ping(r.Context()); err != nil {
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

// subjectServers builds and keeps one MCP server per subject, over one
// generation's parts.
type subjectServers struct {
	ctx     context.Context
	deps    tools.Deps
	opts    Options
	vaults  *subjectVaults
	metrics *metrics

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
	if d.Vault != nil {
		v, err := ss.vaults.get(sub.Name)
		if err != nil {
			return nil, err
		}
		if v != nil {
			d.Vault = v
		}
	}
	opts := ss.opts
	opts.Mask = opts.Mask.Both(sub.Mask())
	switch {
	case opts.Upstreams != nil:
		// The configured upstreams, shared — but for those the subject
		// has secrets of its own for; the subject's langspec tools are
		// added to its fork by Build.
		fork, err := opts.Upstreams.ForkFor(sub.Name)
		if err != nil {
			return nil, err
		}
		opts.Upstreams = fork
	case opts.Mode == ModeCategories:
		// A Manager of the subject's own: it serves the subject's
		// langspec tools in process.
		opts.Upstreams = newManager(d.Logger, opts.Version)
	}
	if mgr := opts.Upstreams; mgr != nil {
		context.AfterFunc(ss.ctx, func() { _ = mgr.Close() })
	}
	s, err := Build(ss.ctx, d, opts)
	if err != nil {
		return nil, err
	}
	addNotifications(s, nil) // progress; the client log is stdio's
	s.AddReceivingMiddleware(ss.metrics.middleware())
	ss.servers[sub.Name] = s
	return s, nil
}

// subjectVaults opens each subject's vault folder once, for every
// generation: two Vaults over one folder would not share their locks.
type subjectVaults struct {
	ctx  context.Context
	root string // "" keeps Deps.Vault for everyone
	log  *slog.Logger

	mu   sync.Mutex
	open map[string]*vault.Vault
}

// get returns the vault of subject name; nil when every subject shares
// Deps.Vault.
func (sv *subjectVaults) get(name string) (*vault.Vault, error) {
	if sv.root == "" {
		return nil, nil
	}
	if name == "" {
		name = "anonymous"
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if v := sv.open[name]; v != nil {
		return v, nil
	}
	// The name passed teamauth.CheckName (or is a digest): no separators,
	// no dot first, so the folder is always inside root.
	v, err := vault.Open(filepath.Join(sv.root, name), vault.Options{Logger: sv.log})
	if err != nil {
		return nil, err
	}
	context.AfterFunc(sv.ctx, func() { v.Close() })
	sv.open[name] = v
	return v, nil
}

// generation is the servers over one database file: a new one starts when
// a watched file is replaced.
type generation struct {
	deps     tools.Deps
	subjects *subjectServers
	inflight sync.WaitGroup
	close    func() error // nil for the first generation, which the caller owns
}

func newGeneration(ctx context.Context, d tools.Deps, opts Options, vaults *subjectVaults, m *metrics, closeDeps func() error) *generation {
	return &generation{deps: d, close: closeDeps,
		subjects: &subjectServers{ctx: ctx, deps: d, opts: opts, vaults: vaults, metrics: m, servers: map[string]*mcp.Server{}}}
}

func (g *generation) release() { g.inflight.Done() }

// generations hands each request the current generation.
type generations struct {
	mu  sync.Mutex
	cur *generation
}

// acquire returns the current generation, counted in flight until its
// release.
func (gs *generations) acquire() *generation {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	gs.cur.inflight.Add(1)
	return gs.cur
}

type generationKey struct{}

// serve runs each request on the generation current when it arrived.
func (gs *generations) serve(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := gs.acquire()
		defer g.release()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), generationKey{}, g)))
	})
}

func generationOf(r *http.Request) *generation {
	return r.Context().Value(generationKey{}).(*generation)
}

// swap makes next current; the old generation is closed once its last
// request ends.
func (gs *generations) swap(next *generation, log *slog.Logger) {
	gs.mu.Lock()
	old := gs.cur
	gs.cur = next
	gs.mu.Unlock()
	go func() {
		old.inflight.Wait()
		if old.close != nil {
			if err := old.close(); err != nil {
				log.Warn("closing the replaced index", "err", err)
			}
		}
	}()
}

// watch looks at w.Path every w.Interval until ctx ends, and when the file
// was replaced (another file, size or time), opens it and swaps. A file
// that does not open (cut short, not an index) is logged and tried again
// at the next look; the old one serves meanwhile.
func (gs *generations) watch(ctx context.Context, w Watch, build func(tools.Deps, func() error) *generation, log *slog.Logger) {
	interval := cmpOr(w.Interval, time.Second)
	last, _ := os.Stat(w.Path)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fi, err := os.Stat(w.Path)
		if err != nil || (last != nil && os.SameFile(fi, last) && fi.Size() == last.Size() && fi.ModTime().Equal(last.ModTime())) {
			continue
		}
		d, closeDeps, err := w.Open(ctx)
		if err != nil {
			log.Warn("the index file changed but does not open; serving the previous one", "path", w.Path, "err", err)
			continue
		}
		last = fi
		gs.swap(build(d, closeDeps), log)
		log.Info("switched to the replaced index", "path", w.Path, "size", fi.Size(), "modified", fi.ModTime())
	}
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
		key := "subject:" + subjectOf(r).Name
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
