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
	Hits                     *int              `json:"hits,omitempty" jsonschema:"how many of the best candidates to show in the answer (default 5, 0 for none); manual_hits pages the rest"`
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

// ManualFindOut is manual_find's answer. The best hits' snippets are in
// the text content; the structured copy has their refs and lines, as
// manual_hits' has without verbose.
type ManualFindOut struct {
	find.Summary
	snippets []string // by hit, for the text content
}

// findTools serves manual_find and manual_hits: find.Service's calls,
// `langspec manual find`'s too.
type findTools struct {
	svc *find.Service
}

func findToolset() []Tool {
	intents := []any{}
	for _, in := range []queryplan.Intent{queryplan.IntentDefinition, queryplan.IntentProcedure, queryplan.IntentExceptions, queryplan.IntentCompare, queryplan.IntentLookup} {
		intents = append(intents, string(in))
	}
	return needing(func(d *Deps) bool { return d.Manuals != nil && d.Finder != nil }, []Tool{
		newTool(CategoryManual, bindFind, mcp.Tool{
			Name: "manual_find", Title: "Collect everything about a topic in the manuals",
			Description: "Collect everything about a topic in the manuals, built not to miss: normalised and separator-free matching, synonyms, exception wording, headings with subsections, a widening pass. Add the manual's own terms in also (query \"run only some tests\", also [\"--test-name-pattern\"]; \"can I cancel midway\", [\"中途解約\"]). Answers with the best hits (ref, title, lines, a snippet), a trace_id that manual_hits pages, and next_actions; read a hit with manual_read (pass its ref).",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			maxLen(s, "query", 1000)
			maxLen(s, "manual_id", maxNameChars)
			maxLen(s, "only_unscanned_from_trace_id", find.MaxTraceIDChars)
			s.Properties["also"].MaxItems = jsonschema.Ptr(find.MaxAlso)
			s.Properties["also"].Items.MaxLength = jsonschema.Ptr(1000)
			s.Properties["intent"].Enum = intents
			b := s.Properties["budget"]
			intRange(b, "time_ms", 1, find.MaxTimeMS, find.DefaultTimeMS)
			intRange(b, "max_candidates", 1, find.MaxMaxCandidates, find.DefaultMaxCandidates)
			s.Properties["hits"].Minimum, s.Properties["hits"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(find.MaxShownHits))
			s.Properties["hits"].Default = fmt.Appendf(nil, "%d", find.DefaultShownHits)
		}, (*findTools).find, renderFind),
		newTool(CategoryManual, bindFind, mcp.Tool{
			Name: "manual_hits", Title: "Page through a manual_find trace",
			Description: "Page through a manual_find trace's candidates (best first: node_id, lines, a snippet) or unscanned sections (with reasons). Traces expire after 24 hours.",
			Annotations: readOnly(),
		}, func(s *jsonschema.Schema) {
			nonEmpty(s, "trace_id", find.MaxTraceIDChars)
			s.Properties["kind"].Enum = []any{find.KindCandidates, find.KindUnscanned}
			intRange(s, "offset", 0, find.MaxMaxCandidates*10, 0)
			intRange(s, "limit", 1, find.MaxHitsLimit, find.DefaultHitsLimit)
		}, (*findTools).hits, renderHits),
	})
}

// bindFind binds manual_find and manual_hits to the manual use cases.
func bindFind(d *Deps) *findTools { return &findTools{svc: d.ManualService()} }

// findRequest is what manual_find asks the finder.
func findRequest(in ManualFindIn) find.Request {
	req := find.Request{ManualID: in.ManualID, Query: in.Query, Also: in.Also, Intent: in.Intent, OnlyUnscannedFromTraceID: in.OnlyUnscannedFromTraceID,
		Hits: find.DefaultShownHits}
	if in.Hits != nil {
		req.Hits = *in.Hits
	}
	if in.Budget != nil {
		req.TimeMS, req.MaxCandidates = in.Budget.TimeMS, in.Budget.MaxCandidates
	}
	return req
}

func (ft *findTools) find(ctx context.Context, in ManualFindIn) (ManualFindOut, error) {
	sum, err := ft.svc.Find(ctx, findRequest(in))
	if err != nil {
		return ManualFindOut{}, err
	}
	out := ManualFindOut{Summary: sum, snippets: make([]string, len(sum.Hits))}
	out.Hits = slices.Clone(sum.Hits)
	for i := range out.Hits {
		out.snippets[i], out.Hits[i].Snippet = out.Hits[i].Snippet, ""
	}
	return out, nil
}

func (ft *findTools) hits(ctx context.Context, in ManualHitsIn) (ManualHitsOut, error) {
	page, err := ft.svc.Hits(ctx, find.HitsRequest{TraceID: in.TraceID, Kind: in.Kind, Offset: in.Offset, Limit: in.Limit})
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

// renderFind is manual_find's text: the best hits first, each with what
// manual_read takes (its ref) and a line of its prose; then what else the
// trace holds and what to do next, in a line or two.
func renderFind(out ManualFindOut) string {
	s := out.Summary
	var b strings.Builder
	for _, c := range s.Corrections {
		fmt.Fprintf(&b, "(searched %q as %q too)\n", c.Word, c.To)
	}
	for i, c := range s.Hits {
		writeCandidate(&b, i+1, c, out.snippets[i])
	}
	more := s.Candidates - len(s.Hits)
	switch {
	case s.Candidates == 0:
		fmt.Fprintf(&b, "No section matched (terms %s).", strings.Join(s.Terms, " | "))
	case more > 0 && s.CutoffReason == find.ReasonCandidateCap:
		// The count is the cap's, not the matches': say so, or it reads as
		// a measure of how much matched.
		fmt.Fprintf(&b, "%d more candidates in %d files (the best %d kept; more sections matched): manual_hits with trace_id %s.", more, s.Files, s.Candidates, s.TraceID)
	case more > 0:
		fmt.Fprintf(&b, "%d more candidates in %d files: manual_hits with trace_id %s.", more, s.Files, s.TraceID)
	default:
		fmt.Fprintf(&b, "%d candidates in %d files (trace_id %s).", s.Candidates, s.Files, s.TraceID)
	}
	if s.Unsearched > 0 {
		fmt.Fprintf(&b, " %d sections were not searched (manual_hits kind unscanned lists them).", s.Unsearched)
	}
	b.WriteString("\n")
	for _, a := range s.NextActions {
		if a.Action != find.ActionCompleted {
			fmt.Fprintf(&b, "next: %s (%s) -> %s\n", a.Action, a.Reason, a.Tool)
		}
	}
	return b.String()
}

// writeCandidate writes one candidate as manual_find and manual_hits list
// it: its ref (manual/path#node, what every manual tool takes), title,
// lines, stages, and a line of its text.
func writeCandidate(b *strings.Builder, n int, c find.Candidate, snippet string) {
	fmt.Fprintf(b, "%d. %s  %s (lines %d-%d, %s)\n", n, c.Title, c.Ref, c.LineStart, c.LineEnd, strings.Join(find.NotableStages(c.Stages), "+"))
	if snippet != "" {
		fmt.Fprintf(b, "   line %d: %s\n", c.SnippetLine, snippet)
	}
}

func renderHits(out ManualHitsOut) string {
	p := out.HitsPage
	var b strings.Builder
	for i, c := range p.Candidates {
		writeCandidate(&b, p.Offset+i+1, c, out.snippets[i])
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
