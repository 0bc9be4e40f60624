package find

import (
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// Bounds of a Traces.
const (
	// DefaultTraceBytes bounds the traces a process keeps: a trace is a
	// few kilobytes to a few hundred (its candidates and unscanned
	// sections), so this is thousands of searches.
	DefaultTraceBytes = 64 << 20
	// DefaultTraceCount bounds their number whatever their size.
	DefaultTraceCount = 10000
)

// Traces keeps manual_find's traces for manual_hits (and the next
// manual_find's only_unscanned_from_trace_id) to page, in the memory of the
// serving process. A trace is state, not index: it is written while
// serving, so it must not live in the index file, which a read-only replica
// cannot write and a newer index replaces (../shared/ARCHITECTURE.md). A
// trace lives until it expires or, past the bounds, until newer ones push it
// out, oldest first; either way manual_hits says to run manual_find again.
// A restart forgets them, as it would an expired one. Safe for concurrent
// use.
type Traces struct {
	maxBytes, maxCount int

	mu    sync.Mutex
	byID  map[string]*storedTrace
	order []string // ids, oldest first
	bytes int
}

// storedTrace is one trace's JSON and when it expires.
type storedTrace struct {
	payload []byte
	expires time.Time
}

// NewTraces returns an empty store bounded by maxBytes and maxCount; 0
// takes DefaultTraceBytes and DefaultTraceCount.
func NewTraces(maxBytes, maxCount int) *Traces {
	if maxBytes <= 0 {
		maxBytes = DefaultTraceBytes
	}
	if maxCount <= 0 {
		maxCount = DefaultTraceCount
	}
	return &Traces{maxBytes: maxBytes, maxCount: maxCount, byID: map[string]*storedTrace{}}
}

// put keeps payload under id until expires, dropping the expired traces
// and then the oldest until the bounds hold.
func (t *Traces) put(id string, payload []byte, now, expires time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byID[id] = &storedTrace{payload: payload, expires: expires}
	t.order = append(t.order, id)
	t.bytes += len(payload)
	keep := t.order[:0]
	for i, old := range t.order {
		s := t.byID[old]
		over := t.bytes > t.maxBytes || len(t.byID) > t.maxCount
		if s != nil && (!now.Before(s.expires) || over) && i < len(t.order)-1 {
			t.bytes -= len(s.payload)
			delete(t.byID, old)
			continue
		}
		keep = append(keep, old)
	}
	t.order = keep
}

// get returns the JSON of trace id as of now. Errors: not_found when it is
// unknown, expired or was pushed out.
func (t *Traces) get(id string, now time.Time) ([]byte, error) {
	t.mu.Lock()
	s := t.byID[id]
	t.mu.Unlock()
	if s == nil {
		return nil, apperr.New(apperr.NotFound, "run manual_find again to get a new trace_id",
			"no trace %q (unknown, expired, or made before this server started)", id)
	}
	if !now.Before(s.expires) {
		return nil, apperr.New(apperr.NotFound, "run manual_find again to get a new trace_id",
			"trace %q expired at %s", id, s.expires.Format(time.RFC3339))
	}
	return s.payload, nil
}
