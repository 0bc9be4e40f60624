package main

import (
	"context"
	"log/slog"
	"net"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/mcpserver"
	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
)

// shutdownGrace is how long requests in flight may run once the team
// server is told to stop.
const shutdownGrace = 10 * time.Second

// serveHTTP runs the team server on opts.http until ctx ends. Auth is on
// when any token exists at start (tokens are checked on every request, so
// a revoked one stops at once; the first one needs a restart). Without
// tokens, only a loopback address is served, unless --insecure-no-auth.
func serveHTTP(ctx context.Context, opts *serveOptions, deps tools.Deps, mo mcpserver.Options, vaultRoot string, log *slog.Logger) error {
	hasTokens, err := deps.Store.HasTokens(ctx)
	if err != nil {
		return err
	}
	if !hasTokens && !opts.insecureNoAuth && !isLoopback(opts.http) {
		return usageError{apperr.New(apperr.InvalidArgument,
			"create a token first (langspec token create NAME), bind a loopback address such as 127.0.0.1:8080, or pass --insecure-no-auth",
			"refusing to serve %s without auth: no token exists", opts.http)}
	}
	h := mcpserver.HTTPOptions{AllowedOrigins: opts.allowOrigins, RatePerSecond: opts.rate, RateBurst: int(2 * opts.rate)}
	if hasTokens {
		h.Verifier = teamauth.Verifier(deps.Store)
		h.VaultRoot = vaultRoot // each subject in a folder of its own
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
	log.Info("serving MCP over HTTP", "url", h.BaseURL+mcpserver.PathMCP, "auth", hasTokens, "read_only", deps.ReadOnly,
		"tools", mo.Mode, "db", deps.Store.Path())
	return mcpserver.ListenAndServeHTTP(ctx, ln, handler, shutdownGrace, log)
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
