package find

import (
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/manual/find/adaptive"
)

// A trace id carries the search it names, so that any server holding the
// same manuals can page it: the one that ran it, the same one after a
// restart, another replica. The id is the request that ran (query, other
// phrasings, manual, intent, candidate cap, the stage 4 thresholds used)
// and the generation of the manuals it ran over (a digest of their folder,
// ids and file hashes); manual_hits runs it again where it is not kept in
// memory, and the search is deterministic but for the time budget, so the
// pages are the same. An id whose manuals have changed since says so. The
// id ends in a checksum, so that a mangled copy is refused rather than
// taken for another search; it is not a secret's signature, and needs none:
// whatever a made-up id can make a server do, manual_find does for the same
// caller (the two are one toolset).

// tracePrefix starts every trace id of this format.
const tracePrefix = "mf2."

// MaxTraceIDChars bounds a trace id: the query and its four phrasings at
// their longest, compressed and in base64, fit.
const MaxTraceIDChars = 12_000

// traceSpec is what a trace id holds.
type traceSpec struct {
	Query      string               `json:"q"`
	Also       []string             `json:"a,omitempty"`
	ManualID   string               `json:"m,omitempty"`
	Intent     string               `json:"i,omitempty"`
	MaxCands   int                  `json:"c"`
	Only       string               `json:"u,omitempty"`
	Baseline   string               `json:"b,omitempty"`
	Thresholds *adaptive.Thresholds `json:"t"`
	Generation string               `json:"g"`
}

// request is the request that ran a trace again.
func (t traceSpec) request() Request {
	th := *t.Thresholds
	return Request{Query: t.Query, Also: t.Also, ManualID: t.ManualID, Intent: t.Intent, MaxCandidates: t.MaxCands,
		OnlyUnscannedFromTraceID: t.Only, Baseline: t.Baseline, Thresholds: &th}
}

// encodeTraceID writes spec as an id.
func (f *Finder) encodeTraceID(spec traceSpec) string {
	js, _ := json.Marshal(spec) // plain strings, numbers and slices always marshal
	var b bytes.Buffer
	w, ok := f.idWriters.Get().(*flate.Writer)
	if ok {
		w.Reset(&b)
	} else {
		w, _ = flate.NewWriter(&b, flate.BestCompression) // a valid level never fails
	}
	w.Write(js)
	w.Close()
	f.idWriters.Put(w)
	sum := sha256.Sum256(b.Bytes())
	return tracePrefix + base64.RawURLEncoding.EncodeToString(b.Bytes()) + "." + base64.RawURLEncoding.EncodeToString(sum[:6])
}

// decodeTraceID reads an id. Errors: invalid_argument for anything that
// is not an id manual_find made, whole.
func decodeTraceID(id string) (traceSpec, error) {
	var spec traceSpec
	bad := func(why string) error {
		return apperr.New(apperr.InvalidArgument, "pass the trace_id a manual_find returned, whole", "trace_id %s is not a trace id: %s", apperr.Quote(cutRunes(id, 64)), why)
	}
	if strings.HasPrefix(id, "mf_") {
		return spec, apperr.New(apperr.NotFound, "run manual_find again to get a new trace_id",
			"trace_id %s is of an older langspec, whose traces lived in one server's memory", apperr.Quote(id))
	}
	rest, ok := strings.CutPrefix(id, tracePrefix)
	if !ok || len(id) > MaxTraceIDChars {
		return spec, bad("it does not start with " + tracePrefix)
	}
	body, check, ok := strings.Cut(rest, ".")
	if !ok {
		return spec, bad("its checksum is missing")
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	want := sha256.Sum256(raw)
	if err != nil || check != base64.RawURLEncoding.EncodeToString(want[:6]) {
		return spec, bad("it was cut or changed on the way")
	}
	js, err := io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(raw)), 64<<10))
	if err != nil || json.Unmarshal(js, &spec) != nil || spec.Thresholds == nil || spec.Generation == "" {
		return spec, bad("it cannot be read")
	}
	return spec, nil
}

// CheckTraceID reports whether id has the form of a trace id, so a tool
// can refuse a made-up one before it does anything. Errors:
// invalid_argument, or not_found for an id of an older langspec.
func CheckTraceID(id string) error {
	_, err := decodeTraceID(id)
	return err
}

// generation is a digest of the manuals a search ran over: their folder,
// and each one's id and file hashes (manualSnapshot.key). A search over
// the same generation finds the same candidates.
func (s *stageRun) generation() string {
	snaps := make([]*manualSnapshot, len(s.segs))
	for i, g := range s.segs {
		snaps[i] = g.snap
	}
	return generationOf(s.f.Index.manuals.Root(), snaps)
}

func generationOf(root string, snaps []*manualSnapshot) string {
	h := sha256.New()
	h.Write([]byte(root))
	for _, snap := range snaps {
		h.Write([]byte("\x00" + snap.manual + "\x00" + snap.key))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// currentGeneration is the generation of the manuals named as they are on
// disk now (each refreshed).
func (f *Finder) currentGeneration(ctx context.Context, manualIDs []string) (string, error) {
	snaps := make([]*manualSnapshot, len(manualIDs))
	for i, id := range manualIDs {
		snap, err := f.Index.snapshot(ctx, id)
		if err != nil {
			return "", err
		}
		snaps[i] = snap
	}
	return generationOf(f.Index.manuals.Root(), snaps), nil
}

// tracePayload is what a trace keeps in memory.
type tracePayload struct {
	Query      string              `json:"query"`
	ManualIDs  []string            `json:"manual_ids"`
	Intent     string              `json:"intent"`
	Terms      []string            `json:"terms"`
	Expansions map[string][]string `json:"expansions,omitempty"`
	Candidates []Candidate         `json:"candidates"`
	Unscanned  []Unscanned         `json:"unscanned"`
	Summary    Summary             `json:"summary"`
	// Searched are the manuals of the generation, in its order.
	Searched []string `json:"searched"`
}

// store fills the trace id and token estimates, keeps the trace and records
// the statistics.
func (f *Finder) store(ctx context.Context, req Request, s *stageRun, sum *Summary) error {
	now := f.now()
	th := sum.Thresholds
	sum.TraceID = f.encodeTraceID(traceSpec{Query: req.Query, Also: req.Also, ManualID: req.ManualID, Intent: req.Intent,
		MaxCands: s.req.MaxCandidates, Only: req.OnlyUnscannedFromTraceID, Baseline: req.Baseline, Thresholds: &th, Generation: s.generation()})
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
	searched := make([]string, len(s.segs))
	for i, g := range s.segs {
		searched[i] = g.snap.manual
	}
	payload, err := json.Marshal(tracePayload{Query: s.req.Query, ManualIDs: ids, Intent: string(s.plan.Intent),
		Terms: s.plan.Terms, Expansions: sum.expansions, Candidates: sum.candidateList, Unscanned: sum.unscannedList, Summary: *sum,
		Searched: searched})
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "", "encode trace")
	}
	ttl := f.TraceTTL
	if ttl <= 0 {
		ttl = DefaultTraceTTL
	}
	f.traces().put(sum.TraceID, payload, now, now.Add(ttl))
	// The diagnostic line, on stderr: counts, never manual text (the id
	// holds the query).
	f.log().Info("manual_find", "intent", sum.Intent, "candidates", sum.Candidates,
		"files", sum.Files, "stages", strings.Join(sum.StagesRun, ","), "retries", sum.Retries,
		"unscanned", sum.Unscanned, "cutoff", sum.CutoffReason, "est_tokens", sum.EstTokens, "ms", sum.ElapsedMS)
	if f.Stats != nil && req.Thresholds == nil { // a trace run again is not a search of the model's
		refs := make([]string, len(sum.candidateList))
		for i, c := range sum.candidateList {
			refs[i] = adaptive.Ref(c.ManualID, c.Path, c.NodeID)
		}
		if err := f.Stats.RecordFind(adaptive.FindRecord{TraceID: statsKey(sum.TraceID), Intent: sum.Intent, Candidates: sum.Candidates,
			Files: sum.Files, Stage4: sum.Retries > 0, CutoffReason: sum.CutoffReason, CharsIn: len(in), CharsOut: len(out),
			Refs: refs, DurationMS: sum.ElapsedMS}); err != nil {
			// Statistics are an optimisation; a full disk must not fail the search.
			f.log().Warn("adaptive stats not recorded", "err", err)
		}
	}
	return nil
}

// statsKey is the name a trace goes by in the adaptive statistics: a
// digest of its id, since the id carries the query and the statistics keep
// no text.
func statsKey(traceID string) string {
	sum := sha256.Sum256([]byte(traceID))
	return "t" + hex.EncodeToString(sum[:10])
}

// TraceCandidates returns the candidates a trace kept, best first, for the
// evaluation harness. Errors: those of manual_hits for a malformed or
// outdated trace id.
func (f *Finder) TraceCandidates(ctx context.Context, id string) ([]Candidate, error) {
	tr, err := f.loadTrace(ctx, id)
	return tr.Candidates, err
}

// loadTrace returns the trace id names: from memory when this server ran
// it lately, else by running its search again over the manuals as they
// are. Errors: invalid_argument for a malformed id; not_found when the
// manuals it ran over have changed since.
func (f *Finder) loadTrace(ctx context.Context, id string) (tracePayload, error) {
	var p tracePayload
	spec, err := decodeTraceID(id)
	if err != nil {
		return p, err
	}
	payload, err := f.traces().get(id, f.now())
	if errors.Is(err, errNoTrace) {
		sum, ferr := f.Find(ctx, spec.request())
		if ferr != nil {
			return p, ferr
		}
		if sum.TraceID != id {
			return p, errChanged()
		}
		payload, err = f.traces().get(id, f.now())
	}
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(payload, &p); err != nil {
		return p, apperr.Wrap(err, apperr.Internal, "run manual_find again", "trace %s cannot be read", apperr.Quote(cutRunes(id, 64)))
	}
	// Kept here, but of manuals that may have changed since: it stands
	// only while they are the ones it searched, as on any other server.
	gen, err := f.currentGeneration(ctx, p.Searched)
	if err != nil {
		return p, err
	}
	if gen != spec.Generation {
		return p, errChanged()
	}
	return p, nil
}

// errChanged is what a trace of manuals that changed since answers.
func errChanged() error {
	return apperr.New(apperr.NotFound, "run manual_find again to get a trace of the manuals as they are",
		"the manuals this trace searched have changed since (or this server holds other manuals): its candidates are gone")
}
