package find

import (
	"errors"
	"sync"
	"time"
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
// serving process: a cache, since a trace id carries its search and any
// server holding the same manuals runs it again (trace.go). A trace lives
// until it expires or, past the bounds, until newer ones push it out,
// oldest first. Safe for concurrent use.
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

// errNoTrace says a trace is not kept (never here, expired or pushed
// out): its id is run again (loadTrace).
var errNoTrace = errors.New("trace not kept")

// get returns the JSON of trace id as of now, or errNoTrace.
func (t *Traces) get(id string, now time.Time) ([]byte, error) {
	t.mu.Lock()
	s := t.byID[id]
	t.mu.Unlock()
	if s == nil || !now.Before(s.expires) {
		return nil, errNoTrace
	}
	return s.payload, nil
}
