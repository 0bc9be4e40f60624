package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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

// ClientLog mirrors langspec's log records to the MCP client as
// notifications/message, at or above the level the client asked for. stderr
// keeps every line it had: the caller builds its logger over both handlers
// (slog.NewMultiHandler(stderr, cl.Handler())), so the records the client
// sees are the very records stderr sees, after the same redaction (the
// upstream servers' secrets are cut out by their loggers before a record
// reaches either).
//
// Nothing is sent before the client sets a level: with protocol versions up
// to 2025-11-25 by logging/setLevel for the whole session; from 2026-07-28,
// where that method is gone, by the log level a request carries in its
// _meta, for the records logged in that request's context only. Records go
// out from a goroutine of their own, so a slow client never holds up the
// code that logs (which may hold a lock).
//
// One ClientLog serves one session: langspec serves one client over stdio.
type ClientLog struct {
	session  atomic.Pointer[mcp.ServerSession]
	level    atomic.Int64 // slog.Level set by logging/setLevel, valid when levelSet
	levelSet atomic.Bool
	closed   atomic.Bool // the connection is gone: stop formatting records
	dropped  atomic.Int64
	queue    chan clientRecord
}

// clientRecord is one formatted record waiting to be sent.
type clientRecord struct {
	ctx   context.Context // the record's context: carries a 2026-07-28 request's log level
	level slog.Level
	data  json.RawMessage
}

// NewClientLog returns a ClientLog not yet attached to a session: its
// handler is disabled until Serve attaches it.
func NewClientLog() *ClientLog {
	return &ClientLog{queue: make(chan clientRecord, clientLogQueue)}
}

// Handler is the slog.Handler that feeds the client.
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

// requestLogLevel is the context key of the log level a 2026-07-28 request
// asked for in its _meta.
type requestLogLevel struct{}

// attach is the receiving middleware that ties c to the session it serves,
// follows logging/setLevel, and puts a request's own log level (2026-07-28)
// in its context.
func (c *ClientLog) attach() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				c.session.CompareAndSwap(nil, ss)
			}
			if l, ok := metaOf(req)[mcp.MetaKeyLogLevel].(string); ok && l != "" {
				if lvl, known := slogLevel(mcp.LoggingLevel(l)); known {
					ctx = context.WithValue(ctx, requestLogLevel{}, lvl)
				}
			}
			res, err := next(ctx, method, req)
			if method == "logging/setLevel" && err == nil {
				if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil {
					if lvl, known := slogLevel(p.Level); known {
						c.level.Store(int64(lvl))
						c.levelSet.Store(true)
					}
				}
			}
			return res, err
		}
	}
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

// enabled reports whether the client wants a record of level logged with
// ctx.
func (c *ClientLog) enabled(ctx context.Context, level slog.Level) bool {
	if c.closed.Load() || c.session.Load() == nil {
		return false
	}
	if lvl, ok := ctx.Value(requestLogLevel{}).(slog.Level); ok {
		return level >= lvl
	}
	return c.levelSet.Load() && level >= slog.Level(c.level.Load())
}

// enqueue hands a record to the sender without waiting.
func (c *ClientLog) enqueue(r clientRecord) {
	select {
	case c.queue <- r:
	default:
		c.dropped.Add(1)
	}
}

// run sends queued records until ctx ends or the connection is gone. The
// SDK checks the level again, against the session's state or the
// request's.
func (c *ClientLog) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-c.queue:
			ss := c.session.Load()
			if n := c.dropped.Swap(0); n > 0 {
				data, _ := json.Marshal(map[string]any{"msg": "log messages dropped: the client read them too slowly", "dropped": n})
				c.send(ss, r.ctx, mcp.LevelWarning, data)
			}
			if !c.send(ss, r.ctx, r.level, r.data) {
				return
			}
		}
	}
}

// send sends one message; false once the connection is closed.
func (c *ClientLog) send(ss *mcp.ServerSession, ctx context.Context, level slog.Level, data json.RawMessage) bool {
	// Log is deprecated from protocol 2026-07-28 (SEP-2577) but works in
	// every version langspec negotiates, for the deprecation window.
	err := ss.Log(ctx, &mcp.LoggingMessageParams{Logger: "langspec", Level: mcpLevel(level), Data: data})
	if errors.Is(err, mcp.ErrConnectionClosed) {
		c.closed.Store(true)
		return false
	}
	return true
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

func (h *clientHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.c.enabled(ctx, level)
}

func (h *clientHandler) Handle(ctx context.Context, r slog.Record) error {
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
	h.c.enqueue(clientRecord{ctx: context.WithoutCancel(ctx), level: r.Level, data: data})
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
