package upstream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os/exec"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// Backoff between failed connection attempts of one server: 500ms, 1s,
// 2s, … up to 30s. No jitter: langspec talks to a handful of servers, each
// its own, so there is no herd of clients to spread out, and fixed steps
// keep the "next attempt at" in errors exact.
const (
	backoffInitial = 500 * time.Millisecond
	backoffMax     = 30 * time.Second
)

// backoff is the wait after the n-th consecutive failed attempt (n ≥ 1).
func backoff(n int) time.Duration {
	d := backoffInitial
	for i := 1; i < n && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// pingTimeout bounds the ping that decides, after a request timed out,
// whether the server still answers (see requestError). It is short: a
// server that is merely busy answers a ping at once, the SDK handling
// requests concurrently.
const pingTimeout = 2 * time.Second

// dialFunc makes the transport of one connection attempt.
type dialFunc func(ctx context.Context) (dialed, error)

// dialed is what a dialFunc makes.
type dialed struct {
	t mcp.Transport
	// cleanup runs once the attempt's session has ended, or the attempt
	// failed. Not nil.
	cleanup func()
	// kill ends the stdio child behind t: stdin closed, grace to exit,
	// then its process group killed. nil for other transports.
	kill func(grace time.Duration)
}

// server is one upstream.
type server struct {
	m           *Manager
	name        string
	description string
	kind        string
	dial        dialFunc
	// configErr makes the server unavailable for good: its config could
	// not be completed (an unset ${VAR}), so nothing is ever dialled.
	configErr *apperr.Error
	red       redactor
	log       *slog.Logger
	client    *mcp.Client
	caller    *caller      // the configured retry, cache and argument checks; nil for AddTransport's servers
	oauth     *oauthHolder // the OAuth login of a server that has one

	listSem chan struct{} // holds one tools/list at a time, so a cold cache costs one listing

	mu          sync.Mutex
	conn        *conn         // the open session, nil when there is none
	connecting  chan struct{} // closed when the attempt under way ends; nil when none is
	lastErr     *apperr.Error // why the last attempt failed or the last session ended
	failures    int           // consecutive failed attempts
	nextAttempt time.Time     // no attempt before this, after a failure
	opened      int           // sessions opened so far
	tools       *ToolList     // last listing
	fetchedAt   time.Time     // when tools was listed
	gen         uint64        // bumped by list_changed and by each new session
	listedGen   uint64        // gen when tools was listed; older than gen means stale
}

// errClosed ends attempts that would start after Close.
var errClosed = errors.New("upstream manager closed")

// conn is one session.
type conn struct {
	cs        *mcp.ClientSession
	cleanup   func()                    // runs after the session has ended
	kill      func(grace time.Duration) // see dialed.kill; nil unless stdio
	ended     chan struct{}             // closed as soon as the session is seen to end
	endedOnce sync.Once
}

func (c *conn) markEnded() { c.endedOnce.Do(func() { close(c.ended) }) }

func newServer(m *Manager, name, description, kind string, dial dialFunc, red redactor) *server {
	s := &server{
		m:           m,
		name:        name,
		description: description,
		kind:        kind,
		dial:        dial,
		red:         red,
		listSem:     make(chan struct{}, 1),
	}
	s.log = slog.New(redactHandler{m.log.Handler(), s.red}).With("server", name)
	s.client = mcp.NewClient(&mcp.Implementation{Name: "langspec", Version: m.opts.Version}, &mcp.ClientOptions{
		Logger: s.log,
		// langspec offers upstreams no roots, sampling or elicitation; an
		// empty set keeps them from asking.
		Capabilities:           &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { s.toolsChanged() },
	})
	return s
}

// startConnectLocked begins a connection attempt unless one is under way
// and returns the channel closed when it ends. s.mu is held.
func (s *server) startConnectLocked() chan struct{} {
	if s.connecting != nil {
		return s.connecting
	}
	done := make(chan struct{})
	if s.configErr != nil {
		close(done) // nothing to dial: session reports configErr
		return done
	}
	if !s.m.goTrack(func() { s.connect(done) }) {
		close(done) // closed Manager: the caller finds no session
		return done
	}
	s.connecting = done
	return done
}

// connect runs one connection attempt, bounded by ConnectTimeout, and then
// lists the tools for the ready log line.
func (s *server) connect(done chan struct{}) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.ConnectTimeout)
	defer cancel()
	type result struct {
		c   *conn
		err error
	}
	// The attempt runs apart so that the timeout is exact: when the SDK
	// gives up on initialize it closes the transport, and a stdio child
	// that ignores the closed stdin gets seconds of grace before SIGTERM.
	resc := make(chan result, 1)
	if !s.m.goTrack(func() { c, err := s.open(ctx); resc <- result{c, err} }) {
		s.finishConnect(done, nil, errClosed)
		return
	}
	var r result
	select {
	case r = <-resc:
	case <-ctx.Done():
		r.err = ctx.Err()
		// Whatever the attempt still makes is closed when it arrives.
		drain := func() {
			if late := <-resc; late.c != nil {
				s.closeConn(late.c, stdioGrace)
			}
		}
		if !s.m.goTrack(drain) {
			drain() // Close has begun and waits for this goroutine
		}
	}
	if !s.finishConnect(done, r.c, r.err) {
		return
	}
	// List on this session only: should it already be gone, going through
	// session() would reconnect with no caller asking, and a server that
	// dies after each initialize would be respawned in a loop.
	tl, err := s.listTools(s.m.ctx, r.c)
	if err != nil {
		s.log.Warn("upstream connected but its tools could not be listed", "error", err, "ms", time.Since(start).Milliseconds())
		return
	}
	s.log.Info("upstream ready", "tools", len(tl.Tools), "ms", time.Since(start).Milliseconds())
}

// open dials and initializes one session.
func (s *server) open(ctx context.Context) (*conn, error) {
	d, err := s.dial(ctx)
	if err != nil {
		return nil, err
	}
	life, end := context.WithCancel(s.m.ctx)
	cs, err := s.client.Connect(ctx, &detachedTransport{inner: d.t, life: life, end: end}, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		end()
		d.cleanup()
		return nil, err
	}
	return &conn{cs: cs, kill: d.kill, ended: make(chan struct{}), cleanup: func() { end(); d.cleanup() }}, nil
}

// finishConnect records the outcome of an attempt and reports whether a
// session was opened.
func (s *server) finishConnect(done chan struct{}, c *conn, err error) bool {
	defer close(done)
	s.mu.Lock()
	s.connecting = nil
	if err == nil && s.m.ctx.Err() != nil {
		// Close began after the attempt succeeded: Close no longer sees
		// this session, so it is ours to end; the outcome recorded is
		// that it was not started (connectError: shutting down).
		s.lastErr = s.connectError(s.m.ctx.Err())
		s.mu.Unlock()
		s.closeConn(c, stdioGrace)
		return false
	}
	if err != nil {
		s.failures++
		wait := backoff(s.failures)
		s.nextAttempt = s.m.opts.Now().Add(wait)
		s.lastErr = s.connectError(err)
		s.mu.Unlock()
		if s.m.ctx.Err() == nil {
			s.log.Warn("upstream unavailable", "error", s.lastErr, "retry_in", wait)
		}
		return false
	}
	s.failures, s.nextAttempt, s.lastErr = 0, time.Time{}, nil
	s.opened++
	s.gen++ // a new session may serve other tools: list again
	s.conn = c
	reconnects := s.opened - 1
	s.mu.Unlock()
	if reconnects > 0 {
		s.log.Warn("upstream reconnected", "reconnects", reconnects)
	}
	// Wait returns when the session ends from either side; the watcher
	// then reaps the child and forgets the session.
	if !s.m.goTrack(func() { s.watch(c) }) {
		s.closeConn(c, stdioGrace)
		return false
	}
	return true
}

// watch waits for the session to end, then forgets and cleans it up.
func (s *server) watch(c *conn) {
	err := c.cs.Wait()
	c.markEnded()
	cause := "the session closed"
	if err != nil {
		cause = err.Error()
	}
	s.lose(c, cause)
	s.closeConn(c, stdioGrace)
}

// closeConn ends a session that is no longer s.conn and runs its cleanup.
// A stdio child is ended first, giving it grace to exit on EOF: the SDK's
// Close waits for the session's requests in flight, and a child that
// stopped reading could block a write of the SDK's; with the child gone,
// both end at once.
func (s *server) closeConn(c *conn, grace time.Duration) {
	if c.kill != nil {
		c.kill(grace)
	}
	if err := c.cs.Close(); err != nil {
		s.log.Debug("upstream session closed", "error", s.red.apply(err.Error()))
	}
	c.cleanup()
}

// closeConnAsync is closeConn in a goroutine Close waits for, or in place
// when Close has begun.
func (s *server) closeConnAsync(c *conn, grace time.Duration) {
	if !s.m.goTrack(func() { s.closeConn(c, grace) }) {
		s.closeConn(c, grace)
	}
}

// lose forgets c if it is the open session, so the next use reconnects.
// It logs once per session. The watcher closes and cleans up c.
func (s *server) lose(c *conn, cause string) {
	c.markEnded()
	s.mu.Lock()
	current := s.conn == c
	if current {
		s.conn = nil
		s.lastErr = apperr.New(apperr.UpstreamUnavailable, s.checkHint(), "server %q ended: %s", s.name, s.red.apply(cause))
	}
	s.mu.Unlock()
	if current && s.m.ctx.Err() == nil {
		s.log.Warn("upstream ended; it reconnects on next use", "error", s.red.apply(cause))
	}
}

// session returns the open session, connecting when there is none and no
// backoff holds the server back. It waits for at most one attempt.
// Errors: apperr.UpstreamUnavailable.
func (s *server) session(ctx context.Context) (*conn, error) {
	if s.configErr != nil {
		e := *s.configErr
		return nil, &e
	}
	s.mu.Lock()
	if c := s.conn; c != nil {
		s.mu.Unlock()
		return c, nil
	}
	if s.m.ctx.Err() != nil {
		s.mu.Unlock()
		return nil, s.closedError()
	}
	ch := s.connecting
	if ch == nil {
		if now := s.m.opts.Now(); now.Before(s.nextAttempt) {
			err := s.backoffError(now)
			s.mu.Unlock()
			return nil, err
		}
		ch = s.startConnectLocked()
	}
	s.mu.Unlock()

	select {
	case <-ch:
	case <-ctx.Done():
		return nil, apperr.Wrap(ctx.Err(), apperr.UpstreamUnavailable, "call again in a moment",
			"server %q is still starting; stopped waiting: %v", s.name, ctx.Err())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.conn != nil:
		return s.conn, nil
	case s.m.ctx.Err() != nil:
		return nil, s.closedError()
	case s.failures > 0:
		return nil, s.backoffError(s.m.opts.Now())
	case s.lastErr != nil:
		e := *s.lastErr
		return nil, &e
	}
	return nil, apperr.New(apperr.UpstreamUnavailable, "call again", "server %q is not connected", s.name)
}

// backoffError is the fast failure while a server backs off. s.mu is held.
func (s *server) backoffError(now time.Time) error {
	cause, hint := fmt.Sprintf("server %q failed to start", s.name), s.checkHint()
	if s.lastErr != nil {
		cause, hint = s.lastErr.Message, s.lastErr.Hint
	}
	at := s.nextAttempt.Format("15:04:05.000")
	return &apperr.Error{
		Code:    apperr.UpstreamUnavailable,
		Message: fmt.Sprintf("%s; next attempt in %s (at %s)", cause, max(s.nextAttempt.Sub(now), 0).Round(time.Millisecond), at),
		Hint:    fmt.Sprintf("retry after %s; %s", at, hint),
		Err:     s.lastErr,
	}
}

func (s *server) closedError() error {
	return apperr.New(apperr.UpstreamUnavailable, "restart langspec", "server %q: langspec is shutting down", s.name)
}

// checkHint names where to look when a server keeps failing.
func (s *server) checkHint() string {
	if s.kind == TypeStdio {
		return fmt.Sprintf("if it keeps failing, check mcpServers.%s in langspec.json and the stderr lines prefixed [%s]", s.name, s.name)
	}
	if s.kind == "custom" {
		return "if it keeps failing, check langspec's log"
	}
	return fmt.Sprintf("if it keeps failing, check mcpServers.%s in langspec.json and that the server is up", s.name)
}

// connectError describes a failed attempt, without secrets.
func (s *server) connectError(err error) *apperr.Error {
	var msg string // completes "server %q …"
	switch {
	case s.m.ctx.Err() != nil:
		msg = "was not started: langspec is shutting down"
	case errors.Is(err, context.DeadlineExceeded):
		msg = fmt.Sprintf("did not start within %s (no answer to initialize)", s.m.opts.ConnectTimeout)
		if s.kind == TypeHTTP || s.kind == TypeSSE {
			msg = fmt.Sprintf("did not answer within %s", s.m.opts.ConnectTimeout)
		}
	case s.kind == TypeStdio && (errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission)):
		return apperr.Wrap(err, apperr.UpstreamUnavailable,
			fmt.Sprintf("install the program, or give the full path of an executable in mcpServers.%s.command", s.name),
			"server %q could not start: %s", s.name, s.red.apply(err.Error()))
	case errors.Is(err, io.EOF), errors.Is(err, mcp.ErrConnectionClosed):
		msg = "ended before answering initialize"
	case s.kind == TypeHTTP || s.kind == TypeSSE:
		msg = "could not be reached: " + err.Error()
	default:
		msg = "could not start: " + err.Error()
	}
	return apperr.Wrap(err, apperr.UpstreamUnavailable, s.checkHint(), "server %q %s", s.name, s.red.apply(msg))
}

// requestError classifies a failed request on session c: the caller gave
// up, langspec is shutting down, the request's own timeout hit, the session
// ended (c is dropped, so the next use reconnects), or the server answered
// with an error.
//
// After a timeout the SDK has already sent notifications/cancelled for the
// request (it does when the request's context ends). A server that merely
// took too long answers a ping and keeps its session. One that does not is
// wedged, and keeping its session would make every later call time out
// too: the session is dropped and a stdio child killed, so the next call
// starts it afresh.
func (s *server) requestError(ctx, rctx context.Context, c *conn, err error, code apperr.Code, what string) error {
	var rpcErr *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
		return apperr.Wrap(err, code, "call again", "%s on server %q: stopped: %v", what, s.name, ctx.Err())
	case s.m.ctx.Err() != nil:
		return apperr.Wrap(err, code, "restart langspec", "%s on server %q: stopped: langspec is shutting down", what, s.name)
	case errors.Is(rctx.Err(), context.DeadlineExceeded):
		if s.answersPing(c) {
			return apperr.Wrap(err, code, "retry once; if it keeps timing out, ask for less at a time or check the server",
				"%s on server %q did not answer within %s", what, s.name, s.m.opts.CallTimeout)
		}
		d := s.pingBound()
		s.lose(c, fmt.Sprintf("%s timed out and a ping got no answer within %s", what, d))
		s.closeConnAsync(c, 0)
		return apperr.Wrap(err, code, "call again: the next call restarts the server; "+s.checkHint(),
			"%s on server %q did not answer within %s, nor a ping within %s: the server was stopped", what, s.name, s.m.opts.CallTimeout, d)
	case s.sessionEnded(c, err):
		s.lose(c, err.Error())
		// The watcher usually sees the end first; closing here makes sure
		// a session that only failed this request is not kept half-open.
		s.closeConnAsync(c, stdioGrace)
		return apperr.Wrap(err, code, "call again: the next call restarts the server; "+s.checkHint(),
			"server %q ended during %s", s.name, what)
	case errors.As(err, &rpcErr):
		hint := "check the tool name and the arguments against the tool's schema"
		if code == apperr.SchemaFetchError {
			hint = "retry later; " + s.checkHint()
		}
		return apperr.Wrap(err, code, hint, "server %q rejected %s: %s (code %d)", s.name, what, s.red.apply(rpcErr.Message), rpcErr.Code)
	}
	return apperr.Wrap(err, code, "call again; "+s.checkHint(), "%s on server %q failed: %s", what, s.name, s.red.apply(err.Error()))
}

// pingBound is pingTimeout, or CallTimeout when that is shorter: a ping
// never waits longer than a call would.
func (s *server) pingBound() time.Duration {
	return min(pingTimeout, s.m.opts.CallTimeout)
}

// answersPing reports whether the server answers a ping on c within
// pingBound. An error answer counts: the server reads and replies. The
// ping runs apart, since the SDK cannot abandon a write to a child that
// stopped reading its stdin; the write ends when the child is killed.
func (s *server) answersPing(c *conn) bool {
	ctx, cancel := context.WithTimeout(s.m.ctx, s.pingBound())
	defer cancel()
	errc := make(chan error, 1)
	if !s.m.goTrack(func() { errc <- c.cs.Ping(ctx, nil) }) {
		return false
	}
	select {
	case err := <-errc:
		var rpcErr *jsonrpc.Error
		return err == nil || errors.As(err, &rpcErr)
	case <-ctx.Done():
		return false
	}
}

// reqContext bounds one request by CallTimeout and ends it when the
// Manager closes, so that Close never waits for a request in flight.
func (s *server) reqContext(ctx context.Context) (context.Context, context.CancelFunc) {
	rctx, cancel := context.WithTimeout(ctx, s.m.opts.CallTimeout)
	stop := context.AfterFunc(s.m.ctx, cancel)
	return rctx, func() { stop(); cancel() }
}

// sessionEnded reports whether err means the session is gone.
func (s *server) sessionEnded(c *conn, err error) bool {
	if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	select {
	case <-c.ended:
		return true
	default:
		return false
	}
}

// call runs tools/call under CallTimeout.
func (s *server) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	c, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{} // a nil map would go out as null
	}
	rctx, cancel := s.reqContext(ctx)
	defer cancel()
	res, err := c.cs.CallTool(rctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, s.requestError(ctx, rctx, c, err, apperr.UpstreamCallError, fmt.Sprintf("the call of %q", tool))
	}
	return res, nil
}

// callWithPolicy is call under the server's caller: the arguments checked
// against the tool's listed input schema first (when the listing can be
// had; else the server judges them), the result of a safe tool cached,
// and a failed call tried again as the retry policy says.
func (s *server) callWithPolicy(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	if s.caller == nil {
		return s.call(ctx, tool, args)
	}
	var listed *mcp.Tool
	if list, err := s.toolList(ctx); err == nil {
		for _, t := range list.Tools {
			if t.Name == tool {
				listed = t
				break
			}
		}
		if err := s.caller.checkArgs(list, listed, args); err != nil {
			return nil, err
		}
	}
	res, err := s.caller.do(ctx, s.name, listed, tool, args, func(ctx context.Context) (*mcp.CallToolResult, error) {
		return s.call(ctx, tool, args)
	})
	if err != nil && s.oauth != nil {
		// The SDK words a request that went without a token as its own
		// failure; what the person must do is log in again.
		if ferr := s.oauth.failure(); ferr != nil {
			return nil, ferr
		}
	}
	return res, err
}

// toolsChanged drops the cached listing: the server said it changed.
func (s *server) toolsChanged() {
	s.mu.Lock()
	s.gen++
	s.mu.Unlock()
	s.log.Debug("upstream tools changed")
	if f := s.m.opts.OnToolsChanged; f != nil {
		f(s.name)
	}
}

func (s *server) status(now time.Time) ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ServerStatus{
		Name:        s.name,
		Description: s.description,
		Type:        s.kind,
		Reconnects:  max(s.opened-1, 0),
	}
	switch {
	case s.configErr != nil:
		st.State, st.LastError = StateUnavailable, s.configErr.Message
		return st
	case s.conn != nil:
		st.State = StateReady
	case s.connecting != nil:
		st.State = StateConnecting
	case s.failures > 0:
		st.State = StateUnavailable
	default:
		st.State = StateIdle
	}
	if s.lastErr != nil && s.conn == nil {
		st.LastError = s.lastErr.Message
	}
	if s.tools != nil {
		st.Tools = len(s.tools.Tools)
	}
	if now.Before(s.nextAttempt) {
		st.NextAttempt = s.nextAttempt
	}
	return st
}
