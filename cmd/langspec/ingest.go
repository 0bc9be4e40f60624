package main

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
)

type ingestOptions struct {
	io        *ioStreams
	app       func() (*app.App, error)
	language  string
	doc       string
	from      string // file, folder or URL; "" tries local copies, then the network
	version   string // --version-label: the version to store it as
	toolchain string // --toolchain: the rustup toolchain whose Reference to read
	jsonOut   bool
	keep      int  // after a successful ingest, keep this many versions per doc; 0 keeps all
	isDefault bool // --default: search this version when none is named, pre-release or not
	// maxMemory is --max-memory as given; memory is it in bytes, and
	// memorySet says the flag was given (it then overrides GOMEMLIMIT).
	maxMemory string
	memory    int64
	memorySet bool
}

func newCmdIngest(f *factory) *cobra.Command {
	opts := &ingestOptions{io: f.io, app: f.plainApp}
	cmd := &cobra.Command{
		Use:   "ingest LANGUAGE [--from PATH|URL]",
		Short: "Read a specification into the database",
		Long: `Ingest reads a specification, splits it into sections and stores it as a
version: --version-label's, else the one the document states, else the
toolchain's. A document that states none is refused, naming --version-label
(an old Go spec says "Version of Aug 2, 2023", not go1.21), except a living
handbook (Markdown pages), which is stored under today's date, and says so.
Ingesting the same content again changes nothing. A version with pages that
could not be read is stored as incomplete and never searched by default: the
previous complete version stays current.

With no --from, local copies come first (go: $(go env GOROOT)/doc/go_spec.html;
rust: the Reference rustup installs with each toolchain; python: Debian's
python3-doc), then the network. 'langspec sources' lists every source and
where it would be read from. For python, --from may name a whole Sphinx build
(/usr/share/doc/python3/html) or its index.html: its reference/ is read.`,
		Example: `  langspec ingest go
  langspec ingest rust
  langspec ingest go --from ./go_spec.html
  langspec ingest rust --toolchain nightly
  langspec ingest go --from ~/sdk/go1.21.0/doc/go_spec.html
  langspec ingest python --from /usr/share/doc/python3/html
  langspec ingest java --from https://docs.oracle.com/javase/specs/jls/se21/html/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErrorf("ingest takes LANGUAGE and an optional PATH or URL (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.language = args[0]
			if len(args) == 2 { // the older form: ingest go PATH
				if opts.from != "" {
					return usageErrorf("give the source once: either PATH or --from")
				}
				opts.from = args[1]
			}
			if opts.toolchain != "" && (opts.language != "rust" || opts.from != "") {
				return usageErrorf("--toolchain reads rustup's Rust Reference: give it with rust and without --from")
			}
			var err error
			if opts.memory, err = parseMemory(opts.maxMemory); err != nil {
				return err
			}
			opts.memorySet = cmd.Flags().Changed("max-memory")
			if cmd.Flags().Changed("version-label") && !versionLabel.MatchString(opts.version) {
				return usageErrorf("--version-label %q: use 1 to 64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit (go1.21, 1.80.0)", opts.version)
			}
			return runIngest(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.doc, "doc", "", "document, when the language has several")
	fl.StringVar(&opts.from, "from", "", `read from this file, folder or URL ("embedded" for the built-in copy)`)
	fl.StringVar(&opts.toolchain, "toolchain", "", "rust: read the Reference of this rustup toolchain (stable, nightly, 1.80.0), versioned as it is")
	fl.StringVar(&opts.version, "version-label", "", "store it as this version, for a copy that does not state its own (an older toolchain's docs)")
	fl.BoolVar(&opts.jsonOut, "json", false, "print the report as JSON")
	fl.IntVar(&opts.keep, "keep", 0, "afterwards keep only the newest N versions of the document (0: keep all)")
	fl.BoolVar(&opts.isDefault, "default", false, "search this version when none is named, even a pre-release (a nightly is never the default unasked)")
	fl.StringVar(&opts.maxMemory, "max-memory", defaultIngestMemory,
		"the memory the ingest may take, such as 512MiB or 2GiB: the heap is kept under three quarters of it, SQLite gathers a big document's index in a quarter, and its texts and postings wait in files beside the database")
	cmd.AddCommand(newCmdIngestManuals(f))
	return cmd
}

// versionLabel is what --version-label may be: a version as documents
// state them, safe in a URL and a resource URI.
var versionLabel = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$`)

// defaultIngestMemory is --max-memory's default: what a laptop can spare
// beside everything else it runs. A document of a million sections (1.6 GB
// of text) peaked at 825 MiB under it (docs/performance.md); smaller ones
// take far less, since the heap only grows to half again what is live
// (GOGC 50).
const defaultIngestMemory = "1GiB"

// minIngestMemory is the least --max-memory accepted: below it the collector
// would run without pause on a document of any size.
const minIngestMemory = 64 << 20

// parseMemory reads a --max-memory size: bytes with a unit, decimal (MB,
// GB) or binary (MiB, GiB).
func parseMemory(s string) (int64, error) {
	n, err := humanize.ParseBytes(s)
	if err != nil || n < minIngestMemory || n > math.MaxInt64 {
		return 0, usageErrorf("--max-memory %q: give a size of at least 64MiB, with its unit, such as 512MiB, 1GiB or 2GB", s)
	}
	return int64(n), nil
}

func runIngest(ctx context.Context, opts *ingestOptions) error {
	a, err := opts.app()
	if err != nil {
		return err
	}
	defer a.Close()
	io := opts.io
	req := app.IngestRequest{
		Language:  opts.language,
		Doc:       opts.doc,
		From:      opts.from,
		Version:   opts.version,
		Toolchain: opts.toolchain,
		MaxMemory: opts.memory, MaxMemoryGiven: opts.memorySet,
	}
	var bar *progressbar.ProgressBar
	if io.errTTY && !opts.jsonOut {
		bar = progressbar.NewOptions(-1,
			progressbar.OptionSetWriter(io.ErrOut),
			progressbar.OptionSetDescription("reading "+opts.language+"/"+cmp.Or(opts.doc, "…")),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetRenderBlankState(true))
		req.Progress = func(string, bool) { bar.Add(1) }
		var ebar *progressbar.ProgressBar
		req.SemanticProgress = func(done, total int) {
			if ebar == nil {
				bar.Finish()
				ebar = progressbar.NewOptions(total, progressbar.OptionSetWriter(io.ErrOut),
					progressbar.OptionSetDescription("embedding"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
			}
			ebar.Set(done)
			if done == total {
				ebar.Finish()
			}
		}
	}
	rep, err := a.IngestSource(ctx, req)
	if bar != nil {
		bar.Finish() // clears the line before the summary is printed
	}
	if err != nil {
		return err
	}
	if opts.jsonOut {
		if err := writeJSON(io.Out, rep); err != nil {
			return err
		}
	} else {
		printReport(io, rep)
	}
	if opts.isDefault && len(rep.Failed) == 0 {
		if err := a.SetDefaultVersion(ctx, rep.Language, rep.Doc, rep.Version); err != nil {
			return err
		}
		fmt.Fprintf(io.ErrOut, "langspec: %s/%s %s is now searched when no version is named\n", rep.Language, rep.Doc, rep.Version)
	} else if app.IsPrerelease(rep.Version) && len(rep.Failed) == 0 {
		fmt.Fprintf(io.ErrOut, "langspec: %s is a pre-release: searched when named (--version %s); the newest release stays the default unless you ingest with --default\n", rep.Version, rep.Version)
	}
	if opts.keep > 0 && len(rep.Failed) == 0 {
		removed, err := a.Prune(ctx, rep.Language, rep.Doc, opts.keep)
		if err != nil {
			return err
		}
		printPruned(io, removed, opts.jsonOut)
	}
	if len(rep.Failed) > 0 {
		return apperr.New(apperr.Unavailable, "run the ingest again later; pages already fetched come from the cache",
			"%d pages of %s/%s could not be read; the version is stored as incomplete and the previous complete one stays current",
			len(rep.Failed), rep.Language, rep.Doc)
	}
	return nil
}

// readFrom names where an ingest read from, for its report line.
func readFrom(source string) string {
	if app.BuiltIn(source) {
		return "the copy built into langspec"
	}
	return source
}

func printReport(io *ioStreams, rep app.IngestReport) {
	out := io.Out
	s, p := rep.Sections, rep.Pages
	fmt.Fprintf(out, "%s/%s %s: %s, %d sections (%d added, %d changed, %d unchanged, %d removed)\n",
		rep.Language, rep.Doc, rep.Version, rep.Status, s.Added+s.Changed+s.Unchanged, s.Added, s.Changed, s.Unchanged, s.Removed)
	fmt.Fprintf(out, "pages: %d read, %d fetched, %d cached, %d failed; %s; from %s\n",
		p.Read, p.Fetched, p.Cached, p.Failed, rep.Elapsed.Round(time.Millisecond), readFrom(rep.Source))
	if rep.Status == app.StatusKeptIncomplete {
		fmt.Fprintln(out, "incomplete: not searched by default; the previous complete version stays current")
	}
	if sr := rep.Semantic; sr != nil {
		if sr.Off != "" {
			fmt.Fprintf(out, "semantic channel: off (%s); the lexical channels answer as before\n", sr.Off)
		} else {
			fmt.Fprintf(out, "semantic channel: %d sections embedded with %s, %d already stored\n", sr.Embedded, sr.Model, sr.Cached)
		}
	}
	for _, fp := range rep.Failed {
		fmt.Fprintf(io.ErrOut, "langspec: failed page %s: %s\n", fp.Page, fp.Error)
	}
	for _, n := range rep.Notices {
		fmt.Fprintf(io.ErrOut, "langspec: %s\n", n)
	}
}
