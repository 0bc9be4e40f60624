package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/manual/find/queryplan"
)

// ManualFindBudget bounds one manual_find.
type ManualFindBudget struct {
	TimeMS        int `json:"time_ms,omitempty" jsonschema:"most milliseconds to spend; sections left are reported unscanned"`
	MaxCandidates int `json:"max_candidates,omitempty" jsonschema:"most candidates to keep, best first; the rest are reported unscanned"`
}

// ManualFindIn is a thorough search request.
type ManualFindIn struct {
	Query                    string            `json:"query,omitempty" jsonschema:"what to collect, in the user's words; required unless only_unscanned_from_trace_id"`
	Also                     []string          `json:"also,omitempty" jsonschema:"up to 4 rephrasings in the manual's words, searched too and fused with query"`
	ManualID                 string            `json:"manual_id,omitempty" jsonschema:"manual id from manual_list; omit to search every manual"`
	Intent                   string            `json:"intent,omitempty" jsonschema:"override the intent read from the query"`
	Budget                   *ManualFindBudget `json:"budget,omitempty" jsonschema:"time and candidate limits"`
	OnlyUnscannedFromTraceID string            `json:"only_unscanned_from_trace_id,omitempty" jsonschema:"search only what that trace left unscanned (its query unless query is given)"`
}

// ManualHitsIn pages a trace.
type ManualHitsIn struct {
	TraceID string `json:"trace_id" jsonschema:"trace_id from manual_find"`
	Kind    string `json:"kind,omitempty" jsonschema:"candidates (default) or unscanned"`
	Offset  int    `json:"offset,omitempty" jsonschema:"index of the first item; next_offset of the previous page"`
	Limit   int    `json:"limit,omitempty" jsonschema:"items per page"`
	Verbose bool   `json:"verbose,omitempty" jsonschema:"put the snippets in the structured result too"`
}

// ManualHitsOut is manual_hits' answer: a page of the trace. Each
// candidate's snippet is in the text content, which clients show the model;
// the structured copy, which programs read for node ids and lines, has the
// snippets only with verbose — they were a third of a page, twice.
type ManualHitsOut struct {
	find.HitsPage
	snippets []string // by candidate, for the text content
}

// findTools serves manual_find and manual_hits over one Finder.
type findTools struct {
	finder *find.Finder
}

func findToolset() []Tool {
	intents := []any{}
	for _, in := range []queryplan.Intent{queryplan.IntentDefinition, queryplan.IntentProcedure, queryplan.IntentExceptions, queryplan.IntentCompare, queryplan.IntentLookup} {
		intents = append(intents, string(in))
	}
	return needing(func(d *Deps) bool { return d.Manuals != nil && d.Finder != nil }, []Tool{
		newTool(CategoryManual, bindFind, mcp.Tool{
			Name: "manual_find", Title: "Collect everything about a topic in the manuals",
			Description: "Collect everything about a topic in the manuals, built not to miss: normalised and separator-free matching, synonyms, exception wording (対象外, ただし…), headings with subsections, a widening pass. Add the manual's own terms in also (query \"can I cancel midway\", also [\"中途解約\"]). Returns a trace_id and next_actions: page with manual_hits, read with manual_read.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			maxLen(s, "query", 1000)
			maxLen(s, "manual_id", maxNameChars)
			maxLen(s, "only_unscanned_from_trace_id", 64)
			s.Properties["also"].MaxItems = jsonschema.Ptr(find.MaxAlso)
			s.Properties["also"].Items.MaxLength = jsonschema.Ptr(1000)
			s.Properties["intent"].Enum = intents
			b := s.Properties["budget"]
			intRange(b, "time_ms", 1, find.MaxTimeMS, find.DefaultTimeMS)
			intRange(b, "max_candidates", 1, find.MaxMaxCandidates, find.DefaultMaxCandidates)
		}, (*findTools).find, renderFind),
		newTool(CategoryManual, bindFind, mcp.Tool{
			Name: "manual_hits", Title: "Page through a manual_find trace",
			Description: "Page through a manual_find trace's candidates (best first: node_id, lines, a snippet) or unscanned sections (with reasons). Traces expire after 24 hours.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "trace_id", 64)
			s.Properties["kind"].Enum = []any{find.KindCandidates, find.KindUnscanned}
			intRange(s, "offset", 0, find.MaxMaxCandidates*10, 0)
			intRange(s, "limit", 1, find.MaxHitsLimit, find.DefaultHitsLimit)
		}, (*findTools).hits, renderHits),
	})
}

// bindFind binds the manual tools to their dependencies.
func bindFind(d *Deps) *findTools { return &findTools{finder: d.Finder} }

func (ft *findTools) find(ctx context.Context, in ManualFindIn) (find.Summary, error) {
	req := find.Request{ManualID: in.ManualID, Query: in.Query, Also: in.Also, Intent: in.Intent, OnlyUnscannedFromTraceID: in.OnlyUnscannedFromTraceID}
	if in.Budget != nil {
		req.TimeMS, req.MaxCandidates = in.Budget.TimeMS, in.Budget.MaxCandidates
	}
	return ft.finder.Find(ctx, req)
}

func (ft *findTools) hits(ctx context.Context, in ManualHitsIn) (ManualHitsOut, error) {
	page, err := ft.finder.Hits(ctx, find.HitsRequest{TraceID: in.TraceID, Kind: in.Kind, Offset: in.Offset, Limit: in.Limit})
	if err != nil {
		return ManualHitsOut{}, err
	}
	out := ManualHitsOut{HitsPage: page, snippets: make([]string, len(page.Candidates))}
	if !in.Verbose {
		out.Candidates = slices.Clone(page.Candidates)
	}
	for i := range out.Candidates {
		out.snippets[i] = out.Candidates[i].Snippet
		if !in.Verbose {
			out.Candidates[i].Snippet = ""
		}
	}
	return out, nil
}

func renderFind(s find.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "trace_id %s: %d candidates in %d files (intent %s, terms %s); stages %s",
		s.TraceID, s.Candidates, s.Files, s.Intent, strings.Join(s.Terms, " | "), strings.Join(s.StagesRun, ", "))
	if s.Retries > 0 {
		fmt.Fprintf(&b, "; widened because %s", strings.Join(s.Stage4Reasons, "; "))
	}
	if s.CutoffReason != "" {
		fmt.Fprintf(&b, "; cut short: %s, %d sections unscanned", s.CutoffReason, s.Unscanned)
	}
	fmt.Fprintf(&b, "; est_tokens %d\n", s.EstTokens)
	for _, a := range s.NextActions {
		fmt.Fprintf(&b, "next: %s (%s) -> %s\n", a.Action, a.Reason, a.Tool)
	}
	return b.String()
}

func renderHits(out ManualHitsOut) string {
	p := out.HitsPage
	var b strings.Builder
	for i, c := range p.Candidates {
		fmt.Fprintf(&b, "%d. %s/%s#%s (lines %d-%d, score %.2f, %s) %s\n", p.Offset+i+1, c.ManualID, c.Path, c.NodeID,
			c.LineStart, c.LineEnd, c.Score, strings.Join(c.Stages, "+"), c.Title)
		if out.snippets[i] != "" {
			fmt.Fprintf(&b, "   line %d: %s\n", c.SnippetLine, out.snippets[i])
		}
	}
	for _, u := range p.Unscanned {
		fmt.Fprintf(&b, "%s/%s#%s: %s\n", u.ManualID, u.Path, u.NodeID, u.Reason)
	}
	if p.NextOffset > 0 {
		fmt.Fprintf(&b, "[%d of %d; next_offset %d]\n", p.NextOffset, p.Total, p.NextOffset)
	}
	if p.Total == 0 {
		fmt.Fprintf(&b, "No %s in trace %s.\n", p.Kind, p.TraceID)
	}
	return b.String()
}
