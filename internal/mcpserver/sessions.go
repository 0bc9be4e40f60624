package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session limits of the team server (stateful streamable HTTP).
const (
	// DefaultSessionIdle is how long a session may go without a request
	// (and without an open GET stream) before it is closed. A client whose
	// session was closed gets 404 and starts a new one, as the transport
	// specifies; Claude Code and the SDKs do. Half an hour keeps an editor
	// left open over a meeting connected, and bounds what a client that
	// never says goodbye (DELETE) leaves behind.
	DefaultSessionIdle = 30 * time.Minute
	// DefaultSessionsPerSubject caps the sessions one subject holds at
	// once. An assistant holds one per connection; 32 leaves room for
	// every editor and agent a person runs, and bounds what one token can
	// make the server keep (about 27 KB a session).
	DefaultSessionsPerSubject = 32
)

// headerSessionID is the streamable HTTP transport's session header.
const headerSessionID = "Mcp-Session-Id"

// sessionRegistry knows every stateful session of the team server: whose it
// is, whether a request is using it, and when it was last used. It closes a
// session idle for longer than idle, closes a subject's oldest idle session
// when a new one would pass the cap, and at shutdown ends every GET stream
// at once. The SDK keeps the sessions themselves; closing one here is
// closing it there (mcp.ServerSession.Close), after which its id gets 404.
type sessionRegistry struct {
	idle       time.Duration
	perSubject int
	now        func() time.Time
	log        *slog.Logger

	mu   sync.Mutex
	byID map[string]*trackedSession
	// pending counts each subject's initializes in the SDK's hands: their
	// slots are reserved before the SDK makes the session, so that many
	// at once cannot all pass the cap.
	pending  map[string]int
	stopping bool
	// calls counts the requests in flight that are not GET streams: at
	// shutdown, their answers go out before the streams end.
	calls atomic.Int64
}

// trackedSession is one session as the registry sees it.
type trackedSession struct {
	id      string
	subject string // teamauth.Subject.Key
	server  *mcp.Server
	open    int       // requests in flight on it, a held GET stream among them
	last    time.Time // when a request on it last began or ended
	// streams cancel the session's open GET streams, which otherwise last
	// as long as the client keeps them.
	streams map[*http.Request]context.CancelFunc
}

func newSessionRegistry(idle time.Duration, perSubject int, log *slog.Logger) *sessionRegistry {
	return &sessionRegistry{idle: idle, perSubject: perSubject, now: time.Now, log: log, byID: map[string]*trackedSession{}, pending: map[string]int{}}
}

// track wraps the streamable handler of subject's server s. server is how
// to reach the subject's server; subject its key.
func (sr *sessionRegistry) track(w http.ResponseWriter, r *http.Request, subject string, server *mcp.Server, next http.Handler) {
	if r.Method != http.MethodGet {
		sr.calls.Add(1)
		defer sr.calls.Add(-1)
	}
	id := r.Header.Get(headerSessionID)
	if id == "" {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		if err := sr.reserve(subject); err != nil {
			var id json.RawMessage
			if body, rerr := io.ReadAll(r.Body); rerr == nil && json.Valid(body) {
				id = readMembers(body).id
			}
			w.Header().Set("Retry-After", "60")
			writeRejections(w, http.StatusTooManyRequests, []rejection{{id: id, err: &jsonrpc.Error{Code: codeRateLimited, Message: err.Error()}}}, false)
			return
		}
		made := ""
		defer func() { sr.settle(subject, made, server) }() // the slot is given back even if the SDK panics
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		made = rec.Header().Get(headerSessionID)
		return
	}
	s := sr.begin(id)
	if s == nil {
		next.ServeHTTP(w, r) // unknown or closed: the SDK answers 404
		return
	}
	if r.Method == http.MethodGet {
		ctx, cancel := context.WithCancel(r.Context())
		r = r.WithContext(ctx)
		sr.mu.Lock()
		s.streams[r] = cancel
		stopping := sr.stopping
		sr.mu.Unlock()
		if stopping {
			cancel()
		}
		defer func() {
			sr.mu.Lock()
			delete(s.streams, r)
			sr.mu.Unlock()
			cancel()
		}()
	}
	defer sr.end(s)
	rec := &statusRecorder{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	if r.Method == http.MethodDelete && rec.status == http.StatusNoContent {
		sr.forget(id)
	}
}

// reserve keeps a subject under its cap before it makes a new session, and
// takes a slot for it: the subject's oldest idle sessions are closed to
// make room. The slot is held until settle, so that concurrent initializes
// count one another. Errors when every session and slot is in use.
func (sr *sessionRegistry) reserve(subject string) error {
	if sr.perSubject <= 0 {
		return nil
	}
	sr.mu.Lock()
	var mine []*trackedSession
	for _, s := range sr.byID {
		if s.subject == subject {
			mine = append(mine, s)
		}
	}
	var evict []*trackedSession
	if held := len(mine) + sr.pending[subject]; held >= sr.perSubject {
		idle := slices.DeleteFunc(mine, func(s *trackedSession) bool { return s.open > 0 })
		slices.SortFunc(idle, func(a, b *trackedSession) int { return a.last.Compare(b.last) })
		over := held - sr.perSubject + 1
		if len(idle) < over {
			sr.mu.Unlock()
			return fmt.Errorf("too many sessions: this subject holds %d, every one in use, and may hold %d; end one (DELETE %s with its %s) or retry later",
				held, sr.perSubject, PathMCP, headerSessionID)
		}
		evict = idle[:over]
		for _, s := range evict {
			delete(sr.byID, s.id)
		}
	}
	sr.pending[subject]++
	sr.mu.Unlock()
	for _, s := range evict {
		sr.log.Info("closed the subject's oldest idle session to make room", "session_cap", sr.perSubject, "idle_for", sr.now().Sub(s.last).Round(time.Second))
		closeSession(s)
	}
	return nil
}

// settle gives back the slot reserve took, and records the session made
// in it (id "" when the SDK made none).
func (sr *sessionRegistry) settle(subject, id string, server *mcp.Server) {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	if sr.perSubject > 0 {
		if sr.pending[subject]--; sr.pending[subject] <= 0 {
			delete(sr.pending, subject)
		}
	}
	if _, ok := sr.byID[id]; id != "" && !ok {
		sr.byID[id] = &trackedSession{id: id, subject: subject, server: server, last: sr.now(), streams: map[*http.Request]context.CancelFunc{}}
	}
}

// begin notes a request on session id; nil when the registry does not know
// it.
func (sr *sessionRegistry) begin(id string) *trackedSession {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	s := sr.byID[id]
	if s != nil {
		s.open++
		s.last = sr.now()
	}
	return s
}

func (sr *sessionRegistry) end(s *trackedSession) {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	s.open--
	s.last = sr.now()
}

func (sr *sessionRegistry) forget(id string) {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	delete(sr.byID, id)
}

// sweep closes the sessions idle for longer than sr.idle.
func (sr *sessionRegistry) sweep() {
	if sr.idle <= 0 {
		return
	}
	cutoff := sr.now().Add(-sr.idle)
	sr.mu.Lock()
	var expired []*trackedSession
	for id, s := range sr.byID {
		if s.open == 0 && s.last.Before(cutoff) {
			expired = append(expired, s)
			delete(sr.byID, id)
		}
	}
	sr.mu.Unlock()
	for _, s := range expired {
		closeSession(s)
	}
	if len(expired) > 0 {
		sr.log.Info("closed idle sessions", "count", len(expired), "idle_after", sr.idle)
	}
}

// run sweeps until ctx ends, often enough that a session outlives its idle
// time by at most a quarter of it.
func (sr *sessionRegistry) run(ctx context.Context) {
	if sr.idle <= 0 {
		return
	}
	every := min(max(sr.idle/4, 50*time.Millisecond), time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sr.sweep()
		}
	}
}

// streamGrace is how long, at shutdown, the calls in flight (cancelled by
// then) get to send their answers before the GET streams end: a client may
// take the end of its stream for the end of the session and drop the
// answers still to come on its other requests.
const streamGrace = time.Second

// answerSettle is how long the streams stay open after the last answer of
// a call cut short by shutdown was written.
const answerSettle = 100 * time.Millisecond

// endStreams ends every open GET stream, from now on, once the calls in
// flight have answered (or streamGrace passed): a stream only waits for
// server messages, so at shutdown nothing is lost by ending it, and the
// HTTP server's Shutdown would otherwise wait its whole grace for streams
// that never end by themselves.
func (sr *sessionRegistry) endStreams() {
	for deadline := time.Now().Add(streamGrace); sr.calls.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if sr.openStreams() > 0 {
		// Written is not yet read: the client reads each answer on its
		// own connection, and may act on its stream's end first.
		time.Sleep(answerSettle)
	}
	sr.mu.Lock()
	defer sr.mu.Unlock()
	sr.stopping = true
	for _, s := range sr.byID {
		for _, cancel := range s.streams {
			cancel()
		}
	}
}

// openStreams is how many GET streams are open.
func (sr *sessionRegistry) openStreams() int {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	n := 0
	for _, s := range sr.byID {
		n += len(s.streams)
	}
	return n
}

// closeSession closes s in the SDK: its id then gets 404, and its GET
// stream ends.
func closeSession(s *trackedSession) {
	for ss := range s.server.Sessions() {
		if ss.ID() == s.id {
			_ = ss.Close()
			return
		}
	}
}

// statusRecorder remembers the status a handler wrote, and lets the
// session registry read the session id the SDK set on a new session's
// response.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(p)
}

// Flush keeps server-sent events flowing through the recorder.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// sessionlessVersion is the first protocol version without sessions
// (SEP-2575); versions are dates, so they compare as strings.
const sessionlessVersion = "2026-07-28"

// byProtocol sends a request that speaks a sessionless protocol version
// (its Mcp-Protocol-Version header, and no session) to sessionless, and
// every other to stateful.
func byProtocol(stateful, sessionless http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(headerSessionID) == "" && r.Header.Get("Mcp-Protocol-Version") >= sessionlessVersion {
			sessionless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// requireSession answers 400 to a POST without Mcp-Session-Id that does
// not initialize a session, as the transport specifies: the SDK would make
// a session for it and answer it as if initialized, or fail it with error
// code 0 ("invalid during session initialization"), leaving the client
// unsure what happened. The body has been vetted (vetMessages): valid JSON.
func requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(headerSessionID) != "" || !isJSON(r.Header.Get("Content-Type")) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if initializes(body) {
			next.ServeHTTP(w, r)
			return
		}
		writeRejections(w, http.StatusBadRequest, []rejection{{id: readMembers(body).id, err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: "Bad Request: no " + headerSessionID + " header: start a session with initialize, then send its id with every request (or speak protocol " + sessionlessVersion + ", which needs none)"}}}, false)
	})
}

// initializes says whether a body holds an initialize request, alone or
// in a batch.
func initializes(body []byte) bool {
	var one struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &one) == nil {
		return one.Method == "initialize"
	}
	var batch []struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &batch) != nil {
		return false
	}
	return slices.ContainsFunc(batch, func(m struct {
		Method string `json:"method"`
	}) bool {
		return m.Method == "initialize"
	})
}
