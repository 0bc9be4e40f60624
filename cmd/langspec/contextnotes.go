package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/config"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/ingest"
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

// contextTargetHelp says what TARGET may be, for each subcommand.
const contextTargetHelp = `TARGET is a specification (go, go/spec, langspec://go/spec), or a manual,
a folder or a file inside MANUALS_ROOT (manuals/kasai-hoken/参考/, or
langspec://manuals/kasai-hoken/参考/自動車保険との違い.md).`

type contextAddOptions struct {
	target string
	text   string
	aside  bool
	ws     app.WorkspaceFlags
}

func newCmdContextAdd(f *factory) *cobra.Command {
	var opts contextAddOptions
	var ws workspaceFlags
	cmd := &cobra.Command{
		Use:   "add TARGET TEXT",
		Short: "Attach a note (replacing the one it had)",
		Long:  "Attach a note to TARGET, replacing the note it had.\n\n" + contextTargetHelp,
		Example: `  langspec context add go/spec "The Go version our services build with; newer rules may not apply yet."
  langspec context add manuals/kasai-hoken/参考/ "自動車保険との比較資料。火災保険の規定ではない" --aside`,
		Args: exactArgs(2, "TARGET and the note's TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.target, opts.text, opts.ws = args[0], args[1], ws.WorkspaceFlags
			return runContextAdd(cmd, f, opts)
		},
	}
	ws.addManualFlags(cmd, f)
	cmd.Flags().BoolVar(&opts.aside, "aside", false, "material beside the subject: manual find ranks it after the rest unless the question uses a word of the note")
	return cmd
}

func runContextAdd(cmd *cobra.Command, f *factory, opts contextAddOptions) error {
	cfg, err := f.config()
	if err != nil {
		return err
	}
	t, err := resolveContextTarget(opts.target, opts.ws, cfg, true)
	if err != nil {
		return err
	}
	if _, ok := cfg.Context[t.String()]; ok {
		return apperr.New(apperr.InvalidArgument, "edit it in "+f.configPath(),
			"the note on %s is in the config file", t)
	}
	replaced, err := f.noteStore().Add(t, opts.text, opts.aside)
	if err != nil {
		return err
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	fmt.Fprintf(f.io.Out, "%s the note on %s\n", verb, t)
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
			cfg, err := f.config()
			if err != nil {
				return err
			}
			set, err := f.notes(cfg).Set()
			if err != nil {
				return err
			}
			notes := set.All()
			if notes == nil {
				notes = []contextnote.Note{}
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
	cmd := &cobra.Command{
		Use:     "rm TARGET",
		Aliases: []string{"remove"},
		Short:   "Remove a note added with context add",
		Long:    "Remove the note of TARGET added with 'langspec context add'.\n\n" + contextTargetHelp,
		Args:    exactArgs(1, "the TARGET whose note to remove"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.config()
			if err != nil {
				return err
			}
			// The target need not exist any more: a note may outlive its file.
			t, err := resolveContextTarget(args[0], ws.WorkspaceFlags, cfg, false)
			if err != nil {
				return err
			}
			if _, ok := cfg.Context[t.String()]; ok {
				return apperr.New(apperr.InvalidArgument, "remove it from "+f.configPath(),
					"the note on %s is in the config file", t)
			}
			if err := f.noteStore().Remove(t); err != nil {
				return err
			}
			fmt.Fprintf(f.io.Out, "removed the note on %s\n", t)
			return nil
		},
	}
	ws.addManualFlags(cmd, f)
	return cmd
}

// configPath is the config file read, for hints.
func (f *factory) configPath() string {
	p, _ := config.Path(f.configFlag, f.getenv)
	return p
}

// specName is a language, or language/doc, as typed: go, rust/reference.
var specName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)?$`)

// resolveContextTarget reads TARGET: a langspec:// target, a file or
// folder on disk inside MANUALS_ROOT, or a specification's name. With
// mustExist, the manual path must be on disk and the specification a
// source langspec knows. Errors: apperr.InvalidArgument or NotFound,
// saying what TARGET may be.
func resolveContextTarget(raw string, wf app.WorkspaceFlags, cfg config.Config, mustExist bool) (contextnote.Target, error) {
	ws, err := wf.Resolve(false)
	if err != nil {
		return contextnote.Target{}, err
	}
	var t contextnote.Target
	if strings.HasPrefix(raw, contextnote.Scheme) {
		if t, err = contextnote.ParseTarget(raw); err != nil {
			return t, err
		}
	} else if fi, statErr := os.Stat(raw); statErr == nil {
		// On disk: a manual's folder or a file in one. A folder that is
		// not ("go" in the working directory) may still name a spec.
		abs, err := filepath.Abs(raw)
		if err != nil {
			return t, apperr.Wrap(err, apperr.InvalidArgument, contextTargetHelp, "cannot resolve %s", raw)
		}
		t, err = contextnote.ManualTarget(ws.Manuals, abs, fi.IsDir())
		if err == nil {
			return t, nil
		}
		if !specName.MatchString(raw) {
			return t, err
		}
		t, err = contextnote.ParseTarget(contextnote.Scheme + raw)
		if err != nil {
			return t, err
		}
	} else if specName.MatchString(raw) {
		if t, err = contextnote.ParseTarget(contextnote.Scheme + raw); err != nil {
			return t, err
		}
	} else {
		return t, apperr.New(apperr.InvalidArgument, contextTargetHelp, "%q is neither a specification nor a file or folder on disk", raw)
	}
	if !mustExist {
		return t, nil
	}
	if t.IsManual() {
		p := filepath.Join(ws.Manuals, t.Manual, filepath.FromSlash(t.Path))
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return t, apperr.New(apperr.NotFound, "name a manual folder, a folder or a file under MANUALS_ROOT ("+ws.Manuals+")", "%s does not exist", p)
		}
		return t, nil
	}
	if _, err := ingest.Resolve(cfg.Sources, t.Language, t.Doc); err != nil && apperr.CodeOf(err) == apperr.NotFound {
		return t, err
	}
	return t, nil
}
