package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
)

func newCmdToken(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke the bearer tokens of the team server",
		Long: `The team server (langspec serve --http) asks every request for a bearer
token once any token exists. A token names its holder (the subject: the
name in logs, and the folder of their vault under VAULT_ROOT) and may limit
the tools they can list and call. The database keeps only each token's
SHA-256: a token is shown once, when it is made.`,
	}
	asGroup(cmd)
	cmd.AddCommand(newCmdTokenCreate(f), newCmdTokenList(f), newCmdTokenRevoke(f))
	return cmd
}

func newCmdTokenCreate(f *factory) *cobra.Command {
	var toolsFlag string
	var jsonOut, admin bool
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Make a token and print it once",
		Example: `  langspec token create alice
  langspec token create ci --tools search_spec,get_section --json`,
		Args: exactArgs(1, "the token's NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			var allowed []string
			if cmd.Flags().Changed("tools") {
				allowed = strings.Split(toolsFlag, ",") // an empty list is refused, not taken for every tool
			}
			a, err := f.plainApp() // the configuration names the subjects a token may not take
			if err != nil {
				return err
			}
			defer a.Close()
			token, err := a.CreateToken(cmd.Context(), name, allowed, admin)
			if apperr.CodeOf(err) == apperr.InvalidArgument {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if jsonOut {
				return writeJSON(f.io.Out, map[string]any{"name": name, "token": token})
			}
			fmt.Fprintln(f.io.Out, token)
			fmt.Fprintf(f.io.ErrOut, "langspec: token %q made; it is shown once, keep it now\n", name)
			return nil
		},
	}
	cmd.Flags().StringVar(&toolsFlag, "tools", "", "the only tools its holder may list and call, comma-separated: langspec's own by name, an upstream tool as category__tool (default: every tool)")
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"name": …, "token": …}`)
	cmd.Flags().BoolVar(&admin, "admin", false, "its holder may also read the server's /metrics")
	return cmd
}

func newCmdTokenList(f *factory) *cobra.Command {
	type row struct {
		Name      string   `json:"name"`
		Tools     []string `json:"tools,omitempty"`
		Admin     bool     `json:"admin,omitempty"`
		CreatedAt string   `json:"created_at"`
		RevokedAt string   `json:"revoked_at,omitempty"`
	}
	return newListCmd(f, "List the tokens: names, tools and dates, never the tokens", (*app.App).Tokens,
		[]string{"NAME", "TOOLS", "ADMIN", "CREATED", "REVOKED"},
		func(t app.Token) []string {
			toolsText, adminText, revoked := "all", "", ""
			if t.Tools != nil {
				toolsText = strings.Join(t.Tools, ",")
			}
			if t.Admin {
				adminText = "yes"
			}
			if !t.RevokedAt.IsZero() {
				revoked = t.RevokedAt.Format(time.DateTime)
			}
			return []string{t.Name, toolsText, adminText, t.CreatedAt.Format(time.DateTime), revoked}
		},
		func(t app.Token) any {
			r := row{Name: t.Name, Tools: t.Tools, Admin: t.Admin, CreatedAt: t.CreatedAt.Format(time.RFC3339)}
			if !t.RevokedAt.IsZero() {
				r.RevokedAt = t.RevokedAt.Format(time.RFC3339)
			}
			return r
		})
}

func newCmdTokenRevoke(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke a token: the next request with it gets 401",
		Args:  exactArgs(1, "the token's NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := f.specApp()
			if err != nil {
				return err
			}
			defer a.Close()
			if err := a.RevokeToken(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.io.ErrOut, "langspec: token %q revoked\n", args[0])
			return nil
		},
	}
}
