package find

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
)

// newTraceID returns a random trace id.
func newTraceID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "mf_" + hex.EncodeToString(b[:])
}

// tracePayload is what a trace stores.
type tracePayload struct {
	Query      string              `json:"query"`
	ManualIDs  []string            `json:"manual_ids"`
	Intent     string              `json:"intent"`
	Terms      []string            `json:"terms"`
	Expansions map[string][]string `json:"expansions,omitempty"`
	Candidates []Candidate         `json:"candidates"`
	Unscanned  []Unscanned         `json:"unscanned"`
	Summary    Summary             `json:"summary"`
}

// store fills the trace id and token estimates, saves the trace and records
// the statistics.
func (f *Finder) store(ctx context.Context, req Request, s *search, sum *Summary) error {
	now := f.now()
	sum.TraceID = newTraceID()
	for i := range sum.NextActions {
		a := &sum.NextActions[i]
		switch a.Tool {
		case "manual_hits":
			a.Arguments = map[string]any{"trace_id": sum.TraceID, "kind": "candidates"}
		case "manual_find":
			a.Arguments = map[string]any{"only_unscanned_from_trace_id": sum.TraceID}
		}
	}
	in, _ := json.Marshal(req)
	out, _ := json.Marshal(sum)
	sum.EstTokensIn, sum.EstTokensOut, sum.EstTokens = adaptive.EstTokens(len(in), len(out))
	ids := s.manualIDs()
	if req.ManualID != "" {
		ids = []string{req.ManualID}
	}
	payload, err := json.Marshal(tracePayload{Query: s.req.Query, ManualIDs: ids, Intent: string(s.plan.Intent),
		Terms: s.plan.Terms, Expansions: sum.expansions, Candidates: sum.candidateList, Unscanned: sum.unscannedList, Summary: *sum})
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "", "encode trace")
	}
	ttl := f.TraceTTL
	if ttl <= 0 {
		ttl = DefaultTraceTTL
	}
	f.traces().put(sum.TraceID, payload, now, now.Add(ttl))
	// The diagnostic line, on stderr: ids and counts, never manual text.
	f.log().Info("manual_find", "trace_id", sum.TraceID, "intent", sum.Intent, "candidates", sum.Candidates,
		"files", sum.Files, "stages", strings.Join(sum.StagesRun, ","), "retries", sum.Retries,
		"unscanned", sum.Unscanned, "cutoff", sum.CutoffReason, "est_tokens", sum.EstTokens, "ms", sum.ElapsedMS)
	if f.Stats != nil {
		refs := make([]string, len(sum.candidateList))
		for i, c := range sum.candidateList {
			refs[i] = adaptive.Ref(c.ManualID, c.Path, c.NodeID)
		}
		if err := f.Stats.RecordFind(adaptive.FindRecord{TraceID: sum.TraceID, Intent: sum.Intent, Candidates: sum.Candidates,
			Files: sum.Files, Stage4: sum.Retries > 0, CutoffReason: sum.CutoffReason, CharsIn: len(in), CharsOut: len(out),
			Refs: refs, DurationMS: sum.ElapsedMS}); err != nil {
			// Statistics are an optimisation; a full disk must not fail the search.
			f.log().Warn("adaptive stats not recorded", "err", err)
		}
	}
	return nil
}

// CheckTraceID reports whether id has the form of a trace id, so a tool
// can refuse a made-up one before it does anything. Errors: invalid_argument.
func CheckTraceID(id string) error {
	if !validTraceID(id) {
		return apperr.New(apperr.InvalidArgument, "pass the trace_id a manual_find returned (mf_ and 20 hex digits)", "trace_id %q is not a trace id", cutRunes(id, 64))
	}
	return nil
}

// TraceCandidates returns the candidates a trace kept, best first, for the
// evaluation harness. Errors: those of manual_hits for a malformed, unknown
// or expired trace id.
func (f *Finder) TraceCandidates(ctx context.Context, id string) ([]Candidate, error) {
	tr, err := f.loadTrace(ctx, id)
	return tr.Candidates, err
}

func (f *Finder) loadTrace(ctx context.Context, id string) (tracePayload, error) {
	var p tracePayload
	if err := CheckTraceID(id); err != nil {
		return p, err
	}
	payload, err := f.traces().get(id, f.now())
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "run manual_find again", "trace %q cannot be read", id)
	}
	return p, nil
}

func validTraceID(id string) bool {
	rest, ok := strings.CutPrefix(id, "mf_")
	if !ok || len(rest) != 20 {
		return false
	}
	_, err := hex.DecodeString(rest)
	return err == nil
}
