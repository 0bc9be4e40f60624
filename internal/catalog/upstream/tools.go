package upstream

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// ToolList is one listing of a server's tools. It is shared and must not
// be changed: copy a Tool before adjusting it.
//
// Key is "<server>:<hash>", the hash being over the listed tools after
// schema normalisation. A refresh (TTL, list_changed, reconnect) that
// lists the same tools keeps the previous *ToolList, so callers can cache
// what they derive from it by Key, or by pointer, and only redo the work
// when the tools really changed.
type ToolList struct {
	Key   string
	Tools []*mcp.Tool
}

// cachedTools returns the listing while it is fresh, else nil.
func (s *server) cachedTools() *ToolList {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools == nil || s.listedGen != s.gen || !s.m.opts.Now().Before(s.fetchedAt.Add(s.m.opts.SchemaTTL)) {
		return nil
	}
	return s.tools
}

// toolList serves the cache or lists every page anew. Errors:
// apperr.UpstreamUnavailable, apperr.SchemaFetchError.
func (s *server) toolList(ctx context.Context) (*ToolList, error) {
	return s.listTools(ctx, nil)
}

// listTools is toolList on session c, or on the open session (connecting
// when there is none) when c is nil.
func (s *server) listTools(ctx context.Context, c *conn) (*ToolList, error) {
	if tl := s.cachedTools(); tl != nil {
		return tl, nil
	}
	select {
	case s.listSem <- struct{}{}:
		defer func() { <-s.listSem }()
	case <-ctx.Done():
		return nil, apperr.Wrap(ctx.Err(), apperr.SchemaFetchError, "call again", "tools of server %q: stopped waiting: %v", s.name, ctx.Err())
	}
	// Another caller may have listed while this one waited.
	if tl := s.cachedTools(); tl != nil {
		return tl, nil
	}
	if c == nil {
		var err error
		if c, err = s.session(ctx); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()

	lctx, cancel := s.reqContext(ctx)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range c.cs.Tools(lctx, nil) {
		if err != nil {
			return nil, s.requestError(ctx, lctx, c, err, apperr.SchemaFetchError, "tools/list")
		}
		t.InputSchema = normalizeSchema(t.InputSchema)
		tools = append(tools, t)
	}
	key, err := toolsKey(s.name, tools)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.SchemaFetchError, "report this server's tools/list output as a langspec bug", "tools of server %q: %v", s.name, err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tools == nil || s.tools.Key != key {
		s.tools = &ToolList{Key: key, Tools: tools}
	}
	// A list_changed during the listing leaves gen ahead of listedGen, so
	// the next call lists again.
	s.fetchedAt, s.listedGen = s.m.opts.Now(), gen
	return s.tools, nil
}

// normalizeSchema makes an input schema an object schema: MCP clients
// (and the SDK's Server.AddTool, through which the category layer may
// re-serve these tools) reject a tool whose inputSchema lacks
// "type":"object", and some servers omit it or the schema altogether.
// Other keywords are kept; the listed map is not changed in place.
func normalizeSchema(schema any) any {
	m, ok := schema.(map[string]any)
	if !ok && schema != nil {
		// Not what JSON decoding gives, but a custom transport could
		// hand over typed schemas; remarshal to inspect them.
		if b, err := json.Marshal(schema); err == nil {
			_ = json.Unmarshal(b, &m) // a non-object schema (true, …) leaves m nil
		}
	}
	if m["type"] == "object" {
		return m
	}
	out := make(map[string]any, len(m)+1)
	maps.Copy(out, m)
	out["type"] = "object"
	return out
}

// toolsKey is "<server>:<hash>" over the tools' JSON. encoding/json sorts
// map keys, so equal listings give equal keys.
func toolsKey(server string, tools []*mcp.Tool) (string, error) {
	b, err := json.Marshal(tools)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return server + ":" + hex.EncodeToString(sum[:8]), nil
}
