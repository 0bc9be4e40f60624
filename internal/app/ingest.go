package app

import (
	"context"
	"runtime/debug"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/rank"
)

// What the ingest and sources commands print and compare against.
type (
	// IngestReport is what an ingest did.
	IngestReport = ingest.Report
)

// AtFolder is the kind of a local copy among a source's places
// (SourceStatus.ReadFrom).
const AtFolder = ingest.AtFolder

// BuiltIn says whether a source or a stored version's source_url is the
// copy built into langspec.
func BuiltIn(source string) bool { return ingest.BuiltIn(source) }

// SourceLabel is a stored source_url as people read it: "built in" for
// the copy compiled into langspec, else the URL or file.
func SourceLabel(sourceURL string) string { return ingest.SourceLabel(sourceURL) }

// IsPrerelease says whether a version is a nightly, beta or release
// candidate: searched only when named, unless made the default.
func IsPrerelease(version string) bool { return db.IsPrerelease(version) }

// env is Options.Env, or the local toolchains as they are.
func (o Options) env(ctx context.Context) ingest.Env {
	if o.Env == nil {
		return ingest.DetectEnv(ctx)
	}
	return o.Env(ctx)
}

// UserAgent names langspec, its version and where to find it, in every
// request an ingest makes.
func (o Options) userAgent() string {
	v := o.Version
	if v == "" {
		v = "dev"
	}
	return "langspec/" + v + " (+https://github.com/langspec/langspec)"
}

// IngestRequest is `langspec ingest` (and the page's ingest): a source to
// read and store.
type IngestRequest struct {
	Language, Doc string
	From          string // a file, folder or URL; "": local copies first, then the network
	Version       string // the version to store it as; "": the one it states
	Toolchain     string // rust: the rustup toolchain whose Reference to read (stable, nightly, 1.80.0)
	// MaxMemory is the memory the ingest may take (--max-memory): the Go
	// heap is kept under three quarters of it (limitMemory) and SQLite
	// gathers a big document's full-text index in a quarter, which it
	// takes twice over while the heap holds little (docs/performance.md).
	// 0 changes nothing of the process (the team server's page ingests
	// beside the requests it serves) and leaves SQLite its default.
	MaxMemory int64
	// MaxMemoryGiven says MaxMemory was asked for: then it wins over
	// GOMEMLIMIT.
	MaxMemoryGiven   bool
	Progress         func(page string, failed bool)
	SemanticProgress func(done, total int)
}

// IngestSource reads a built-in or declared source as req says, from the
// local toolchains and the network this app was given, and stores it as a
// new version unless its content is unchanged (Ingest). Errors: those of
// ingest.RustupToolchain and Ingest.
func (a *App) IngestSource(ctx context.Context, req IngestRequest) (IngestReport, error) {
	env := a.opts.env(ctx)
	if req.Toolchain != "" {
		dir, err := ingest.RustupToolchain(req.Toolchain)
		if err != nil {
			return IngestReport{}, err
		}
		env.RustupToolchain = dir
	}
	if req.MaxMemory > 0 {
		defer limitMemory(a.opts.getenv(), req.MaxMemory, req.MaxMemoryGiven)()
	}
	getter := a.opts.Getter
	if getter == nil {
		getter = NetworkGetter(a.opts.getenv(), a.opts.userAgent())
	}
	return a.Ingest(ctx, req.Language, req.Doc, ingest.Options{From: req.From, Version: req.Version, Env: env, Getter: getter,
		Now: a.opts.Now, IndexMemory: int(req.MaxMemory / 4), Progress: req.Progress, SemanticProgress: req.SemanticProgress})
}

// ingestGCPercent is the collector's GOGC during an ingest, unless GOGC is
// set: the heap grows to 1.5 times what is live, not twice, so a small
// document's peak stays small (an 80 MB document peaks at 210 MB, as under
// the 160 MiB limit that was the default before --max-memory).
const ingestGCPercent = 50

// limitMemory keeps the Go heap under three quarters of memory, the rest
// being SQLite's and the runtime's own; GOMEMLIMIT and GOGC, when set, win
// over the default (not over a memory given on the command line). The
// limit is soft: a document whose sections' ids, titles and paths alone
// outgrow it still ingests, with the collector running more often. restore
// puts back the settings before, for a caller that goes on after the
// ingest (tests run the command in process).
func limitMemory(getenv func(string) string, memory int64, given bool) (restore func()) {
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(percent) // SetGCPercent(-1) turned the collector off to read it
	if given || getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memory / 4 * 3)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(ingestGCPercent)
	}
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

// NearestName is the one of names nearest to name, for a "did you mean"
// (a flag or a command mistyped), or "" when none is near enough.
func NearestName(name string, names []string) string {
	cands := make([]rank.Name, len(names))
	for i, n := range names {
		cands[i] = rank.Name{ID: n, Title: n, Label: n}
	}
	if near := rank.Nearest(cands, name, 1); len(near) > 0 {
		return near[0]
	}
	return ""
}
