// Package adaptive tunes manual_find's two stage-4 thresholds from usage
// statistics kept as JSONL at ADAPTIVE_STATS_PATH.
//
// Stage 4 widens a search when candidate_low_threshold exceeds the candidate
// count, or when file_bias_threshold or more of at least 5 candidates sit in
// one file. Both thresholds move in fixed steps inside fixed ranges, at most
// once per 24 hours, under the policy "minimum cost subject to a recall
// floor", measured over the latest 100 finds (the window):
//
//   - recall_q = |C_q ∩ U_q| / |U_q| for a find q with candidates C_q and
//     refs U_q later read or copied under its trace_id; finds with no uses
//     are left out. The recall proxy is the mean recall_q over the window.
//   - No move until the window holds at least 20 finds with uses: below
//     that, one query moves the mean by 5 points or more, which is noise.
//   - Recall proxy under 0.95: loosen (stage 4 fires more).
//   - At or over 0.95 and stage 4 fired in more than half of the window's
//     finds: tighten, to spend fewer tokens.
//   - Rollback to Defaults, at any time, when the thresholds are not the
//     defaults and, with the same 20-sample minimum, the window's recall
//     proxy is 3 points or more under, or its cutoff rate (share of finds cut
//     short by a budget) 5 points or more over, the window measured when the
//     current thresholds were set. That baseline is stored in the thresholds
//     record, so it survives a restart, and it ties a rollback to the move
//     it undoes rather than to any dip between two arbitrary windows.
//
// The file holds only counts, ids, short labels and Ref hashes: never
// manual text, snippets, titles or paths. Each process reads the file once at
// Open; it sees other processes' records only on its next Open.
package adaptive

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// Reasons written in thresholds records and reported by Summary.
const (
	ReasonLoosen   = "adjust_loosen"
	ReasonTighten  = "adjust_tighten"
	ReasonRollback = "rollback"
)

const (
	windowSize   = 100            // finds the policy measures; also all that is kept
	minSamples   = 20             // finds with uses in the window before any move
	recallFloor  = 9500           // basis points (0.95)
	recallDrop   = 300            // rollback: recall proxy fell by 3 points
	cutoffRise   = 500            // rollback: cutoff rate rose by 5 points
	stage4Often  = 5000           // tighten only when stage 4 fired in more than half
	moveInterval = 24 * time.Hour // between two adjustments

	lowDefault, lowMin, lowMax, lowStep = 3, 2, 6, 1
	// FileBias is kept in hundredths so that ±0.03 steps never drift.
	biasDefault, biasMin, biasMax, biasStep = 80, 70, 90, 3

	maxRefs  = 200      // keeps a find line far under maxLine
	maxLine  = 64 << 10 // longer lines are refused on write and skipped on read
	maxID    = 128
	maxLabel = 32
	refLen   = 16

	dirPerm  = 0o700 // usage statistics are nobody else's business
	filePerm = 0o600
	pathHint = "check ADAPTIVE_STATS_PATH: it must name a file langspec can read and append to, not a folder"
)

// Thresholds are the two stage-4 thresholds of manual_find.
type Thresholds struct {
	CandidateLow int     `json:"candidate_low_threshold" jsonschema:"stage 4 widens the search under this many candidates"`
	FileBias     float64 `json:"file_bias_threshold" jsonschema:"stage 4 widens the search when this share of at least 5 candidates sit in one file"`
}

// Defaults returns the initial thresholds, which a rollback restores.
func Defaults() Thresholds { return level{lowDefault, biasDefault}.public() }

// Clamped is t within the bounds the thresholds ever take: a trace id
// carries its search's thresholds, and one that was made up must not make
// stage 4 run where no statistics would.
func (t Thresholds) Clamped() Thresholds {
	return level{t.CandidateLow, int(math.Round(t.FileBias * 100))}.clamp().public()
}

// level is Thresholds with FileBias in hundredths.
type level struct{ low, bias int }

func (l level) public() Thresholds { return Thresholds{l.low, float64(l.bias) / 100} }

// step moves one step: +1 loosens (stage 4 fires more), -1 tightens.
func (l level) step(dir int) level { return level{l.low + dir*lowStep, l.bias - dir*biasStep}.clamp() }

func (l level) clamp() level {
	return level{min(max(l.low, lowMin), lowMax), min(max(l.bias, biasMin), biasMax)}
}

// EstTokens estimates tokens at 4 characters each, rounded up; total is
// computed from the summed characters, so it may be less than in+out.
func EstTokens(charsIn, charsOut int) (in, out, total int) {
	ceil4 := func(n int) int { return (max(n, 0) + 3) / 4 }
	return ceil4(charsIn), ceil4(charsOut), ceil4(max(charsIn, 0) + max(charsOut, 0))
}

// Ref is what the statistics store instead of a candidate's location: the
// first 16 hex digits of the SHA-256 of manualID, path and nodeID, each
// separated by NUL so that no two triples share an input.
func Ref(manualID, path, nodeID string) string {
	sum := sha256.Sum256([]byte(manualID + "\x00" + path + "\x00" + nodeID))
	return hex.EncodeToString(sum[:])[:refLen]
}

// FindRecord describes one manual_find call; its tags name the stored
// fields. It has no field for text on purpose: counts, ids and Ref hashes.
type FindRecord struct {
	TraceID      string   `json:"trace_id"`                // joins the find to its uses; 1–128 of [A-Za-z0-9._:-]
	Intent       string   `json:"intent,omitempty"`        // a label like "lookup"; anything else is stored as "other"
	Candidates   int      `json:"candidates"`              // candidates returned
	Files        int      `json:"files"`                   // distinct files among them
	Stage4       bool     `json:"stage4"`                  // stage 4 fired
	CutoffReason string   `json:"cutoff_reason,omitempty"` // a label, set when a budget cut the search short
	CharsIn      int      `json:"chars_in"`                // characters of the request
	CharsOut     int      `json:"chars_out"`               // characters of the response
	Refs         []string `json:"refs"`                    // Ref hashes of the candidates; deduplicated, first 200 kept
	DurationMS   int64    `json:"duration_ms"`
}

// Options configures Open; only Path decides what is stored.
type Options struct {
	Path   string           // ADAPTIVE_STATS_PATH; "" keeps statistics in memory only
	Now    func() time.Time // nil means time.Now
	Logger *slog.Logger     // nil discards
}

// Window measures the latest finds, at most 100.
type Window struct {
	Finds       int     `json:"finds"`
	Samples     int     `json:"samples"`           // finds with uses
	RecallProxy float64 `json:"recall_proxy"`      // mean recall_q over Samples; 0 without samples
	CutoffRate  float64 `json:"cutoff_rate"`       // share of finds cut short by a budget
	Stage4Rate  float64 `json:"stage4_rate"`       // share of finds where stage 4 fired
	EstTokens   int     `json:"window_est_tokens"` // summed; not est_tokens, which sums per find in the file
}

// Summary is the window and the thresholds, for README and eval output.
type Summary struct {
	Window
	Thresholds Thresholds `json:"thresholds"`    // in effect now
	LastChange time.Time  `json:"last_change"`   // zero if the thresholds never moved
	LastReason string     `json:"last_reason"`   // a Reason constant, or ""
	Skipped    int        `json:"skipped_lines"` // malformed lines Open skipped
}

// Stats holds the window and the thresholds. Safe for concurrent use.
type Stats struct {
	path string
	now  func() time.Time
	log  *slog.Logger

	mu      sync.Mutex
	f       *os.File // opened on first write
	closed  bool
	finds   []find                         // oldest first, at most windowSize
	traces  map[string]int                 // finds kept per trace id: decides which uses to keep
	uses    map[string]map[string]struct{} // trace id → refs used
	cur     level
	base    Window // measured when cur was set; the rollback baseline
	changed time.Time
	reason  string
	skipped int
}

type find struct {
	trace       string
	refs        []string
	stage4, cut bool
	tokens      int
}

// Line shapes. ts is truncated to seconds, so it renders as RFC 3339 and
// the in-memory state equals the state a later Open rebuilds.
type findLine struct {
	Kind string    `json:"kind"`
	TS   time.Time `json:"ts"`
	FindRecord
	EstTokensIn  int        `json:"est_tokens_in"`
	EstTokensOut int        `json:"est_tokens_out"`
	EstTokens    int        `json:"est_tokens"`
	Thresholds   Thresholds `json:"thresholds"` // in effect for this find
}

type useLine struct {
	Kind    string    `json:"kind"`
	TS      time.Time `json:"ts"`
	TraceID string    `json:"trace_id"`
	Ref     string    `json:"ref"`
}

type thresholdsLine struct {
	Kind string    `json:"kind"`
	TS   time.Time `json:"ts"`
	Thresholds
	Reason string `json:"reason"`
	Window
}

// Open rebuilds the statistics from opts.Path, if the file exists, keeping
// the latest 100 finds, their uses and the latest thresholds. Malformed
// lines are skipped, counted in Summary and logged once. Nothing is created
// until the first write. It returns apperr.Unavailable when the path is a
// folder or cannot be read.
func Open(opts Options) (*Stats, error) {
	s := &Stats{path: opts.Path, now: opts.Now, log: opts.Logger,
		cur: level{lowDefault, biasDefault}, traces: map[string]int{}, uses: map[string]map[string]struct{}{}}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.path == "" {
		return s, nil
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	if s.skipped > 0 {
		s.log.Warn("adaptive stats: skipped malformed lines", "path", s.path, "lines", s.skipped)
	}
	return s, nil
}

func (s *Stats) load() error {
	if fi, err := os.Stat(s.path); err == nil && fi.IsDir() {
		return apperr.New(apperr.Unavailable, pathHint, "adaptive stats path %s is a folder", s.path)
	}
	f, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, pathHint, "open adaptive stats: %v", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, maxLine)
	for {
		b, long, err := r.ReadLine()
		for long && err == nil { // over maxLine, so no writer of ours made it
			_, long, err = r.ReadLine()
			b = nil
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return apperr.Wrap(err, apperr.Unavailable, pathHint, "read adaptive stats: %v", err)
		}
		if b == nil || !s.replay(b) {
			s.skipped++
		}
	}
}

// replay applies one stored line, reporting false for a malformed one.
// Lines are checked as strictly as RecordFind checks its input, so a
// hand-edited file cannot smuggle text into the window.
func (s *Stats) replay(b []byte) bool {
	var k struct{ Kind string }
	if json.Unmarshal(b, &k) != nil {
		return false
	}
	switch k.Kind {
	case "find":
		var l findLine
		if json.Unmarshal(b, &l) != nil || !validID(l.TraceID) {
			return false
		}
		refs, err := cleanRefs(l.Refs)
		if err != nil {
			return false
		}
		s.addFind(find{l.TraceID, refs, l.Stage4, l.CutoffReason != "", l.EstTokens})
	case "use":
		var l useLine
		if json.Unmarshal(b, &l) != nil || !validID(l.TraceID) || !validRef(l.Ref) {
			return false
		}
		s.addUse(l.TraceID, l.Ref)
	case "thresholds":
		var l thresholdsLine
		if json.Unmarshal(b, &l) != nil || l.TS.IsZero() {
			return false
		}
		lv := level{l.CandidateLow, int(math.Round(l.FileBias * 100))}
		if lv != lv.clamp() || (l.Reason != ReasonLoosen && l.Reason != ReasonTighten && l.Reason != ReasonRollback) {
			return false
		}
		s.cur, s.changed, s.reason, s.base = lv, l.TS, l.Reason, l.Window
	default:
		return false
	}
	return true
}

// Thresholds returns the thresholds in effect.
func (s *Stats) Thresholds() Thresholds {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur.public()
}

// RecordFind appends a find record, then applies the adjustment and
// rollback rules, appending a thresholds record when they move. It returns
// apperr.InvalidArgument for a bad TraceID or a Ref that is not a Ref hash
// (nothing is recorded), and apperr.Unavailable when closed or when a write
// fails. A failed write still counts in memory, so this process's window
// stays whole; only a later Open misses the record.
func (s *Stats) RecordFind(r FindRecord) error {
	if err := checkID(r.TraceID); err != nil {
		return err
	}
	refs, err := cleanRefs(r.Refs)
	if err != nil {
		return err
	}
	// Labels are the only free-form strings: keep codes, drop anything else.
	r.Refs, r.Intent, r.CutoffReason = refs, label(r.Intent), label(r.CutoffReason)
	// Counts are never negative; clamp rather than lose the find.
	r.Candidates, r.Files, r.CharsIn, r.CharsOut, r.DurationMS =
		max(r.Candidates, 0), max(r.Files, 0), max(r.CharsIn, 0), max(r.CharsOut, 0), max(r.DurationMS, 0)
	in, out, total := EstTokens(r.CharsIn, r.CharsOut)

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed()
	}
	now := s.now().UTC().Truncate(time.Second)
	s.addFind(find{r.TraceID, refs, r.Stage4, r.CutoffReason != "", total})
	err = s.write(findLine{Kind: "find", TS: now, FindRecord: r,
		EstTokensIn: in, EstTokensOut: out, EstTokens: total, Thresholds: s.cur.public()})
	if next, reason, w, ok := s.decide(now); ok {
		s.cur, s.changed, s.reason, s.base = next, now, reason, w
		s.log.Info("adaptive stats: thresholds moved", "reason", reason, "candidate_low", next.low,
			"file_bias", next.public().FileBias, "recall_proxy", w.RecallProxy, "cutoff_rate", w.CutoffRate, "samples", w.Samples)
		err = cmp.Or(err, s.write(thresholdsLine{Kind: "thresholds", TS: now, Thresholds: next.public(), Reason: reason, Window: w}))
	}
	return err
}

// RecordUse appends a use: ref was read or copied after the find traceID.
// A use of a trace outside the window is written but does not count. It
// returns apperr.InvalidArgument for a bad trace id or ref, and
// apperr.Unavailable when closed or when the write fails.
func (s *Stats) RecordUse(traceID, ref string) error {
	if err := checkID(traceID); err != nil {
		return err
	}
	if _, err := cleanRefs([]string{ref}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed()
	}
	s.addUse(traceID, ref)
	return s.write(useLine{Kind: "use", TS: s.now().UTC().Truncate(time.Second), TraceID: traceID, Ref: ref})
}

// Summary measures the window now.
func (s *Stats) Summary() Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Summary{Window: s.measure(), Thresholds: s.cur.public(), LastChange: s.changed, LastReason: s.reason, Skipped: s.skipped}
}

// Close closes the file. Later records fail with apperr.Unavailable.
func (s *Stats) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// addFind appends f to the window, dropping the oldest find and, once no
// kept find has its trace id, that trace's uses.
func (s *Stats) addFind(f find) {
	s.finds = append(s.finds, f)
	s.traces[f.trace]++
	if len(s.finds) > windowSize {
		old := s.finds[0]
		s.finds = append(s.finds[:0], s.finds[1:]...)
		if s.traces[old.trace]--; s.traces[old.trace] == 0 {
			delete(s.traces, old.trace)
			delete(s.uses, old.trace)
		}
	}
}

func (s *Stats) addUse(trace, ref string) {
	if s.traces[trace] == 0 {
		return
	}
	if s.uses[trace] == nil {
		s.uses[trace] = map[string]struct{}{}
	}
	s.uses[trace][ref] = struct{}{}
}

// measure computes the window's rates, rounded to 4 decimals so that a
// baseline read back from the file compares exactly as it did when written.
func (s *Stats) measure() Window {
	var w Window
	var recall float64
	var cut, stage4 int
	for _, f := range s.finds {
		w.Finds++
		w.EstTokens += f.tokens
		if f.cut {
			cut++
		}
		if f.stage4 {
			stage4++
		}
		used := s.uses[f.trace]
		if len(used) == 0 {
			continue
		}
		hit := 0
		for _, r := range f.refs {
			if _, ok := used[r]; ok {
				hit++
			}
		}
		recall += float64(hit) / float64(len(used))
		w.Samples++
	}
	if w.Samples > 0 {
		w.RecallProxy = round4(recall / float64(w.Samples))
	}
	if w.Finds > 0 {
		w.CutoffRate = round4(float64(cut) / float64(w.Finds))
		w.Stage4Rate = round4(float64(stage4) / float64(w.Finds))
	}
	return w
}

// decide applies the policy described in the package comment.
func (s *Stats) decide(now time.Time) (next level, reason string, w Window, ok bool) {
	w = s.measure()
	if w.Samples < minSamples {
		return s.cur, "", w, false
	}
	def := level{lowDefault, biasDefault}
	if s.cur != def && (bp(s.base.RecallProxy)-bp(w.RecallProxy) >= recallDrop || bp(w.CutoffRate)-bp(s.base.CutoffRate) >= cutoffRise) {
		return def, ReasonRollback, w, true
	}
	if !s.changed.IsZero() && now.Sub(s.changed) < moveInterval {
		return s.cur, "", w, false
	}
	switch {
	case bp(w.RecallProxy) < recallFloor:
		next, reason = s.cur.step(+1), ReasonLoosen
	case bp(w.Stage4Rate) > stage4Often:
		next, reason = s.cur.step(-1), ReasonTighten
	default:
		return s.cur, "", w, false
	}
	return next, reason, w, next != s.cur // at a range end a step may be a no-op
}

// write appends v as one line with a single Write on an O_APPEND file, so
// lines from concurrent processes interleave whole. Callers hold s.mu.
func (s *Stats) write(v any) error {
	if s.path == "" {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) >= maxLine {
		return apperr.Wrap(err, apperr.Internal, "", "adaptive stats record is not writable (%d bytes)", len(b))
	}
	if s.f == nil {
		if err := os.MkdirAll(filepath.Dir(s.path), dirPerm); err != nil {
			return apperr.Wrap(err, apperr.Unavailable, pathHint, "create adaptive stats folder: %v", err)
		}
		f, err := os.OpenFile(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, filePerm)
		if err != nil {
			return apperr.Wrap(err, apperr.Unavailable, pathHint, "open adaptive stats: %v", err)
		}
		s.f = f
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return apperr.Wrap(err, apperr.Unavailable, pathHint, "write adaptive stats: %v", err)
	}
	return nil
}

func errClosed() error {
	return apperr.New(apperr.Unavailable, "langspec is shutting down; retry once it has restarted", "adaptive stats are closed")
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// bp converts a rounded rate to basis points, so threshold comparisons are
// exact integers rather than float differences like 0.95-0.92.
func bp(x float64) int { return int(math.Round(x * 1e4)) }

// only reports whether s is 1 to n bytes, all from set.
func only(s, set string, n int) bool { return s != "" && len(s) <= n && strings.Trim(s, set) == "" }

// label keeps s if it looks like a code ("time_budget"), else "other": a
// label must not be a way for manual text to reach the file.
func label(s string) string {
	if s == "" || only(s, "abcdefghijklmnopqrstuvwxyz0123456789_.-", maxLabel) {
		return s
	}
	return "other"
}

func validID(s string) bool {
	return only(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-", maxID)
}

func validRef(s string) bool { return len(s) == refLen && only(s, "0123456789abcdef", refLen) }

// The messages do not echo the bad value: it may be manual text.
func checkID(s string) error {
	if validID(s) {
		return nil
	}
	return apperr.New(apperr.InvalidArgument, "pass the trace_id manual_find returned",
		"trace id must be 1 to %d of A-Z a-z 0-9 . _ : - (got %d bytes)", maxID, len(s))
}

// cleanRefs deduplicates refs, so a repeated candidate cannot push recall_q
// over 1, and keeps the first maxRefs.
func cleanRefs(in []string) ([]string, error) {
	refs := make([]string, 0, min(len(in), maxRefs))
	seen := map[string]bool{}
	for i, r := range in {
		if !validRef(r) {
			return nil, apperr.New(apperr.InvalidArgument, "pass adaptive.Ref hashes, never paths or text",
				"ref %d is not a %d-digit lower-case hex hash", i, refLen)
		}
		if !seen[r] && len(refs) < maxRefs {
			seen[r] = true
			refs = append(refs, r)
		}
	}
	return refs, nil
}
