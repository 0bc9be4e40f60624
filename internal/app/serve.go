package app

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"net"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/config"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/mcpserver"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/webui"
)

// What serve's flags are checked against, for the command line: the modes,
// the toolsets and the team server's defaults.
const (
	ModeFlat                  = mcpserver.ModeFlat
	ModeCategories            = mcpserver.ModeCategories
	ToolsetAll                = mcpserver.ToolsetAll
	DefaultRatePerSecond      = mcpserver.DefaultRatePerSecond
	DefaultSessionIdle        = mcpserver.DefaultSessionIdle
	DefaultSessionsPerSubject = mcpserver.DefaultSessionsPerSubject
	// PathUI is where the team server's management page is.
	PathUI = mcpserver.PathUI
)

// ToolsetNames are the tool families serve can list (--toolsets).
func ToolsetNames() []string { return mcpserver.ToolsetNames() }

// ParseToolsets reads --toolsets: nil for "" (the workspace decides).
// Errors: invalid_argument naming the toolsets there are.
func ParseToolsets(list string) ([]string, error) { return mcpserver.ParseToolsets(list) }

// IsLoopback says whether addr names the loopback interface only
// (mcpserver.IsLoopback, the one answer the team server's guards give).
func IsLoopback(addr string) bool { return mcpserver.IsLoopback(addr) }

// ServeOptions are `langspec serve`'s flags, as the command checked them.
type ServeOptions struct {
	// LogLevel is stderr's level (Options.Stderr); a client that sets a
	// level hears the records at or above it.
	LogLevel slog.Level
	// Mode is ModeFlat or ModeCategories; "": categories when the
	// configuration names upstream servers, else flat.
	Mode string
	// Toolsets are the families served (ParseToolsets); nil: what the
	// workspace holds (Workspace.Toolsets).
	Toolsets []string
	// ReadOnly serves no tool that writes and opens the index read-only:
	// nothing is written to it, not even the manuals' index, so it can be
	// an index built elsewhere and replaced under the server.
	ReadOnly bool
	// In and Out are the stdio transport's; used without HTTP.
	In  io.ReadCloser
	Out io.Writer

	// HTTP is the team server's address (host:port); "" serves stdio.
	HTTP           string
	InsecureNoAuth bool     // serve a non-loopback address without any token
	AllowOrigins   []string // browser origins allowed to call
	Rate           float64  // requests a second per subject
	// RateGiven says Rate was asked for: a loopback server without auth
	// has no limit unless it was.
	RateGiven   bool
	SessionIdle time.Duration
	MaxSessions int
	// OnListen, when set, is told where the team server listens
	// (http://host:port) once it does: `langspec ui` opens the page there.
	OnListen func(baseURL string)
}

// ShutdownGrace is how long requests in flight may run once the team
// server is told to stop.
const ShutdownGrace = 10 * time.Second

// serveGCPercent is the garbage collector target while serving. The live
// heap of a server is a few megabytes, and each tool call allocates about a
// megabyte, mostly in the SDK's JSON handling; at the default of 100 the
// collector runs every few calls, and a 10-hit search_spec takes 2.9 ms
// instead of 1.9 ms (BenchmarkServeSearchSpec). At 400 the heap stays in the
// tens of megabytes.
const serveGCPercent = 400

// Serve builds the app over o as serving needs it and serves MCP until ctx
// ends: over stdio, or with s.HTTP the team server (auth, the management
// page, a replica following its index). Every log record goes to o.Stderr
// at s.LogLevel, and to the clients at the level they set: over stdio
// every record, to the team server's clients those of their own requests.
func Serve(ctx context.Context, o Options, s ServeOptions) error {
	clientLog := mcpserver.NewClientLog()
	if s.HTTP != "" {
		clientLog = mcpserver.NewScopedClientLog()
	}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	log := slog.New(slog.NewMultiHandler(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.LogLevel}), clientLog.Handler()))
	o.Logger = log
	tuneGC(o.getenv(), log)
	toolsets, err := o.Workspace.Toolsets(s.Toolsets)
	if err != nil {
		return err
	}
	// A team server's requests share the store, its reads through a pool
	// the size of the cores (db.DB.UseReadPool); stdio serves one client.
	o.ReadOnly = s.ReadOnly
	o.ReadPool = servingReadPool(s)
	a := New(o)
	defer a.Close()
	deps, err := a.ToolDeps(ctx)
	if err != nil {
		return err
	}
	if !s.ReadOnly {
		if err := a.RefreshManualsInBackground(ctx); err != nil {
			return err
		}
	}
	upstreams, err := a.Upstreams()
	if err != nil {
		return err
	}
	deps.ReadOnly = s.ReadOnly
	cfg := a.Config()
	mode := s.Mode
	if mode == "" {
		mode = mcpserver.ModeFlat
		if upstreams != nil {
			mode = mcpserver.ModeCategories
		}
	}
	mo := mcpserver.Options{Mode: mode, Version: o.Version, Mask: cfg.ToolMask, Categories: cfg.Categories, Upstreams: upstreams,
		Toolsets: toolsets, ClientLog: clientLog}
	ws := o.Workspace
	if s.HTTP != "" {
		return a.serveHTTP(ctx, o, s, deps, mo)
	}
	// The database and what it holds come first: a server a client started
	// without the user's environment reads the default database.
	// A vault is served only when named (VAULT_ROOT, --vault-root,
	// WORKSPACE_ROOT): the log says none rather than the folder it would be.
	vault := "none (name one with VAULT_ROOT or --vault-root)"
	if ws.VaultNamed {
		vault = ws.Vault
	}
	log.Info("serving MCP on stdio", "db", deps.Store.Path(), "languages", strings.Join(deps.Languages, ","),
		"hint", tools.AddLanguageHint(deps.Languages), "tools", mode, "toolsets", strings.Join(toolsets, ","),
		"vault", vault, "manuals", ws.Manuals, "synonyms", ws.Synonyms, "stats", ws.Stats)
	return mcpserver.Serve(ctx, deps, mo, s.In, s.Out)
}

// serveHTTP runs the team server on s.HTTP until ctx ends. Auth is on when
// any token exists at start or langspec.json names an identity provider
// (auth.jwt); tokens are checked on every request, so a revoked one stops
// at once (the first token of a server started without any needs a
// restart). Without auth, only a loopback address is served, unless
// InsecureNoAuth. With ReadOnly, the server follows the index file: when a
// newer index replaces it, new requests go to the new one (mcpserver.Watch).
func (a *App) serveHTTP(ctx context.Context, o Options, s ServeOptions, deps tools.Deps, mo mcpserver.Options) error {
	log, cfg, ac := a.log, a.opts.Config, a.opts.Config.Auth
	first, err := a.State(ctx)
	if err != nil {
		return err
	}
	// The state file as it is now: a replica's shipped copy is followed.
	stateOf := func(ctx context.Context) *db.State { st, _ := a.State(ctx); return cmp.Or(st, first) }
	hasTokens, err := first.HasTokens(ctx)
	if err != nil {
		return err
	}
	authOn := hasTokens || ac.JWT != nil
	loopback := mcpserver.IsLoopback(s.HTTP)
	if !authOn && !s.InsecureNoAuth && !loopback {
		return apperr.New(apperr.InvalidArgument,
			"create a token first (langspec token create NAME; a replica reads the writer's state file: --state PATH), bind a loopback address such as 127.0.0.1:8080, or pass --insecure-no-auth",
			"refusing to serve %s without auth: no token exists in the state file %s", s.HTTP, first.Path())
	}
	rate := s.Rate
	if !authOn && loopback && !s.RateGiven {
		// Only this machine's own clients reach it, as one subject: a
		// limit would only trip the user's own tools (the conformance
		// suite run in one go did).
		rate = -1
	}
	h := mcpserver.HTTPOptions{AllowedOrigins: append(slices.Clone(s.AllowOrigins), ac.AllowedOrigins...),
		RatePerSecond: rate, RateBurst: int(2 * s.Rate), SessionIdle: s.SessionIdle, SessionsPerSubject: s.MaxSessions,
		Sources: ingest.Merge(ingest.Presets(), cfg.Sources), Subjects: map[string]webui.SubjectInfo{}, Tokens: a.tokenRules(nil), State: stateOf}
	for sub, info := range ac.Subjects {
		h.Subjects[sub] = webui.SubjectInfo{Tools: info.Tools, Admin: info.Admin}
	}
	if !s.ReadOnly {
		// The page may ingest into the served database.
		h.Ingest = func(ctx context.Context, language, doc string, progress func(string, bool)) (ingest.Report, error) {
			return a.IngestSource(ctx, IngestRequest{Language: language, Doc: doc, Progress: progress})
		}
	}
	if authOn {
		var jwtv auth.TokenVerifier
		if j := ac.JWT; j != nil {
			if jwtv, err = a.jwtVerifier(ctx, *j, ac.Subjects); err != nil {
				return err
			}
			h.AuthorizationServers = []string{j.Issuer}
			if err := teamauth.CheckNames(ctx, first, slices.Collect(maps.Keys(ac.Subjects))); err != nil {
				return err
			}
			for _, sub := range slices.Sorted(maps.Keys(ac.Subjects)) {
				if _, err := h.Tokens.CheckTools(ac.Subjects[sub].Tools); err != nil {
					ae, _ := errors.AsType[*apperr.Error](err)
					return apperr.New(apperr.InvalidArgument, ae.Hint, "auth.subjects.%s.%s", sub, ae.Message)
				}
			}
			if orphans, err := teamauth.OrphanSecretSubjects(ctx, first); err == nil && len(orphans) > 0 {
				log.Warn("secrets are stored for subjects that no token has; a JWT subject's own secrets are kept under its issuer now: set them again with --subject jwt:SUB",
					"subjects", strings.Join(orphans, ","))
			}
		}
		// Tokens are read from the state file on every request: a
		// replica follows its copy (db.StateFile), so a revocation reaches
		// it without a new index.
		h.Verifier = teamauth.Either(stateOf, teamauth.Verifier(stateOf), jwtv)
		h.VaultRoot = o.Workspace.Vault // each subject in a folder of its own
	}
	if s.ReadOnly {
		// A replica: follow the index file when a newer one replaces it,
		// with an app over the new file opened as this one was.
		h.Watch = &mcpserver.Watch{Path: deps.Store.Path(), Open: func(ctx context.Context) (tools.Deps, func() error, error) {
			next := New(o)
			d, err := next.ToolDeps(ctx)
			if err != nil {
				next.Close()
				return tools.Deps{}, nil, err
			}
			d.ReadOnly = true
			// Traces are the server's state, not the index's: manual_hits
			// pages a trace made before the swap.
			d.Finder.Traces = deps.Finder.Traces
			return d, next.Close, nil
		}}
	}
	ln, err := net.Listen("tcp", s.HTTP)
	if err != nil {
		return apperr.Wrap(err, apperr.InvalidArgument, "choose a free host:port", "cannot listen on %s: %v", s.HTTP, err)
	}
	h.BaseURL = "http://" + ln.Addr().String()
	handler, err := mcpserver.NewHTTPHandler(ctx, deps, mo, h)
	if err != nil {
		ln.Close()
		return err
	}
	if s.OnListen != nil {
		s.OnListen(h.BaseURL)
	}
	log.Info("serving MCP over HTTP", "url", h.BaseURL+mcpserver.PathMCP, "ui", h.BaseURL+mcpserver.PathUI, "auth", authOn, "read_only", deps.ReadOnly, "read_pool", o.ReadPool,
		"rate", rateText(rate), "tools", mo.Mode, "db", deps.Store.Path(), "languages", strings.Join(deps.Languages, ","), "hint", tools.AddLanguageHint(deps.Languages))
	return mcpserver.ListenAndServeHTTP(ctx, ln, handler, ShutdownGrace, log)
}

// servingReadPool is how many connections the served store reads through
// (db.DB.UseReadPool): as many as the cores for a team server, whose
// requests share it, 0 (the store's own pool) on stdio.
func servingReadPool(s ServeOptions) int {
	if s.HTTP == "" {
		return 0
	}
	return runtime.GOMAXPROCS(0)
}

// tuneGC applies serveGCPercent unless the user chose with GOGC.
func tuneGC(getenv func(string) string, log *slog.Logger) {
	if getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(serveGCPercent)
	log.Debug("garbage collector target set", "percent", serveGCPercent)
}

// jwtVerifier is the verifier of the identity provider j; the HS256 secret
// is read from the variable j names, and never printed.
func (a *App) jwtVerifier(ctx context.Context, j config.JWT, subjects map[string]config.AuthSubject) (auth.TokenVerifier, error) {
	o := teamauth.JWTOptions{Issuer: j.Issuer, Audience: j.Audience, JWKSURL: j.JWKSURL, Tools: map[string][]string{},
		Admins: map[string]bool{}, Logger: a.log}
	for sub, s := range subjects {
		if s.Tools != nil {
			o.Tools[sub] = s.Tools
		}
		o.Admins[sub] = s.Admin
	}
	if v := j.SecretVar(); v != "" {
		secret := a.opts.getenv()(v)
		if secret == "" {
			return nil, apperr.New(apperr.InvalidArgument, "export "+v+" before starting the server",
				"auth.jwt.hs256_secret names %s, which is not set", v)
		}
		o.Secret = []byte(secret)
	}
	return teamauth.JWTVerifier(ctx, o)
}

// rateText is the rate limit as the listening line says it.
func rateText(perSecond float64) string {
	if perSecond < 0 {
		return "none"
	}
	return strconv.FormatFloat(perSecond, 'g', -1, 64) + "/s"
}
