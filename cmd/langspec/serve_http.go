package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/config"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/mcpserver"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
	"github.com/langspec/langspec/internal/webui"
)

// shutdownGrace is how long requests in flight may run once the team
// server is told to stop.
const shutdownGrace = 10 * time.Second

// serveHTTP runs the team server on opts.http until ctx ends. Auth is on
// when any token exists at start or langspec.json names an identity
// provider (auth.jwt); tokens are checked on every request, so a revoked
// one stops at once (the first token of a server started without any
// needs a restart). Without auth, only a loopback address is served,
// unless --insecure-no-auth. With --read-only, the server follows the
// database file: when a newer index replaces it, new requests go to the
// new one (mcpserver.Watch).
func serveHTTP(ctx context.Context, opts *serveOptions, deps tools.Deps, mo mcpserver.Options, ws app.Workspace, ac config.Auth, ui uiParts, log *slog.Logger) error {
	state := ui.state(ctx)
	hasTokens, err := state.HasTokens(ctx)
	if err != nil {
		return err
	}
	authOn := hasTokens || ac.JWT != nil
	if !authOn && !opts.insecureNoAuth && !isLoopback(opts.http) {
		return usageError{apperr.New(apperr.InvalidArgument,
			"create a token first (langspec token create NAME; a replica reads the writer's state file: --state PATH), bind a loopback address such as 127.0.0.1:8080, or pass --insecure-no-auth",
			"refusing to serve %s without auth: no token exists in the state file %s", opts.http, state.Path())}
	}
	rate := opts.rate
	if !authOn && isLoopback(opts.http) && !opts.rateGiven {
		// Only this machine's own clients reach it, as one subject: a
		// limit would only trip the user's own tools (the conformance
		// suite run in one go did).
		rate = -1
	}
	h := mcpserver.HTTPOptions{AllowedOrigins: append(slices.Clone(opts.allowOrigins), ac.AllowedOrigins...),
		RatePerSecond: rate, RateBurst: int(2 * opts.rate), SessionIdle: opts.sessionIdle, SessionsPerSubject: opts.maxSessions,
		Sources: ui.sources, Ingest: ui.ingest, Subjects: map[string]webui.SubjectInfo{}, Tokens: tokenRules(nil, ac, opts.f.now), State: ui.state}
	for sub, s := range ui.subjects {
		h.Subjects[sub] = webui.SubjectInfo{Tools: s.Tools, Admin: s.Admin}
	}
	if authOn {
		var jwtv auth.TokenVerifier
		if j := ac.JWT; j != nil {
			if jwtv, err = jwtVerifier(ctx, opts.f, *j, ac.Subjects, log); err != nil {
				return err
			}
			h.AuthorizationServers = []string{j.Issuer}
		}
		if ac.JWT != nil {
			if err := teamauth.CheckNames(ctx, state, slices.Collect(maps.Keys(ac.Subjects))); err != nil {
				return err
			}
			for _, sub := range slices.Sorted(maps.Keys(ac.Subjects)) {
				if _, err := h.Tokens.CheckTools(ac.Subjects[sub].Tools); err != nil {
					ae, _ := errors.AsType[*apperr.Error](err)
					return usageError{apperr.New(apperr.InvalidArgument, ae.Hint, "auth.subjects.%s.%s", sub, ae.Message)}
				}
			}
			if orphans, err := teamauth.OrphanSecretSubjects(ctx, state); err == nil && len(orphans) > 0 {
				log.Warn("secrets are stored for subjects that no token has; a JWT subject's own secrets are kept under its issuer now: set them again with --subject jwt:SUB",
					"subjects", strings.Join(orphans, ","))
			}
		}
		// Tokens are read from the state file on every request: a
		// replica follows its copy (db.StateFile), so a revocation reaches
		// it without a new index.
		h.Verifier = teamauth.Either(ui.state, teamauth.Verifier(ui.state), jwtv)
		h.VaultRoot = ws.Vault // each subject in a folder of its own
	}
	if opts.readOnly {
		// A replica: follow the index file when a newer one replaces it.
		h.Watch = &mcpserver.Watch{Path: deps.Store.Path(), Open: func(ctx context.Context) (tools.Deps, func() error, error) {
			a, err := opts.f.newAppWithStore(ws, log, true, servingReadPool(opts))
			if err != nil {
				return tools.Deps{}, nil, err
			}
			d, err := a.ToolDeps(ctx)
			if err != nil {
				a.Close()
				return tools.Deps{}, nil, err
			}
			d.ReadOnly = true
			// Traces are the server's state, not the index's: manual_hits
			// pages a trace made before the swap.
			d.Finder.Traces = deps.Finder.Traces
			return d, a.Close, nil
		}}
	}
	ln, err := net.Listen("tcp", opts.http)
	if err != nil {
		return apperr.Wrap(err, apperr.InvalidArgument, "choose a free host:port", "cannot listen on %s: %v", opts.http, err)
	}
	h.BaseURL = "http://" + ln.Addr().String()
	handler, err := mcpserver.NewHTTPHandler(ctx, deps, mo, h)
	if err != nil {
		ln.Close()
		return err
	}
	if opts.openUI {
		fmt.Fprintf(opts.f.io.ErrOut, "langspec: the management page is at %s%s\n", h.BaseURL, mcpserver.PathUI)
		openBrowser(h.BaseURL + mcpserver.PathUI)
	}
	log.Info("serving MCP over HTTP", "url", h.BaseURL+mcpserver.PathMCP, "ui", h.BaseURL+mcpserver.PathUI, "auth", authOn, "read_only", deps.ReadOnly, "read_pool", servingReadPool(opts),
		"rate", rateText(rate), "tools", mo.Mode, "db", deps.Store.Path(), "languages", strings.Join(deps.Languages, ","), "hint", tools.AddLanguageHint(deps.Languages))
	return mcpserver.ListenAndServeHTTP(ctx, ln, handler, shutdownGrace, log)
}

// uiParts are what the management page needs from the app.
type uiParts struct {
	state    teamauth.StateOf // the state file as it is now
	sources  []ingest.SourceSpec
	subjects map[string]config.AuthSubject
	ingest   func(ctx context.Context, language, doc string, progress func(string, bool)) (ingest.Report, error)
}

// isLoopback says whether addr (host:port) binds a loopback address only.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// jwtVerifier is the verifier of the identity provider j; the HS256 secret
// is read from the variable j names, and never printed.
func jwtVerifier(ctx context.Context, f *factory, j config.JWT, subjects map[string]config.AuthSubject, log *slog.Logger) (auth.TokenVerifier, error) {
	o := teamauth.JWTOptions{Issuer: j.Issuer, Audience: j.Audience, JWKSURL: j.JWKSURL, Tools: map[string][]string{},
		Admins: map[string]bool{}, Logger: log}
	for sub, s := range subjects {
		if s.Tools != nil {
			o.Tools[sub] = s.Tools
		}
		o.Admins[sub] = s.Admin
	}
	if v := j.SecretVar(); v != "" {
		secret := f.getenv(v)
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
