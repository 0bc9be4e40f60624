package find

import (
	"context"
	"fmt"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/contextnote"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
)

// Hits kinds.
const (
	KindCandidates = "candidates"
	KindUnscanned  = "unscanned"
)

// Page bounds of Hits.
const (
	DefaultHitsLimit = 20
	MaxHitsLimit     = 100
)

// HitsRequest pages through a trace.
type HitsRequest struct {
	TraceID string
	Kind    string // candidates (default) or unscanned
	Offset  int
	Limit   int // 0: DefaultHitsLimit
}

// HitsPage is one page of a trace.
type HitsPage struct {
	TraceID    string                `json:"trace_id" jsonschema:"the trace paged"`
	Query      string                `json:"query" jsonschema:"the query of the trace"`
	Kind       string                `json:"kind" jsonschema:"candidates or unscanned"`
	Total      int                   `json:"total" jsonschema:"items of this kind in the trace"`
	Offset     int                   `json:"offset" jsonschema:"index of the first item of this page"`
	NextOffset int                   `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last page"`
	Candidates []Candidate           `json:"candidates,omitempty" jsonschema:"candidates, best first"`
	Unscanned  []Unscanned           `json:"unscanned,omitempty" jsonschema:"sections not searched, with the reason"`
	Context    []contextnote.Covered `json:"context,omitempty" jsonschema:"the user's notes on the page's manuals, folders and files, each once, with the candidates it covers (1 = first of this page)"`
}

// Hits returns a page of a trace's candidates or unscanned sections.
// Errors: invalid_argument for a bad kind, offset or limit; not_found for an
// unknown or expired trace.
func (f *Finder) Hits(ctx context.Context, req HitsRequest) (HitsPage, error) {
	if req.Kind == "" {
		req.Kind = KindCandidates
	}
	if req.Kind != KindCandidates && req.Kind != KindUnscanned {
		return HitsPage{}, apperr.New(apperr.InvalidArgument, "kind is candidates or unscanned", "unknown kind %q", req.Kind)
	}
	if req.Limit == 0 {
		req.Limit = DefaultHitsLimit
	}
	if req.Limit < 1 || req.Limit > MaxHitsLimit {
		return HitsPage{}, apperr.New(apperr.InvalidArgument, fmt.Sprintf("limit is 1 to %d (default %d)", MaxHitsLimit, DefaultHitsLimit), "limit %d is out of range", req.Limit)
	}
	tr, err := f.loadTrace(ctx, req.TraceID)
	if err != nil {
		return HitsPage{}, err
	}
	total := len(tr.Candidates)
	if req.Kind == KindUnscanned {
		total = len(tr.Unscanned)
	}
	if req.Offset < 0 || req.Offset > total {
		return HitsPage{}, apperr.New(apperr.InvalidArgument, fmt.Sprintf("offset is 0 to %d", total), "offset %d is past the %d %s", req.Offset, total, req.Kind)
	}
	end := min(req.Offset+req.Limit, total)
	page := HitsPage{TraceID: req.TraceID, Query: tr.Query, Kind: req.Kind, Total: total, Offset: req.Offset}
	if end < total {
		page.NextOffset = end
	}
	if req.Kind == KindCandidates {
		page.Candidates = tr.Candidates[req.Offset:end]
		targets := make([]contextnote.Target, len(page.Candidates))
		for i, c := range page.Candidates {
			targets[i] = contextnote.Target{Manual: c.ManualID, Path: c.Path}
		}
		page.Context = f.NoteSet().Cover(targets)
	} else {
		page.Unscanned = tr.Unscanned[req.Offset:end]
	}
	return page, nil
}

// TraceTerms returns a trace's query terms with the variants and synonyms
// it searched, for snippets of the sections it found.
func (f *Finder) TraceTerms(ctx context.Context, traceID string) ([]string, error) {
	tr, err := f.loadTrace(ctx, traceID)
	if err != nil {
		return nil, err
	}
	out := append([]string(nil), tr.Terms...)
	for _, t := range tr.Terms {
		out = append(out, tr.Expansions[t]...)
	}
	return out, nil
}

// RecordUse notes that a section of a trace was read or copied: the recall
// proxy of the adaptive thresholds counts it. A missing Stats records nothing.
func (f *Finder) RecordUse(traceID, manualID, path, nodeID string) {
	if f.Stats == nil || traceID == "" {
		return
	}
	if err := f.Stats.RecordUse(statsKey(traceID), adaptive.Ref(manualID, path, nodeID)); err != nil {
		f.log().Warn("adaptive stats not recorded", "err", err)
	}
}
