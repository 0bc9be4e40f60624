package mcpserver

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/vault"
)

// subjectVaults opens each subject's vault folder once, for every
// generation: two Vaults over one folder would not share their locks.
type subjectVaults struct {
	ctx  context.Context
	root string // "" keeps Deps.Vault for everyone
	log  *slog.Logger
	// state is where tokens are (adoptLegacyFolder asks whether one has a
	// name); nil on a server without tokens.
	state teamauth.StateOf

	mu   sync.Mutex
	open map[string]*vault.Vault
}

// get returns the vault of sub, in its home (teamauth.Subject.Home); nil
// when every subject shares Deps.Vault. legacyIsFree says whether no token
// has a name (in any case): see adoptLegacyFolder.
func (sv *subjectVaults) get(sub teamauth.Subject, legacyIsFree func(name string) bool) (*vault.Vault, error) {
	if sv.root == "" {
		return nil, nil
	}
	home := sub.Home()
	if home == "" {
		home = "anonymous"
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if v := sv.open[home]; v != nil {
		return v, nil
	}
	// A home is a token's name (teamauth.CheckName: no separators, no dot
	// first) or the JWT form of names and digests: always inside root.
	dir := filepath.Join(sv.root, filepath.FromSlash(home))
	if sub.Issuer != "" {
		sv.adoptLegacyFolder(sub, dir, legacyIsFree)
	}
	v, err := vault.Open(dir, vault.Options{Logger: sv.log})
	if err != nil {
		return nil, err
	}
	context.AfterFunc(sv.ctx, func() { v.Close() })
	sv.open[home] = v
	return v, nil
}

// adoptLegacyFolder moves a JWT subject's vault folder from where versions
// before homes by issuer kept it, VAULT_ROOT/<name>, to its home dir: only
// when dir does not exist yet and no token has the name (a token's name,
// valid or revoked, is never reused, and a JWT subject of a token's name
// was refused, so the folder can only be this subject's). Anything else
// stays where it is.
func (sv *subjectVaults) adoptLegacyFolder(sub teamauth.Subject, dir string, legacyIsFree func(string) bool) {
	legacy := filepath.Join(sv.root, sub.Name)
	if sub.Name == "" || sub.Name == "anonymous" || legacyIsFree == nil {
		return
	}
	if fi, err := os.Stat(legacy); err != nil || !fi.IsDir() {
		return
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) || !legacyIsFree(sub.Name) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		sv.log.Warn("a JWT subject's vault folder stays where an older version kept it", "subject", sub.Name, "err", err)
		return
	}
	if err := os.Rename(legacy, dir); err != nil {
		sv.log.Warn("a JWT subject's vault folder stays where an older version kept it", "subject", sub.Name, "err", err)
		return
	}
	sv.log.Info("moved a JWT subject's vault folder to its home under its issuer", "subject", sub.Name, "to", dir)
}

// Watch makes the team server switch to a database file that was replaced
// (renamed over, as rsync, rclone or Litestream's restore do) by a newer
// index, without dropping a request: requests that started on the old one
// finish on it, new ones go to the new one, and the old one is closed when
// the last of its requests ends. Sessions are stateless then (each request
// stands alone), so that no session holds an old index open, and any
// replica behind a load balancer can answer any request. Tokens are read
// from the index that answers (StoreOf), so a revocation shipped with a
// newer index takes effect with it.
type Watch struct {
	Path     string
	Interval time.Duration // how often the file is looked at; 0 is a second
	// Open opens the file as it is now: the tools' parts over it, and what
	// closes them.
	Open func(ctx context.Context) (tools.Deps, func() error, error)
}

// generation is the servers over one database file: a new one starts when
// a watched file is replaced.
type generation struct {
	deps tools.Deps
	// manuals is the manual use cases the page runs, the manual tools'
	// own (tools.Deps.ManualService); nil when the server serves no
	// manual tools (no manuals folder, or --toolsets without manual).
	manuals  *find.Service
	subjects *subjectServers
	inflight sync.WaitGroup
	close    func() error // what closes its index once it is replaced; nil: the caller closes it
}

func newGeneration(ctx context.Context, d tools.Deps, opts Options, vaults *subjectVaults, m *metrics, closeDeps func() error) *generation {
	d.Spec = d.Specs() // one for every subject's server and the page
	var manuals *find.Service
	if d.Manuals != nil && d.Finder != nil && (opts.Toolsets == nil || slices.Contains(opts.Toolsets, tools.CategoryManual)) {
		manuals = d.ManualService()
	}
	return &generation{deps: d, manuals: manuals, close: closeDeps,
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
	key := sub.Key() // a JWT subject and a token of one name are two subjects
	if s := ss.servers[key]; s != nil {
		return s, nil
	}
	d := ss.deps
	if d.Vault != nil {
		v, err := ss.vaults.get(sub, func(name string) bool {
			if ss.vaults.state == nil {
				return false
			}
			taken, err := ss.vaults.state(ss.ctx).TokenNameTaken(ss.ctx, name)
			return err == nil && !taken
		})
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
		fork, err := opts.Upstreams.ForkFor(sub.Home())
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
	addNotifications(s, ss.opts.ClientLog)
	s.AddReceivingMiddleware(ss.metrics.middleware(), cancelOnShutdown(ss.ctx))
	ss.servers[key] = s
	return s, nil
}

// cancelOnShutdown cancels the handlers of requests in flight when ctx
// (the team server's) ends. The SDK runs a streamable session's handlers
// on the session's context, which a shutdown does not end: a long call
// would hold the server's exit for its whole grace period. Cancelled, a
// tool answers with an error the client can show.
func cancelOnShutdown(ctx context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(callCtx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			callCtx, cancel := context.WithCancel(callCtx)
			defer cancel()
			stop := context.AfterFunc(ctx, cancel)
			defer stop()
			return next(callCtx, method, req)
		}
	}
}
