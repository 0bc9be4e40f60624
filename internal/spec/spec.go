// Package spec is the specification use cases as every front end runs
// them: search, compare, section, plan, diff, since, versions and
// languages. The command line (through internal/app), the MCP tools, the
// management page and the resources each call the same method here, so a
// request gets one set of defaults — the semantic channel when one is
// configured, the context notes in force, the stems a server keeps, names
// trimmed — and a mistake one error with one hint (ingest.Known.NotStored:
// the ingest that adds a language, the local copy it would read, "did you
// mean rust"). The work itself stays in the domain packages (search, plan,
// specdiff); what is here is only what every caller used to add on its own.
package spec

import (
	"context"
	"log/slog"
	"strings"

	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/ingest"
	"github.com/langspec/langspec/internal/plan"
	"github.com/langspec/langspec/internal/search"
	"github.com/langspec/langspec/internal/specdiff"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// Options are the parts the use cases share.
type Options struct {
	Store *db.DB
	// Semantic is the semantic channel, added to every search and
	// comparison that is not Lexical; nil: none is configured.
	Semantic search.Semantic
	// Notes are the user's context notes; nil: none.
	Notes *contextnote.Source
	// Known names the next step for a language with nothing stored.
	Known ingest.Known
	Log   *slog.Logger // nil discards
}

// Service is the use cases over one store. Safe for concurrent use: a
// server's calls share one.
type Service struct {
	o Options
	// stems keeps the stems of the words highlighted in hits from one
	// search to the next (search.Request.Stems).
	stems *tokenize.Stems
}

// New returns the use cases over o.Store.
func New(o Options) *Service {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{o: o, stems: &tokenize.Stems{}}
}

// Store is the index the use cases read.
func (s *Service) Store() *db.DB { return s.o.Store }

// Semantic is the configured semantic channel; nil when there is none.
func (s *Service) Semantic() search.Semantic { return s.o.Semantic }

// notes are the context notes in force now; unreadable ones are logged and
// left out (contextnote.Source.Current).
func (s *Service) notes() *contextnote.Set { return s.o.Notes.Current(s.o.Log) }

// notStored gives a language with nothing stored its one hint.
func (s *Service) notStored(ctx context.Context, err error, language string) error {
	return s.o.Known.NotStored(ctx, err, language)
}

// Search ranks sections (search.Search). Defaults: the semantic channel
// unless req.Lexical, the notes in force, the kept stems. Errors: those of
// search.Search, a language with nothing stored with its next step.
func (s *Service) Search(ctx context.Context, req search.Request) (search.Result, error) {
	req.Language, req.Doc, req.Version = trim(req.Language), trim(req.Doc), trim(req.Version)
	if req.Semantic == nil && !req.Lexical {
		req.Semantic = s.o.Semantic
	}
	if req.Stems == nil {
		req.Stems = s.stems
	}
	if req.Notes == nil {
		req.Notes = s.notes()
	}
	res, err := search.Search(ctx, s.o.Store, req)
	return res, s.notStored(ctx, err, req.Language)
}

// Compare answers one concept in each language's documents
// (search.Compare), with Search's defaults.
func (s *Service) Compare(ctx context.Context, req search.CompareRequest) (search.CompareResult, error) {
	if req.Semantic == nil && !req.Lexical {
		req.Semantic = s.o.Semantic
	}
	if req.Stems == nil {
		req.Stems = s.stems
	}
	if req.Notes == nil {
		req.Notes = s.notes()
	}
	return search.Compare(ctx, s.o.Store, req)
}

// Section reads one section, or a page of it (search.Section), with the
// notes on its document.
func (s *Service) Section(ctx context.Context, req search.SectionRequest) (search.SectionResult, error) {
	req.Language, req.Doc, req.Version = trim(req.Language), trim(req.Doc), trim(req.Version)
	if req.Notes == nil {
		req.Notes = s.notes()
	}
	res, err := search.Section(ctx, s.o.Store, req)
	return res, s.notStored(ctx, err, req.Language)
}

// Plan builds a reading plan (plan.Build).
func (s *Service) Plan(ctx context.Context, req plan.Request) (plan.Plan, error) {
	req.Language, req.Doc, req.Version = trim(req.Language), trim(req.Doc), trim(req.Version)
	p, err := plan.Build(ctx, s.o.Store, req)
	return p, s.notStored(ctx, err, req.Language)
}

// Diff is what changed between two stored versions (specdiff.Run), with
// the notes on the document.
func (s *Service) Diff(ctx context.Context, req specdiff.Request) (specdiff.Answer, error) {
	req.Language = trim(req.Language)
	if req.Notes == nil {
		req.Notes = s.notes()
	}
	ans, err := specdiff.Run(ctx, s.o.Store, req)
	return ans, s.notStored(ctx, err, req.Language)
}

// Since dates a section's rules over every stored version
// (specdiff.Since), with the notes on the document.
func (s *Service) Since(ctx context.Context, req specdiff.SinceRequest) (specdiff.SinceAnswer, error) {
	req.Language = trim(req.Language)
	if req.Notes == nil {
		req.Notes = s.notes()
	}
	ans, err := specdiff.Since(ctx, s.o.Store, req)
	return ans, s.notStored(ctx, err, req.Language)
}

// Versions lists the stored versions of a language ("" for every one),
// each document's newest first.
func (s *Service) Versions(ctx context.Context, language string) ([]db.VersionInfo, error) {
	language = trim(language)
	vs, err := s.o.Store.Versions(ctx, language)
	return vs, s.notStored(ctx, err, language)
}

// Languages lists what can be searched (search.Languages).
func (s *Service) Languages(ctx context.Context) ([]search.Language, error) {
	return search.Languages(ctx, s.o.Store)
}

// LanguageIDs are the ids of the stored languages, sorted.
func (s *Service) LanguageIDs(ctx context.Context) ([]string, error) {
	return search.LanguageIDs(ctx, s.o.Store)
}

// trim drops the spaces around a name a person or a model typed.
func trim(s string) string { return strings.TrimSpace(s) }
