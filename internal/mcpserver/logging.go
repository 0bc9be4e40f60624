package mcpserver

// MCP's logging (logging/setLevel, notifications/message) is deprecated as
// of protocol 2026-07-28 (SEP-2577) and stays functional for at least
// twelve months: clients of earlier protocols still ask for the log, so
// langspec keeps serving it until the SDK drops it.
//lint:file-ignore SA1019 logging is served to clients of protocols before 2026-07-28 (SEP-2577's deprecation window)

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientLogQueue bounds the records waiting for the client. A client that
// stops reading loses log lines, never a tool call's time: records are
// dropped once the queue is full, and the drop is reported when it drains.
const clientLogQueue = 256

// ClientLog mirrors langspec's log records to MCP clients as
// notifications/message, at or above the level each client asked for.
// stderr keeps every line it had: the caller builds its logger over both
// handlers (slog.NewMultiHandler(stderr, cl.Handler())), so the records a
// client sees are the very records stderr sees, after the same redaction
// (the upstream servers' secrets are cut out by their loggers before a
// record reaches either).
//
// Nothing is sent to a session before it sets a level: with protocol
// versions up to 2025-11-25 by logging/setLevel for the whole session;
// from 2026-07-28, where that method is gone, by the log level a request
// carries in its _meta, for the records logged in that request's context
// only. Records go out from a goroutine of their own, so a slow client
// never holds up the code that logs (which may hold a lock).
//
// Over stdio one client owns the server, and gets every record
// (NewClientLog). The team server has many clients, of many subjects, and
// a client gets only the records logged while serving its own requests
// (NewScopedClientLog): the log names subjects, tools and queries, which
// are nobody else's business.
type ClientLog struct {
	scoped  bool
	dropped atomic.Int64
	queue   chan clientRecord

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*clientSession
}

// clientSession is what a ClientLog knows of one session.
type clientSession struct {
	level    atomic.Int64 // slog.Level set by logging/setLevel, valid when levelSet
	levelSet atomic.Bool
}

// clientRecord is one formatted record waiting to be sent.
type clientRecord struct {
	ctx   context.Context // the record's context: carries a 2026-07-28 request's log level
	to    *mcp.ServerSession
	level slog.Level
	data  json.RawMessage
}

// NewClientLog returns a ClientLog for a server with one client, which
// gets every record once it asks (stdio). Its handler is disabled until a
// session attaches.
func NewClientLog() *ClientLog {
	return &ClientLog{queue: make(chan clientRecord, clientLogQueue), sessions: map[*mcp.ServerSession]*clientSession{}}
}

// NewScopedClientLog returns a ClientLog for a server with many clients:
// each gets the records logged in the context of its own requests, and no
// other.
func NewScopedClientLog() *ClientLog {
	c := NewClientLog()
	c.scoped = true
	return c
}

// Handler is the slog.Handler that feeds the clients.
func (c *ClientLog) Handler() slog.Handler {
	var buf bytes.Buffer
	return &clientHandler{c: c, mu: new(sync.Mutex), buf: &buf, json: slog.NewJSONHandler(&buf, &slog.HandlerOptions{
		Level: slog.LevelDebug - 4, // the client's level decides, in Enabled
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.LevelKey {
				return slog.Attr{} // the notification carries the level
			}
			return a
		},
	})}
}

// Context keys: the log level a 2026-07-28 request asked for in its _meta,
// and the session whose request is being served.
type (
	requestLogLevel struct{}
	requestSession  struct{}
)

// attach is the receiving middleware that ties a session to c, follows
// its logging/setLevel, and puts the session and a request's own log level
// (2026-07-28) in the request's context.
func (c *ClientLog) attach() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			var cs *clientSession
			if ss != nil {
				cs = c.session(ss)
				ctx = context.WithValue(ctx, requestSession{}, ss)
			}
			if l, ok := metaOf(req)[mcp.MetaKeyLogLevel].(string); ok && l != "" {
				if lvl, known := slogLevel(mcp.LoggingLevel(l)); known {
					ctx = context.WithValue(ctx, requestLogLevel{}, lvl)
				}
			}
			res, err := next(ctx, method, req)
			if method == "logging/setLevel" && err == nil && cs != nil {
				if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil {
					if lvl, known := slogLevel(p.Level); known {
						cs.level.Store(int64(lvl))
						cs.levelSet.Store(true)
					}
				}
			}
			return res, err
		}
	}
}

// session is c's state of ss, made on its first request; it is forgotten
// when the session ends.
func (c *ClientLog) session(ss *mcp.ServerSession) *clientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs := c.sessions[ss]
	if cs == nil {
		cs = &clientSession{}
		c.sessions[ss] = cs
		go func() {
			_ = ss.Wait()
			c.forget(ss)
		}()
	}
	return cs
}

func (c *ClientLog) forget(ss *mcp.ServerSession) {
	c.mu.Lock()
	delete(c.sessions, ss)
	c.mu.Unlock()
}

// metaOf is the _meta of a request's params, nil when it has none. A
// message sent without params (notifications/initialized, as most clients
// send it) has params that are a nil pointer inside a non-nil interface,
// whose GetMeta would panic.
func metaOf(req mcp.Request) map[string]any {
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() {
		return nil
	}
	return p.GetMeta()
}

// target is the session a record logged with ctx goes to: the one whose
// request logged it; nil for every session when c is not scoped (and
// nothing, ok false, when it is).
func (c *ClientLog) target(ctx context.Context) (ss *mcp.ServerSession, ok bool) {
	ss, _ = ctx.Value(requestSession{}).(*mcp.ServerSession)
	return ss, ss != nil || !c.scoped
}

// enabled reports whether a client wants a record of level logged with
// ctx.
func (c *ClientLog) enabled(ctx context.Context, level slog.Level) bool {
	to, ok := c.target(ctx)
	if !ok {
		return false
	}
	if lvl, ok := ctx.Value(requestLogLevel{}).(slog.Level); ok {
		return level >= lvl
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for ss, cs := range c.sessions {
		if (to == nil || ss == to) && cs.levelSet.Load() && level >= slog.Level(cs.level.Load()) {
			return true
		}
	}
	return false
}

// enqueue hands a record to the sender without waiting.
func (c *ClientLog) enqueue(r clientRecord) {
	select {
	case c.queue <- r:
	default:
		c.dropped.Add(1)
	}
}

// run sends queued records until ctx ends. The SDK checks the level again,
// against the session's state or the request's.
func (c *ClientLog) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-c.queue:
			targets := []*mcp.ServerSession{r.to}
			if r.to == nil {
				c.mu.Lock()
				targets = slices.Collect(maps.Keys(c.sessions))
				c.mu.Unlock()
			}
			n := c.dropped.Swap(0)
			for _, ss := range targets {
				if n > 0 {
					data, _ := json.Marshal(map[string]any{"msg": "log messages dropped: the client read them too slowly", "dropped": n})
					c.send(ss, r.ctx, mcp.LevelWarning, data)
				}
				c.send(ss, r.ctx, r.level, r.data)
			}
		}
	}
}

// send sends one message to ss; a session whose connection is closed is
// forgotten.
func (c *ClientLog) send(ss *mcp.ServerSession, ctx context.Context, level slog.Level, data json.RawMessage) {
	// Log is deprecated from protocol 2026-07-28 (SEP-2577) but works in
	// every version langspec negotiates, for the deprecation window.
	err := ss.Log(ctx, &mcp.LoggingMessageParams{Logger: "langspec", Level: mcpLevel(level), Data: data})
	if errors.Is(err, mcp.ErrConnectionClosed) {
		c.forget(ss)
	}
}

// clientHandler formats records as JSON objects for the client. Handlers
// made by WithAttrs and WithGroup share the buffer and its lock, as the
// slog handler guide recommends.
type clientHandler struct {
	c    *ClientLog
	mu   *sync.Mutex
	buf  *bytes.Buffer
	json slog.Handler
}

// Enabled and Handle judge and send a record by the context of the
// client's request it was logged for: its own, or, for a call langspec's
// own tools serve in process, that of the request that made the call
// (logContext).
func (h *clientHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.c.enabled(logContext(ctx), level)
}

func (h *clientHandler) Handle(ctx context.Context, r slog.Record) error {
	ctx = logContext(ctx)
	h.mu.Lock()
	h.buf.Reset()
	err := h.json.Handle(ctx, r)
	data := json.RawMessage(slices.Clone(bytes.TrimSpace(h.buf.Bytes())))
	h.mu.Unlock()
	if err != nil {
		return err
	}
	// The sender may run after the call has returned and its context is
	// cancelled; the values (a request's log level) must survive.
	to, _ := h.c.target(ctx)
	if to != nil && h.c.scoped {
		// Over HTTP a record of a request goes out on that request's
		// stream, which closes with its answer: sent later, it would find
		// no stream and be dropped. So it is sent now, before the answer,
		// from the request's own goroutine: one short event written to
		// the request's own response, as its answer will be, so only
		// that request waits on a slow client.
		h.c.send(to, ctx, r.Level, data)
		return nil
	}
	h.c.enqueue(clientRecord{ctx: context.WithoutCancel(ctx), to: to, level: r.Level, data: data})
	return nil
}

func (h *clientHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	h2 := *h
	h2.json = h.json.WithAttrs(attrs)
	return &h2
}

func (h *clientHandler) WithGroup(name string) slog.Handler {
	h2 := *h
	h2.json = h.json.WithGroup(name)
	return &h2
}

// slogLevel is an MCP logging level as the slog level the SDK maps it to;
// false for a name MCP does not define.
func slogLevel(l mcp.LoggingLevel) (slog.Level, bool) {
	switch l {
	case "debug":
		return mcp.LevelDebug, true
	case "info":
		return mcp.LevelInfo, true
	case "notice":
		return mcp.LevelNotice, true
	case "warning":
		return mcp.LevelWarning, true
	case "error":
		return mcp.LevelError, true
	case "critical":
		return mcp.LevelCritical, true
	case "alert":
		return mcp.LevelAlert, true
	case "emergency":
		return mcp.LevelEmergency, true
	}
	return 0, false
}

// mcpLevel is the MCP level of a slog level: the highest MCP level at or
// below it, so a record is never sent as more severe than it is.
func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l >= mcp.LevelEmergency:
		return "emergency"
	case l >= mcp.LevelAlert:
		return "alert"
	case l >= mcp.LevelCritical:
		return "critical"
	case l >= mcp.LevelError:
		return "error"
	case l >= mcp.LevelWarning:
		return "warning"
	case l >= mcp.LevelNotice:
		return "notice"
	case l >= mcp.LevelInfo:
		return "info"
	}
	return "debug"
}

// addNotifications adds what a client that talks to s can ask to follow:
// progress of long tool calls, and, with cl, langspec's log. Added last, the
// middleware runs first, so the log line of a call (middleware.LogCalls)
// sees the request's log level.
func addNotifications(s *mcp.Server, cl *ClientLog) {
	mw := []mcp.Middleware{reportProgress(progressInterval)}
	if cl != nil {
		mw = append([]mcp.Middleware{cl.attach()}, mw...)
	}
	s.AddReceivingMiddleware(mw...)
}
