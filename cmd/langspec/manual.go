package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

// manualBase is what every manual subcommand shares: the streams, the
// manuals folder, given once on the group (its flags are persistent), and
// the app over it.
type manualBase struct {
	io  *ioStreams
	ws  workspaceFlags
	app func() (*app.App, error)
	// folders are the folder flags given on the command line, as they
	// are typed again in a command printed to run next (folderFlags).
	folders string
}

// folderFlags are the manuals' folder flags set on cmd's command line,
// " --manuals-root '/x'" and the like: a command langspec prints to run
// next reads the same folder. Environment variables carry over anyway.
func folderFlags(cmd *cobra.Command) string {
	var b strings.Builder
	for _, name := range []string{"workspace-root", "manuals-root", "synonyms"} {
		if f := cmd.Flag(name); f != nil && f.Changed {
			fmt.Fprintf(&b, " --%s %s", name, shellQuote(f.Value.String()))
		}
	}
	return b.String()
}

// newCmdManual is "manual": the manual tools from the terminal. Each
// subcommand calls what its MCP tool calls (find.Service, through app).
func newCmdManual(f *factory) *cobra.Command {
	base := &manualBase{io: f.io}
	base.app = f.appFor(&base.ws)
	cmd := asGroup(&cobra.Command{
		Use:   "manual",
		Short: "Find and read in the manuals (what the manual_* MCP tools do)",
		Long: `The manual commands search and read the manuals under the manuals folder
(one folder per manual, .md and .json files at any depth), as the MCP tools
manual_find, manual_read, manual_ls, manual_toc and manual_list do: each
command calls the same function as its tool.

The manuals folder is --manuals-root, else MANUALS_ROOT, else
WORKSPACE_ROOT/manuals (WORKSPACE_ROOT: --workspace-root, or the working
directory). 'langspec ingest manuals' indexes it ahead of time; manual find
indexes what changed before it searches.

Every hit and every part read is cited by manual id, path, node id and
lines: pass the node id to 'manual read --node'.`,
		Example: `  langspec manual list
  langspec manual find 給与 --manual kasai-hoken
  langspec manual toc ops-en runbooks/db/failover.md
  langspec manual read ops-en runbooks/db/failover.md --node database-failover/promote-the-replica
  langspec manual ls ops-en --json`,
	})
	base.ws.addManualFlagsTo(cmd, f, true)
	cmd.AddCommand(
		newCmdManualList(base),
		newCmdManualLs(base),
		newCmdManualToc(base),
		newCmdManualRead(base, nil),
		newCmdManualFind(base),
	)
	return cmd
}

type manualListOptions struct {
	*manualBase
	jsonOut bool
}

func newCmdManualList(base *manualBase) *cobra.Command {
	opts := &manualListOptions{manualBase: base}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the manual ids (manual_list)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runManualList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, `print JSON: {"root": …, "manuals": [...], "other_roots": [{"root": …, "manuals": [...]}]}`)
	return cmd
}

func runManualList(ctx context.Context, opts *manualListOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	listing, err := a.ManualList(ctx)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, listing)
	}
	if len(listing.Manuals) == 0 {
		fmt.Fprintf(opts.io.ErrOut, "langspec: %s\n", a.NoManuals().Error())
	}
	for _, id := range listing.Manuals {
		fmt.Fprintln(opts.io.Out, id)
	}
	if len(listing.Manuals) > 0 {
		fmt.Fprintf(opts.io.ErrOut, "langspec: the manuals of %s\n", listing.Root)
	}
	for _, r := range listing.OtherRoots {
		fmt.Fprintf(opts.io.ErrOut, "langspec: the database also holds the manuals of %s: %s\n", r.Root, strings.Join(r.Manuals, ", "))
	}
	return nil
}

type manualLsOptions struct {
	*manualBase
	manualID string
	jsonOut  bool
}

func newCmdManualLs(base *manualBase) *cobra.Command {
	opts := &manualLsOptions{manualBase: base}
	cmd := &cobra.Command{
		Use:   "ls MANUAL_ID",
		Short: "List a manual's .md and .json files (manual_ls)",
		Long: `Ls lists the .md and .json files of one manual at any depth, relative to the
manual's folder and named as on disk. Files left out (bytes in no encoding
langspec reads, names that differ only in Unicode form) are warned about on
stderr.`,
		Example: `  langspec manual ls ops-en
  langspec manual ls kasai-hoken --json`,
		Args: exactArgs(1, "one MANUAL_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.manualID = args[0]
			return runManualLs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, `print JSON: {"manual_id", "files": [...], "warnings": [...]}`)
	return cmd
}

func runManualLs(ctx context.Context, opts *manualLsOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := a.ManualLs(ctx, opts.manualID)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, out)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(opts.io.ErrOut, "langspec: warning: %s\n", w)
	}
	for _, p := range out.Files {
		fmt.Fprintln(opts.io.Out, p)
	}
	return nil
}

type manualTocOptions struct {
	*manualBase
	manualID, path string
	jsonOut        bool
}

func newCmdManualToc(base *manualBase) *cobra.Command {
	opts := &manualTocOptions{manualBase: base}
	cmd := &cobra.Command{
		Use:   "toc MANUAL_ID PATH",
		Short: "A manual file's headings with their node ids and lines (manual_toc)",
		Long: `Toc prints a manual file's headings in document order, indented by level,
each with its node id and its lines (a section's lines include its
subsections). A JSON file is one node, "file". Pass a node id to
'langspec manual read --node'.`,
		Example: `  langspec manual toc ops-en runbooks/db/failover.md
  langspec manual toc kasai-hoken 約款/普通保険約款.md --json`,
		Args: exactArgs(2, "MANUAL_ID and PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.manualID, opts.path = args[0], args[1]
			return runManualToc(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, `print JSON: {"manual_id", "nodes": [{"node_id", "title", "level", "line_start", "line_end", …}]}`)
	return cmd
}

func runManualToc(ctx context.Context, opts *manualTocOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := a.ManualToc(ctx, opts.manualID, opts.path)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, out)
	}
	w := opts.io.Out
	fmt.Fprintf(w, "%s/%s\n", out.ManualID, opts.path)
	for _, n := range out.Nodes {
		fmt.Fprintf(w, "%s%s  [%s, lines %d-%d]\n", strings.Repeat("  ", max(n.Level-1, 0)), n.Title, n.NodeID, n.LineStart, n.LineEnd)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it needs it, so a command
// langspec suggests can be pasted as it is.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n*?[]$`\"'\\!&|;<>(){}~#=%") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
