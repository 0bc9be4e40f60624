package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

type serveOptions struct {
	io        *ioStreams
	options   func(app.Workspace) (app.Options, error) // the app's, over the workspace the flags name
	logLevel  string
	toolsMode string // flat or categories; "" picks categories when upstream servers are configured
	toolsets  string // comma-separated toolsets; "" picks them from the workspace (app.Workspace.Toolsets)
	ws        workspaceFlags

	// The team server (--http).
	http           string
	insecureNoAuth bool
	readOnly       bool
	allowOrigins   []string
	rate           float64
	rateGiven      bool // --rate was given: a loopback server without auth has no limit unless it was
	sessionIdle    time.Duration
	maxSessions    int
	// openUI, for `langspec ui`: print the management page's address and
	// open a browser on it once the server listens.
	openUI bool
}

func newCmdServe(f *factory) *cobra.Command {
	opts := &serveOptions{io: f.io, options: f.serveOptions}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the spec tools to MCP clients over stdio, or over HTTP for a team",
		Long: `Serve speaks the Model Context Protocol on stdin and stdout, for Claude Code,
Claude Desktop, Cursor and other MCP clients. stdout carries protocol messages
only; logs go to stderr, one line per tool call.

With --http ADDR it is the team server instead: streamable HTTP at /mcp, the
management page at /ui, /health, /metrics (admin tokens) and the protected
resource metadata. Once a token exists (langspec token create) or langspec.json
names an identity provider (auth.jwt), every request needs a bearer token; each
holder sees the tools its token allows and writes into VAULT_ROOT/<name>/.
Without auth only a loopback address is served. --read-only serves no writing
tool, opens the database read-only, and switches to a newer index renamed over
the file.

Toolsets choose the tool families listed: spec (always there), manual
(MANUALS_ROOT), vault (VAULT_ROOT) and bridge (manuals into the vault). By
default spec, manual when the manuals folder exists, vault only when you name
one (--vault-root or VAULT_ROOT, --workspace-root or WORKSPACE_ROOT: a vault/
folder that merely exists where the server starts gives the model no writing
tool), and bridge when both are on.

A client that sends a progress token hears notifications/progress during
batch and manual re-indexing; a client that sets a log level
(logging/setLevel) gets the log lines at or above it as notifications/message.

It ends cleanly when the client closes stdin or on SIGTERM/SIGINT.`,
		Example: `  claude mcp add langspec -- langspec serve
  claude mcp add langspec -- langspec serve --toolsets spec
  langspec serve --http 127.0.0.1:8080
  langspec serve --http 0.0.0.0:8080 --read-only --db /srv/langspec.db
  langspec serve --log-level debug 2>langspec.log`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := parseLogLevel(opts.logLevel); err != nil {
				return usageError{err}
			}
			if opts.toolsMode != "" && opts.toolsMode != app.ModeFlat && opts.toolsMode != app.ModeCategories {
				return usageErrorf("--tools %q is not a mode; use flat or categories", opts.toolsMode)
			}
			if _, err := app.ParseToolsets(opts.toolsets); err != nil {
				return usageError{err}
			}
			if opts.http == "" && (opts.insecureNoAuth || len(opts.allowOrigins) > 0 || cmd.Flags().Changed("rate") ||
				cmd.Flags().Changed("session-idle") || cmd.Flags().Changed("max-sessions")) {
				return usageErrorf("--insecure-no-auth, --allow-origin, --rate, --session-idle and --max-sessions go with --http ADDR")
			}
			if opts.sessionIdle < time.Second {
				return usageErrorf("--session-idle %s: give a duration of a second or more, such as 30m", opts.sessionIdle)
			}
			if opts.maxSessions < 1 {
				return usageErrorf("--max-sessions %d: give at least 1", opts.maxSessions)
			}
			if opts.http != "" && strings.Trim(opts.http, "0123456789") == "" {
				return usageErrorf("--http %s is a port alone; give host:port, such as 127.0.0.1:%s (this machine only) or 0.0.0.0:%s (every interface, with tokens)",
					opts.http, opts.http, opts.http)
			}
			if opts.rate <= 0 {
				return usageErrorf("--rate %g: give a positive number of requests a second", opts.rate)
			}
			opts.rateGiven = cmd.Flags().Changed("rate")
			return runServe(cmd.Context(), opts)
		},
	}
	level := f.getenv("LANGSPEC_LOG")
	if level == "" {
		level = "info"
	}
	cmd.Flags().StringVar(&opts.logLevel, "log-level", level, "stderr log level: debug, info, warn or error (env LANGSPEC_LOG)")
	opts.ws.addManualFlags(cmd, f)
	opts.ws.addVaultFlags(cmd, f)
	cmd.Flags().StringVar(&opts.toolsMode, "tools", "",
		"flat (list every tool) or categories (list get-category-tools, call-category-tool and batch only); default categories when mcpServers are configured, else flat")
	cmd.Flags().StringVar(&opts.http, "http", "", "serve streamable HTTP on ADDR (host:port, e.g. 127.0.0.1:8080) at /mcp instead of stdio")
	cmd.Flags().BoolVar(&opts.insecureNoAuth, "insecure-no-auth", false, "with --http: serve a non-loopback address although no token exists (anyone who can reach it may use it)")
	cmd.Flags().BoolVar(&opts.readOnly, "read-only", false, "serve no tool that writes (the vault's writing tools and the bridge)")
	cmd.Flags().StringArrayVar(&opts.allowOrigins, "allow-origin", nil, "with --http: a browser origin allowed to call, e.g. http://localhost:6274 (repeat); others get 403")
	cmd.Flags().Float64Var(&opts.rate, "rate", app.DefaultRatePerSecond, "with --http: requests a second each subject may send, over every route (bursts of twice that; a loopback server without auth has no limit unless --rate is given)")
	cmd.Flags().DurationVar(&opts.sessionIdle, "session-idle", app.DefaultSessionIdle,
		"with --http: close an MCP session after this long without a request or an open stream (its client starts a new one)")
	cmd.Flags().IntVar(&opts.maxSessions, "max-sessions", app.DefaultSessionsPerSubject,
		"with --http: sessions each subject may hold at once; a new one closes the subject's oldest idle one")
	cmd.Flags().StringVar(&opts.toolsets, "toolsets", f.getenv("LANGSPEC_TOOLSETS"),
		"tool families to serve, comma-separated: "+strings.Join(app.ToolsetNames(), ", ")+" or "+app.ToolsetAll+
			" (env LANGSPEC_TOOLSETS; default spec, plus manual when its folder is there, vault when one is named, bridge with both)")
	return cmd
}

func parseLogLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.TrimSpace(s))); err != nil {
		return l, usageErrorf("--log-level %q is not a level; use debug, info, warn or error", s)
	}
	return l, nil
}

func runServe(ctx context.Context, opts *serveOptions) error {
	level, _ := parseLogLevel(opts.logLevel)        // checked in RunE
	toolsets, _ := app.ParseToolsets(opts.toolsets) // checked in RunE
	ws, err := opts.ws.Resolve(true)
	if err != nil {
		return err
	}
	o, err := opts.options(ws)
	if err != nil {
		return err
	}
	s := app.ServeOptions{LogLevel: level, Mode: opts.toolsMode, Toolsets: toolsets, ReadOnly: opts.readOnly,
		In: readCloser(opts.io.In), Out: opts.io.Out,
		HTTP: opts.http, InsecureNoAuth: opts.insecureNoAuth, AllowOrigins: opts.allowOrigins, Rate: opts.rate, RateGiven: opts.rateGiven,
		SessionIdle: opts.sessionIdle, MaxSessions: opts.maxSessions}
	if opts.openUI {
		s.OnListen = func(baseURL string) {
			fmt.Fprintf(opts.io.ErrOut, "langspec: the management page is at %s%s\n", baseURL, app.PathUI)
			openBrowser(baseURL + app.PathUI)
		}
	}
	return app.Serve(ctx, o, s)
}

// readCloser keeps stdin closable: closing it is what unblocks the reader
// when a signal ends the server.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

// buildVersion is the version the server gives its clients: the one
// `langspec version` prints.
func buildVersion() string { return readVersion().Version }
