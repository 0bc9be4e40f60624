package main

import (
	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

// newCmdUI is `langspec ui`: the team server on a loopback address, for
// one person, with the management page opened in a browser.
func newCmdUI(f *factory) *cobra.Command {
	opts := &serveOptions{io: f.io, options: f.serveOptions, logLevel: "warn", rate: app.DefaultRatePerSecond,
		sessionIdle: app.DefaultSessionIdle, maxSessions: app.DefaultSessionsPerSubject, openUI: true}
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Open the management page on this machine (the team server on a loopback address)",
		Long: `ui serves langspec on a loopback address and opens its management page
(/ui) in a browser: search and read sections with citations, compare a
concept across languages, see what changed between versions, see what is
stored and the context notes, make and revoke tokens, see upstream servers
and the names of the secrets. Once any token exists the page asks for one:
an admin token (langspec token create NAME --admin) opens every page, any
other token the reading pages its tools allow (search_spec, get_section,
compare, spec_diff). MCP clients can connect to /mcp at the same
address. It runs until interrupted.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !app.IsLoopback(opts.http) {
				return usageErrorf("--http %q: ui serves a loopback address only, such as 127.0.0.1:8765; use serve --http for others", opts.http)
			}
			return runServe(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.http, "http", "127.0.0.1:8765", "loopback host:port to serve on")
	opts.ws.addManualFlags(cmd, f)
	opts.ws.addVaultFlags(cmd, f)
	return cmd
}
