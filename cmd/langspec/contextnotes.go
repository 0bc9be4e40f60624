package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

func newCmdContext(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Attach notes to a specification, a manual, or a folder or file of one",
		Long: `A context note describes what a document, a manual, or a folder or file of a
manual is — "the car-insurance comparison, not the fire-insurance rules",
"the v1 handbook, kept for old contracts". Every answer whose hits it covers
carries it once (search, section, manual find and read, and the MCP tools),
so the reader can tell near-miss files apart.

An --aside note marks material beside the subject: manual find ranks what
it covers after the rest, unless the question uses a word of the note. Name
the subject in it ("自動車保険", "v1"), not words every file shares.

Notes added here are kept in $XDG_STATE_HOME/langspec/context.jsonl; notes
in langspec.json ("context") are listed too, and edited there.`,
	}
	asGroup(cmd)
	cmd.AddCommand(newCmdContextAdd(f), newCmdContextList(f), newCmdContextRm(f))
	return cmd
}

type contextAddOptions struct {
	io     *ioStreams
	app    func() (*app.App, error)
	target string
	text   string
	aside  bool
}

func newCmdContextAdd(f *factory) *cobra.Command {
	var ws workspaceFlags
	opts := &contextAddOptions{io: f.io, app: f.appFor(&ws)}
	cmd := &cobra.Command{
		Use:   "add TARGET TEXT",
		Short: "Attach a note (replacing the one it had)",
		Long:  "Attach a note to TARGET, replacing the note it had.\n\n" + app.ContextTargetHelp,
		Example: `  langspec context add go/spec "The Go version our services build with; newer rules may not apply yet."
  langspec context add manuals/kasai-hoken/参考/ "自動車保険との比較資料。火災保険の規定ではない" --aside`,
		Args: exactArgs(2, "TARGET and the note's TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.target, opts.text = args[0], args[1]
			return runContextAdd(opts)
		},
	}
	ws.addManualFlags(cmd, f)
	cmd.Flags().BoolVar(&opts.aside, "aside", false, "material beside the subject: manual find ranks it after the rest unless the question uses a word of the note")
	return cmd
}

func runContextAdd(opts *contextAddOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	target, replaced, err := a.AddNote(opts.target, opts.text, opts.aside)
	if err != nil {
		return err
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	fmt.Fprintf(opts.io.Out, "%s the note on %s\n", verb, target)
	return nil
}

func newCmdContextList(f *factory) *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the notes, the widest targets first",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a, err := f.plainApp()
			if err != nil {
				return err
			}
			defer a.Close()
			notes, err := a.ListNotes()
			if err != nil {
				return err
			}
			if jsonOut {
				return writeJSON(f.io.Out, notes)
			}
			if len(notes) == 0 {
				fmt.Fprintln(f.io.Out, "No context notes. Add one with: langspec context add TARGET TEXT")
				return nil
			}
			for _, n := range notes {
				flags := n.From
				if n.Aside {
					flags += ", aside"
				}
				fmt.Fprintf(f.io.Out, "%s (%s)\n  %s\n", n.Target, flags, strings.ReplaceAll(n.Text, "\n", "\n  "))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the notes as JSON")
	return cmd
}

func newCmdContextRm(f *factory) *cobra.Command {
	var ws workspaceFlags
	newApp := f.appFor(&ws)
	cmd := &cobra.Command{
		Use:     "rm TARGET",
		Aliases: []string{"remove"},
		Short:   "Remove a note added with context add",
		Long:    "Remove the note of TARGET added with 'langspec context add'.\n\n" + app.ContextTargetHelp,
		Args:    exactArgs(1, "the TARGET whose note to remove"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := newApp()
			if err != nil {
				return err
			}
			defer a.Close()
			target, err := a.RemoveNote(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(f.io.Out, "removed the note on %s\n", target)
			return nil
		},
	}
	ws.addManualFlags(cmd, f)
	return cmd
}
