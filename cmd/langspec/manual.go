package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/tools"
)

// manualBase is what every manual subcommand shares: the factory and the
// manuals folder, given once on the group (its flags are persistent).
type manualBase struct {
	f  *factory
	ws workspaceFlags
}

// newCmdManual is "manual": the manual tools from the terminal. Each
// subcommand calls what its MCP tool calls (tools.ManualCalls).
func newCmdManual(f *factory) *cobra.Command {
	base := &manualBase{f: f}
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
		newCmdManualList(base, nil),
		newCmdManualLs(base, nil),
		newCmdManualToc(base, nil),
		newCmdManualRead(base, nil),
		newCmdManualFind(base, nil),
	)
	return cmd
}

// open resolves the manuals folder, refuses one that is not there, and
// returns the app (to close) and the manual tools' calls; withFinder binds
// manual_find's finder too, which opens the database.
func (b *manualBase) open(ctx context.Context, withFinder bool) (*app.App, tools.ManualCalls, string, error) {
	ws, err := b.ws.Resolve(false) // no statistics: the terminal is not a model to tune for
	if err != nil {
		return nil, tools.ManualCalls{}, "", err
	}
	if err := checkManualsRoot(ws.Manuals); err != nil {
		return nil, tools.ManualCalls{}, "", err
	}
	a, err := b.f.newApp(ws, nil)
	if err != nil {
		return nil, tools.ManualCalls{}, "", err
	}
	lib, err := a.Manuals()
	if err != nil {
		a.Close()
		return nil, tools.ManualCalls{}, "", err
	}
	calls := tools.NewManualCalls(lib, nil)
	if withFinder {
		finder, err := a.Finder(ctx)
		if err != nil {
			a.Close()
			return nil, tools.ManualCalls{}, "", err
		}
		calls = tools.NewManualCalls(lib, finder)
	}
	return a, calls, ws.Manuals, nil
}

type manualListOptions struct {
	*manualBase
	jsonOut bool
}

func newCmdManualList(base *manualBase, runF func(context.Context, *manualListOptions) error) *cobra.Command {
	opts := &manualListOptions{manualBase: base}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the manual ids (manual_list)",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runManualList(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, `print JSON: {"root": …, "manuals": [...], "other_roots": [{"root": …, "manuals": [...]}]}`)
	return cmd
}

// manualListing is `manual list --json`: manual_list's answer, with the
// folder it lists and the other folders whose manuals the database holds
// (a manual is its folder and its id: several projects' manuals live in
// one database side by side).
type manualListing struct {
	Root       string           `json:"root"`
	Manuals    []string         `json:"manuals"`
	OtherRoots []db.IndexedRoot `json:"other_roots,omitempty"`
}

func runManualList(ctx context.Context, opts *manualListOptions) error {
	a, calls, dir, err := opts.open(ctx, false)
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := calls.List(ctx)
	if err != nil {
		return err
	}
	listing := manualListing{Root: find.RootKey(dir), Manuals: out.Manuals}
	roots, err := a.IndexedRoots(ctx)
	if err != nil {
		return err
	}
	for _, r := range roots {
		if r.Root != listing.Root {
			listing.OtherRoots = append(listing.OtherRoots, r)
		}
	}
	if opts.jsonOut {
		return writeJSON(opts.f.io.Out, listing)
	}
	if len(out.Manuals) == 0 {
		fmt.Fprintf(opts.f.io.ErrOut, "langspec: %s\n", noManuals(dir).Error())
	}
	for _, id := range out.Manuals {
		fmt.Fprintln(opts.f.io.Out, id)
	}
	if len(out.Manuals) > 0 {
		fmt.Fprintf(opts.f.io.ErrOut, "langspec: the manuals of %s\n", listing.Root)
	}
	for _, r := range listing.OtherRoots {
		fmt.Fprintf(opts.f.io.ErrOut, "langspec: the database also holds the manuals of %s: %s\n", r.Root, strings.Join(r.Manuals, ", "))
	}
	return nil
}

type manualLsOptions struct {
	*manualBase
	in      tools.ManualLsIn
	jsonOut bool
}

func newCmdManualLs(base *manualBase, runF func(context.Context, *manualLsOptions) error) *cobra.Command {
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
			opts.in.ManualID = args[0]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runManualLs(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, `print JSON: {"manual_id", "files": [...], "warnings": [...]}`)
	return cmd
}

func runManualLs(ctx context.Context, opts *manualLsOptions) error {
	a, calls, _, err := opts.open(ctx, false)
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := calls.Ls(ctx, opts.in)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.f.io.Out, out)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(opts.f.io.ErrOut, "langspec: warning: %s\n", w)
	}
	for _, p := range out.Files {
		fmt.Fprintln(opts.f.io.Out, p)
	}
	return nil
}

type manualTocOptions struct {
	*manualBase
	in      tools.ManualTocIn
	jsonOut bool
}

func newCmdManualToc(base *manualBase, runF func(context.Context, *manualTocOptions) error) *cobra.Command {
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
			opts.in.ManualID, opts.in.Path = args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runManualToc(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.jsonOut, "json", false, `print JSON: {"manual_id", "nodes": [{"node_id", "title", "level", "line_start", "line_end", …}]}`)
	return cmd
}

func runManualToc(ctx context.Context, opts *manualTocOptions) error {
	a, calls, _, err := opts.open(ctx, false)
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := calls.Toc(ctx, opts.in)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.f.io.Out, out)
	}
	w := opts.f.io.Out
	fmt.Fprintf(w, "%s/%s\n", out.ManualID, opts.in.Path)
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
