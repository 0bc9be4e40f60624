package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/ingest/fetch"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/plan"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/semantic"
	"github.com/langspec/langspec/internal/spec"
	"github.com/langspec/langspec/internal/specdiff"
)

// The commands print these as they are; the aliases keep the commands
// away from the store's and the index's packages.
type (
	// Version is one stored version of a document.
	Version = db.VersionInfo
	// ManualsReport is what indexing one manual did.
	ManualsReport = find.RefreshReport
)

// Store states the commands print.
const (
	// StatusKeptIncomplete: the version was stored incomplete and the
	// previous complete one stays current.
	StatusKeptIncomplete = db.KeptIncomplete
	// PolicyExcerptOnly: only an excerpt of the document may be returned.
	PolicyExcerptOnly = db.ExcerptOnly
)

// Spec is the specification use cases over the seeded store, made once:
// the same internal/spec the tools and the page call, with the semantic
// channel when langspec.json configures one, the context notes, and the
// configured sources and local toolchains for the not-stored hint.
func (a *App) Spec(ctx context.Context) (*spec.Service, error) {
	if a.spec != nil {
		return a.spec, nil
	}
	store, err := a.seeded(ctx)
	if err != nil {
		return nil, err
	}
	a.spec = spec.New(spec.Options{Store: store, Semantic: a.Semantic(), Notes: a.opts.Notes, Log: a.log,
		Known: ingest.Known{Sources: a.opts.Config.Sources, Env: a.opts.env}})
	return a.spec, nil
}

// Search is `langspec search`: spec.Service.Search, search_spec's call.
func (a *App) Search(ctx context.Context, req search.Request) (search.Result, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return search.Result{}, err
	}
	return svc.Search(ctx, req)
}

// Compare is `langspec compare`: spec.Service.Compare, the compare tool's.
func (a *App) Compare(ctx context.Context, req search.CompareRequest) (search.CompareResult, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return search.CompareResult{}, err
	}
	return svc.Compare(ctx, req)
}

// Diff is `langspec diff`: spec.Service.Diff, spec_diff's.
func (a *App) Diff(ctx context.Context, req specdiff.Request) (specdiff.Answer, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return specdiff.Answer{}, err
	}
	return svc.Diff(ctx, req)
}

// Since is `langspec since`: spec.Service.Since, spec_diff's since mode.
func (a *App) Since(ctx context.Context, req specdiff.SinceRequest) (specdiff.SinceAnswer, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return specdiff.SinceAnswer{}, err
	}
	return svc.Since(ctx, req)
}

// SetDefaultVersion makes version the one a document is searched at when
// none is named (db.DB.SetDefaultVersion).
func (a *App) SetDefaultVersion(ctx context.Context, language, doc, version string) error {
	store, err := a.Store(ctx)
	if err != nil {
		return err
	}
	return store.SetDefaultVersion(ctx, language, doc, version)
}

// IndexedRoots are the manuals folders the store holds manuals of, with
// their manual ids.
func (a *App) IndexedRoots(ctx context.Context) ([]db.IndexedRoot, error) {
	store, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return store.IndexedRoots(ctx)
}

// IndexedManuals are the ids of the manuals the store has an index of
// (ingest manuals, or a server's refresh), of every manuals folder, each
// once, sorted; none when it has none.
func (a *App) IndexedManuals(ctx context.Context) ([]string, error) {
	store, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	roots, err := store.IndexedRoots(ctx)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range roots {
		ids = append(ids, r.Manuals...)
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// Section is `langspec section`: spec.Service.Section, get_section's.
func (a *App) Section(ctx context.Context, req search.SectionRequest) (search.SectionResult, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return search.SectionResult{}, err
	}
	return svc.Section(ctx, req)
}

// Plan is `langspec plan`: spec.Service.Plan, build_learning_plan's.
func (a *App) Plan(ctx context.Context, req plan.Request) (plan.Plan, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return plan.Plan{}, err
	}
	return svc.Plan(ctx, req)
}

// Versions is `langspec versions`: spec.Service.Versions, list_versions'.
func (a *App) Versions(ctx context.Context, language string) ([]Version, error) {
	svc, err := a.Spec(ctx)
	if err != nil {
		return nil, err
	}
	return svc.Versions(ctx, language)
}

// Prune keeps the newest keep versions of a language's documents (one
// document when doc is set) and returns those it removed.
func (a *App) Prune(ctx context.Context, language, doc string, keep int) ([]Version, error) {
	store, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return store.Prune(ctx, db.Scope{Language: language, Doc: doc}, keep)
}

// Ingest reads one source — a built-in one or one the configuration
// declares — and stores it as a new version unless its content is
// unchanged. Errors: those of ingest.Resolve and ingest.Ingest.
func (a *App) Ingest(ctx context.Context, language, doc string, opts ingest.Options) (ingest.Report, error) {
	src, err := ingest.Resolve(a.opts.Config.Sources, language, doc)
	if err != nil {
		return ingest.Report{}, err
	}
	store, err := a.Store(ctx)
	if err != nil {
		return ingest.Report{}, err
	}
	if opts.SpillDir == "" {
		// A big document's texts wait beside the database it goes into.
		opts.SpillDir = filepath.Dir(a.opts.DBPath)
	}
	rep, err := ingest.Ingest(ctx, store, src, opts)
	if err != nil || a.opts.Config.Embeddings == nil || rep.Version == "" {
		return rep, err
	}
	rep.Semantic = a.embed(ctx, store, rep, opts.SemanticProgress)
	return rep, nil
}

// embed brings the vectors of the ingested version up to date. The
// endpoint's failure is not the ingest's: the report says the semantic
// channel is off, and why.
func (a *App) embed(ctx context.Context, store *db.DB, rep ingest.Report, progress func(done, total int)) *ingest.SemanticReport {
	c, err := a.Embedder()
	sr := &ingest.SemanticReport{}
	if err != nil {
		sr.Off = err.Error()
		return sr
	}
	sr.Model = c.Model()
	er, err := semantic.EmbedSnapshot(ctx, store, c, rep.Language, rep.Doc, rep.Version, progress)
	sr.Sections, sr.Embedded, sr.Cached = er.Sections, er.Embedded, er.Cached
	if err != nil {
		sr.Off = err.Error()
		a.log.Warn("semantic channel off: the embeddings endpoint failed", "err", err)
	}
	return sr
}

// Embedder is the client of the configured embeddings endpoint, its
// api_key's ${VAR} read from the environment. Errors: invalid_argument
// when nothing is configured or the variable is not set.
func (a *App) Embedder() (*semantic.Client, error) {
	e := a.opts.Config.Embeddings
	if e == nil {
		return nil, apperr.New(apperr.InvalidArgument, "add \"embeddings\" to langspec.json", "no embeddings endpoint is configured")
	}
	key := e.APIKey
	if v, ok := strings.CutPrefix(key, "${"); ok && strings.HasSuffix(v, "}") {
		name := strings.TrimSuffix(v, "}")
		getenv := a.opts.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		if key = getenv(name); key == "" {
			return nil, apperr.New(apperr.InvalidArgument, "export "+name, "embeddings.api_key names %s, which is not set", name)
		}
	}
	return semantic.New(semantic.Options{URL: e.URL, Model: e.Model, APIKey: key, Dimensions: e.Dimensions, Batch: e.Batch}), nil
}

// SourceStatus is a source as the sources command shows it.
type SourceStatus struct {
	ingest.SourceSpec
	ReadFrom []ingest.Location `json:"read_from"` // in the order ingest would try them
	Stored   string            `json:"stored"`    // latest stored version, "" when none
}

// Sources lists every source that can be ingested (built-in and declared),
// where it would be read from on this machine, and the version stored.
func (a *App) Sources(ctx context.Context) ([]SourceStatus, error) {
	env := a.opts.env(ctx)
	store, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	vs, err := store.Versions(ctx, "")
	if err != nil {
		return nil, err
	}
	var rows []SourceStatus
	for _, src := range ingest.Merge(ingest.Presets(), a.opts.Config.Sources) {
		row := SourceStatus{SourceSpec: src}
		row.ReadFrom, _ = ingest.Candidates(src, "", env) // none found is shown as such
		for _, v := range vs {
			if v.Language == src.Language && v.Doc == src.Doc && v.Default {
				row.Stored = v.Version
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// seeded is SeededStore without the report (Options.Seeding is told
// before a load).
func (a *App) seeded(ctx context.Context) (*db.DB, error) {
	store, _, err := a.SeededStore(ctx)
	return store, err
}

// NetworkGetter is the fetcher ingest uses, with its HTTP cache under
// $XDG_CACHE_HOME/langspec/http (~/.cache when unset); no cache without a
// home directory.
func NetworkGetter(getenv func(string) string, userAgent string) ingest.Getter {
	dir := getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(dir) {
		if home := getenv("HOME"); home != "" {
			dir = filepath.Join(home, ".cache")
		} else {
			dir = ""
		}
	}
	cacheDir := ""
	if dir != "" {
		cacheDir = filepath.Join(dir, "langspec", "http")
	}
	return ingest.FetchGetter{Client: fetch.New(fetch.Options{CacheDir: cacheDir, UserAgent: userAgent})}
}
