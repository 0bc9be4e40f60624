package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InProcess returns a connect function that serves s to one client over the
// SDK's in-memory transport: langspec's own tools reached the same way as an
// upstream server's, so categories, masks and batch treat both alike.
func InProcess(s *mcp.Server) func(ctx context.Context) (mcp.Transport, error) {
	return func(ctx context.Context) (mcp.Transport, error) {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := s.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
}

// inProcessLogged is InProcess for langspec's own tools in categories mode,
// with what they log while serving a call sent to the client whose request
// made the call: a call-category-tool's or a batch task's log lines reach
// the client that called, over HTTP as over stdio, on that request's own
// stream. A message through the in-memory transport carries no context, so
// the client's end notes the calling request's context under a token it
// adds to the call's _meta, and the server's end (the middleware added to
// s) gives the log that context back.
func inProcessLogged(s *mcp.Server) func(ctx context.Context) (mcp.Transport, error) {
	l := &requestLink{waiting: map[string]context.Context{}}
	s.AddReceivingMiddleware(l.restore)
	connect := InProcess(s)
	return func(ctx context.Context) (mcp.Transport, error) {
		t, err := connect(ctx)
		if err != nil {
			return nil, err
		}
		return &linkedTransport{Transport: t, link: l}, nil
	}
}

// requestMetaKey is the _meta key of the token, in langspec's own
// namespace; it never leaves the process.
const requestMetaKey = "dev.langspec/request"

// requestLink holds the contexts of calls on their way through the
// in-memory transport, by token.
type requestLink struct {
	mu      sync.Mutex
	seq     uint64
	waiting map[string]context.Context
}

// put notes ctx and returns its token.
func (l *requestLink) put(ctx context.Context) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	tok := strconv.FormatUint(l.seq, 10)
	l.waiting[tok] = ctx
	return tok
}

// take returns and forgets the context of tok.
func (l *requestLink) take(tok string) (context.Context, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ctx, ok := l.waiting[tok]
	delete(l.waiting, tok)
	return ctx, ok
}

// restore is the server's end: a call that carries a token is served with
// the calling request's context as its log context (logContext).
func (l *requestLink) restore(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if tok, ok := metaOf(req)[requestMetaKey].(string); ok {
			if outer, ok := l.take(tok); ok {
				ctx = context.WithValue(ctx, outerRequest{}, outer)
			}
		}
		return next(ctx, method, req)
	}
}

// outerRequest is the context key of the request a call in process serves.
type outerRequest struct{}

// logContext is the context a record logged with ctx is sent by: that of
// the client's request that an in-process call serves, else ctx itself.
func logContext(ctx context.Context) context.Context {
	if outer, ok := ctx.Value(outerRequest{}).(context.Context); ok {
		return outer
	}
	return ctx
}

// linkedTransport is the client's end of the in-memory transport.
type linkedTransport struct {
	mcp.Transport
	link *requestLink
}

func (t *linkedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &linkedConn{Connection: c, link: t.link}, nil
}

// linkedConn adds the token to each request sent while serving a client's
// request (the context says whose: requestSession).
type linkedConn struct {
	mcp.Connection
	link *requestLink
}

func (c *linkedConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.IsCall() || ctx.Value(requestSession{}) == nil {
		return c.Connection.Write(ctx, msg)
	}
	tok := c.link.put(ctx)
	tagged, err := withMeta(req, tok)
	if err != nil {
		c.link.take(tok)
		return c.Connection.Write(ctx, msg)
	}
	if err := c.Connection.Write(ctx, tagged); err != nil {
		c.link.take(tok)
		return err
	}
	return nil
}

// withMeta is req with the token added to its params' _meta.
func withMeta(req *jsonrpc.Request, tok string) (*jsonrpc.Request, error) {
	params := map[string]json.RawMessage{}
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return nil, err
		}
	}
	meta := map[string]json.RawMessage{}
	if m := params["_meta"]; len(m) > 0 && string(m) != "null" {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, err
		}
	}
	meta[requestMetaKey], _ = json.Marshal(tok)
	var err error
	if params["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	r := *req
	if r.Params, err = json.Marshal(params); err != nil {
		return nil, err
	}
	return &r, nil
}
