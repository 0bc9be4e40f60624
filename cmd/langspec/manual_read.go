package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/manual/find"
)

type manualReadOptions struct {
	*manualBase
	req     find.ReadRequest
	nodes   []string
	jsonOut bool
}

func newCmdManualRead(base *manualBase, runF func(context.Context, *manualReadOptions) error) *cobra.Command {
	opts := &manualReadOptions{manualBase: base}
	cmd := &cobra.Command{
		Use:   "read MANUAL_ID PATH [--node ID]...",
		Short: "Read a manual file, a section or the lines of one that match (manual_read)",
		Long: `Read prints part of a manual file with its citation: the manual id, the path,
the node id and the lines.

The scope is what is read:
  file      the whole file (the default without --node; how JSON is read)
  section   the section --node names, with its subsections (the default with one --node)
  sections  each section --node names, in order (the default with several)
  snippet   the paragraphs and list items of the --node section that hold a
            --query word, most words first (the default with one --node
            and --query)

Node ids come from 'langspec manual toc' and 'langspec manual find'. At most
--max-chars characters are printed in all; sections that did not fit are
named at the end.`,
		Example: `  langspec manual read ops-en runbooks/db/failover.md
  langspec manual read ops-en runbooks/db/failover.md --node database-failover/promote-the-replica
  langspec manual read ops-en runbooks/db/failover.md --node database-failover --query lag`,
		Args: exactArgs(2, "MANUAL_ID and PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.ManualID, opts.req.Path = args[0], args[1]
			scopes := find.ReadScopes()
			if opts.req.Scope != "" && !slices.Contains(scopes, opts.req.Scope) {
				return usageErrorf("--scope %q is not a scope; use %s", opts.req.Scope, strings.Join(scopes, ", "))
			}
			if opts.req.Scope == "" {
				// The scope manual_read picks: one --node is a node id,
				// several are node ids.
				r := find.ReadRequest{Query: opts.req.Query}
				if len(opts.nodes) == 1 {
					r.NodeID = opts.nodes[0]
				} else {
					r.NodeIDs = opts.nodes
				}
				opts.req.Scope = r.DefaultScope()
			}
			switch opts.req.Scope {
			case "file":
				if len(opts.nodes) > 0 {
					return usageErrorf("--scope file reads the whole file; leave out --node")
				}
			case "section", "snippet":
				if len(opts.nodes) != 1 {
					return usageErrorf("--scope %s reads one section: give one --node ID (got %d)", opts.req.Scope, len(opts.nodes))
				}
				opts.req.NodeID = opts.nodes[0]
			case "sections":
				if len(opts.nodes) == 0 {
					return usageErrorf("--scope sections needs --node ID, once per section")
				}
				if len(opts.nodes) > find.MaxReadSections {
					return usageErrorf("%d --node flags is over %d", len(opts.nodes), find.MaxReadSections)
				}
				opts.req.NodeIDs = opts.nodes
			}
			if opts.req.Query != "" && opts.req.Scope != "snippet" {
				return usageErrorf("--query picks the lines of --scope snippet; add --scope snippet")
			}
			if opts.req.MaxChars < 0 || opts.req.MaxChars > find.MaxReadChars {
				return usageErrorf("--max-chars %d is out of range; use 1 to %d", opts.req.MaxChars, find.MaxReadChars)
			}
			if opts.req.MaxSections < 0 || opts.req.MaxSections > find.MaxReadSections {
				return usageErrorf("--max-sections %d is out of range; use 1 to %d", opts.req.MaxSections, find.MaxReadSections)
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runManualRead(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.nodes, "node", nil, "node id from manual toc or manual find (repeat for --scope sections)")
	fl.StringVar(&opts.req.Scope, "scope", "", "file, section, sections or snippet (default: file without --node, section with one, sections with several)")
	fl.StringVar(&opts.req.Query, "query", "", "--scope snippet: words whose lines to print")
	fl.IntVar(&opts.req.MaxChars, "max-chars", 0, fmt.Sprintf("most characters in all, 1-%d (default %d; snippet %d)",
		find.MaxReadChars, find.DefaultReadChars, find.DefaultSnippetChars))
	fl.IntVar(&opts.req.MaxSections, "max-sections", 0, fmt.Sprintf("--scope sections: most sections, 1-%d (default %d)",
		find.MaxReadSections, find.DefaultReadSections))
	fl.BoolVar(&opts.jsonOut, "json", false, `print JSON: {"manual_id", "path", "scope", "parts": [{"node_id", "title", "line_start", "line_end", "text", "truncated"}], "omitted"}`)
	return cmd
}

func runManualRead(ctx context.Context, opts *manualReadOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	out, err := a.ManualRead(ctx, opts.req)
	if err != nil {
		return err
	}
	if opts.jsonOut {
		return writeJSON(opts.io.Out, out)
	}
	w := opts.io.Out
	for i, p := range out.Parts {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s  [%s %s#%s, lines %d-%d]\n\n%s\n", p.Title, out.ManualID, out.Path, p.NodeID, p.LineStart, p.LineEnd,
			strings.TrimRight(p.Text, "\n"))
		if p.Truncated {
			fmt.Fprintln(w, "[cut at --max-chars]")
		}
	}
	if len(out.Omitted) > 0 {
		fmt.Fprintf(w, "\n[not read, over --max-sections or --max-chars: %s]\n", strings.Join(out.Omitted, ", "))
	}
	printNotes(w, out.Context)
	return nil
}
