package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/specdiff"
)

type diffOptions struct {
	io      *ioStreams
	app     func() (*app.App, error)
	req     specdiff.Request
	jsonOut bool
}

func newCmdDiff(f *factory) *cobra.Command {
	opts := &diffOptions{io: f.io, app: f.specApp}
	cmd := &cobra.Command{
		Use:   "diff LANGUAGE [--from VERSION] [--to VERSION]",
		Short: "What changed in a specification between two stored versions",
		Long: `Diff compares two stored versions of a document (default: the two newest
complete ones) and prints the sections added, removed, renamed (matched by
anchor, then by title and text) and changed, each classed as a rule change,
an example, moved text or an editorial edit (links, typos, punctuation,
hyphens, comments of examples), rule changes first. A changed section shows
its changed sentences with the words marked [-old-]{+new+}, sentences that
moved from another section as moved, and its citation. When versions are
stored between --from and --to, each is compared with the next, and every
change says the release that made it.

--section narrows it to one section with all its changed sentences, --query
to the sections a search for those words finds in any of the versions,
--class to one class. Versions may be written 1.22 or go1.22.0 for go1.22.

Versions come from 'langspec ingest' (--keep decides how many are kept); an
older one from its file: langspec ingest go --from go_spec.html
--version-label go1.21 (docs/search.md, "Older versions"). 'langspec since'
dates the rules of a section over every stored version.`,
		Example: `  langspec diff go
  langspec diff go --from go1.21 --to go1.22 --query "loop variable"
  langspec diff go --from 1.20 --to 1.26 --class rule
  langspec diff rust --section "Integer overflow"
  langspec diff python --json`,
		Args: exactArgs(1, "the LANGUAGE whose versions to compare"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.req.Language = args[0]
			if err := limitInRange(opts.req.Limit, specdiff.MaxLimit); err != nil {
				return err
			}
			if opts.req.Offset < 0 {
				return usageErrorf("--offset %d is negative", opts.req.Offset)
			}
			if c := opts.req.Class; c != "" && !slices.Contains(specdiff.Classes, c) {
				return usageErrorf("--class %q: use one of %s", c, strings.Join(specdiff.Classes, ", "))
			}
			// Without --limit a page is bounded in bytes, as over MCP.
			if !cmd.Flags().Changed("limit") {
				opts.req.Limit = 0
			}
			opts.req.SentencesInJSON = opts.jsonOut
			return runDiff(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.req.Doc, "doc", "", "document, when the language has several")
	fl.StringVar(&opts.req.From, "from", "", "the older version (default: the one before --to)")
	fl.StringVar(&opts.req.To, "to", "", "the newer version (default: the newest)")
	fl.StringVar(&opts.req.SectionID, "section", "", "only this section (id or title), with all its changed sentences")
	fl.StringVar(&opts.req.Query, "query", "", "only the sections these words find in any of the versions")
	fl.StringVar(&opts.req.Class, "class", "", "only this class: "+strings.Join(specdiff.Classes, ", "))
	fl.IntVar(&opts.req.Offset, "offset", 0, "first section to print")
	fl.IntVarP(&opts.req.Limit, "limit", "n", specdiff.DefaultLimit, fmt.Sprintf("sections to print (1-%d; default: what fits about 8 KB, at most %d)", specdiff.MaxLimit, specdiff.DefaultLimit))
	fl.BoolVar(&opts.jsonOut, "json", false, "print the diff as JSON")
	return cmd
}

func runDiff(ctx context.Context, opts *diffOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	ans, err := a.Diff(ctx, opts.req)
	if err != nil {
		return err
	}
	out := opts.io.Out
	if opts.jsonOut {
		return writeJSON(out, ans)
	}
	for _, n := range ans.Notices {
		fmt.Fprintf(opts.io.ErrOut, "langspec: %s\n", n)
	}
	// The text is spec_diff's, so the terminal and a model read the same
	// page; the hints name the flags instead of the tool's arguments.
	text := specdiff.Text(ans)
	again := diffCommand(opts.req, ans)
	oneSection := diffCommand(specdiff.Request{Doc: opts.req.Doc}, ans) // --section and --query go apart
	text = moreSentencesRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := moreSentencesRE.FindStringSubmatch(m)
		return "(" + sub[1] + " more: " + oneSection + " --section " + shellQuote(sub[2]) + ")"
	})
	if ans.Next > 0 {
		text = strings.Replace(text, fmt.Sprintf("more with offset=%d]", ans.Next), fmt.Sprintf("more: %s --offset %d]", again+classFlag(opts.req), ans.Next), 1)
	}
	text = strings.Replace(text, "(class=editorial lists them)", "(--class editorial lists them)", 1)
	text = strings.Replace(text, "pass its section_id for them all.", "see them all with "+oneSection+" --section ID.", 1)
	fmt.Fprint(out, text)
	return nil
}

// moreSentencesRE finds specdiff.Text's hint for the sentences left out of an
// item.
var moreSentencesRE = regexp.MustCompile(`\((\d+) more: pass section_id (\S+)\)`)

// diffCommand is the command that prints this diff again, with the
// versions it compared named, so that a hint run as printed shows the
// same versions (not the two newest).
func diffCommand(req specdiff.Request, ans specdiff.Answer) string {
	c := "langspec diff " + shellQuote(ans.Language)
	if req.Doc != "" {
		c += " --doc " + shellQuote(ans.Doc)
	}
	c += " --from " + shellQuote(ans.From.Version) + " --to " + shellQuote(ans.To.Version)
	if req.Query != "" {
		c += " --query " + shellQuote(req.Query)
	}
	return c
}

func classFlag(req specdiff.Request) string {
	if req.Class == "" {
		return ""
	}
	return " --class " + req.Class
}
